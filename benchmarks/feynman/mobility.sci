# Drift velocity (Feynman table I.43.16), for the baseline's measurement set
card mobility "Drift velocity" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.43.16"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [m^2/(V*s)] in 0.01 .. 0.1  "mobility"
  input  q [1] in 1.0 .. 3.0  "charge number"
  input  Ve [V] in 1.0 .. 10.0  "voltage"
  input  d [m] in 0.01 .. 0.1  "distance"
  output v [m/s] tolerance abs 1e-30 rel 1%  "drift velocity"

  param n = 1  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law v = k0 * (mu * q * Ve / d^n)

  counterfactual "other" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
