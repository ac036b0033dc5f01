# Angular distribution (Feynman table III.17.37), for the baseline's measurement set
card dipole_angle "Angular distribution" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.17.37"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  beta [1] in 1.0 .. 5.0  "scale"
  input  alpha [1] in 0.1 .. 0.9  "anisotropy"
  input  theta [rad] in 0.0 .. 3.0  "angle"
  output f [1] tolerance abs 1e-30 rel 1%  "distribution"

  param n = 1  "exponent"
  law f = beta * (1 + alpha * cos(theta)^n)

  counterfactual "squared" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
