# Oxygen saturation of haemoglobin versus oxygen partial pressure (Hill equation)
card hill "Hill equation for oxygen binding by haemoglobin" {
  collection historical
  field      biology
  source     "A. V. Hill, The possible effects of the aggregation of the molecules of haemoglobin on its dissociation curves, J. Physiol. 40 (Suppl.), iv (1910)"

  # whole blood: the half-saturation pressure and the binding exponent below are those of
  # red cells at pH 7.4 (purified haemoglobin in buffer half-saturates at 5 to 12 mmHg)
  background """
    A thin film of fresh human whole blood is equilibrated in a rotating
    tonometer at 37 degrees Celsius with a gas mixture of chosen oxygen
    partial pressure and a carbon dioxide partial pressure of 40 mmHg. A
    CO-oximeter then reads the fraction of the haemoglobin that carries
    oxygen from the absorption of the oxygenated and deoxygenated forms.
  """
  conditions "blood at pH 7.4, 37 degrees Celsius and fixed carbon dioxide level; no carbon monoxide"
  conditions "full equilibrium with the gas phase before reading"

  input  pO2 [mmHg]    in 5 .. 100  "oxygen partial pressure in the gas"
  output Y   [percent] resolution 0.1 tolerance abs 0.5 rel 1%  "oxygen saturation of the haemoglobin"

  param P50 = 26 [mmHg]  "partial pressure at half saturation"
  param h   = 2.7        "binding exponent"

  law Y = pO2^h / (P50^h + pO2^h)

  # mutation kind: exponent change
  # worlds: counterfactual / original output ratio over the evaluation set
  #   Y: min 0.77, median 0.8, max 12
  counterfactual "exponent change: binding sites act one at a time" {
    set h = 1
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
