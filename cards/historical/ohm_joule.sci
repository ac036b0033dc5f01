# Current through a resistor and the heat it releases versus applied voltage (Ohm's law and Joule heating)
card ohm_joule "Ohm's law and Joule heating in a resistor" {
  collection historical
  field      electromagnetism
  source     "G. S. Ohm, Die galvanische Kette, mathematisch bearbeitet, T. H. Riemann, Berlin (1827); J. P. Joule, Phil. Mag. 19, 260 (1841)"

  background """
    A wire-wound resistor is immersed in a stirred oil bath kept at room
    temperature and connected to an adjustable DC supply. Resistors of
    different nominal value, measured beforehand with a Wheatstone bridge
    at a very small test current, can be swapped in. A voltmeter across
    the resistor sets the applied voltage, an ammeter in series reads the
    current, and the oil bath serves as a flow calorimeter that reports
    the heating power delivered to it.
  """
  conditions "steady state reached before reading; contact and lead resistances negligible"
  conditions "the oil bath holds the resistor at a fixed temperature"

  input  V [V]   in 0.5 .. 12   "applied voltage"
  input  R [ohm] in 10 .. 1000  "nominal resistance measured at a very small test current"
  output I [mA]  resolution 0.01 tolerance abs 0.05 rel 1%  "current through the resistor"
  output P [mW]  resolution 0.01 tolerance abs 0.05 rel 1%  "heating power delivered to the bath"

  param beta = 0 [1/V]  "fractional rise of resistance per volt applied"

  let Reff = R * (1 + beta * V)
  law I = V / Reff
  law P = V^2 / Reff

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   I: min 0.63, median 0.75, max 0.97
  #   P: min 0.63, median 0.75, max 0.97
  counterfactual "interaction term switched on: resistance rises in proportion to the applied voltage" {
    set beta = 0.05 [1/V]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
