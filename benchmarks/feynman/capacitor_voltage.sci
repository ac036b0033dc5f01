# Voltage of a capacitor (Feynman table I.25.13), for the baseline's measurement set
card capacitor_voltage "Voltage of a capacitor" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.25.13"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  C [F] in 1e-06 .. 1e-05  "capacitance"
  output V [V] tolerance abs 1e-30 rel 1%  "voltage"

  param n = 1  "charge exponent"
  param k0 = 1 [1]  "unit carrier"
  law V = k0 * (q^n / C)

  counterfactual "quadratic charge law" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
