# Elastic force in a bar (Feynman table II.38.3), for the baseline's measurement set
card young_force "Elastic force in a bar" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.38.3"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  Y [Pa] in 1000000000.0 .. 10000000000.0  "Young's modulus"
  input  A [m^2] in 0.0001 .. 0.001  "area"
  input  x [m] in 0.0001 .. 0.001  "extension"
  input  d [m] in 0.5 .. 2.0  "length"
  output F [N] tolerance abs 1e-30 rel 1%  "force"

  param n = 1  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law F = k0 * (Y * A * x / d^n)

  counterfactual "other" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
