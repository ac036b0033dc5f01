# Potential energy near the ground (Feynman table I.14.3), for the baseline's measurement set
card potential_height "Potential energy near the ground" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.14.3"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 1.0 .. 10.0  "mass"
  input  g [m/s^2] in 9.0 .. 10.0  "gravity"
  input  z [m] in 1.0 .. 10.0  "height"
  output U [J] tolerance abs 1e-30 rel 1%  "energy"

  param n = 1  "height exponent"
  param k0 = 1 [1]  "unit carrier"
  law U = k0 * (m * g * z^n)

  counterfactual "quadratic height" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
