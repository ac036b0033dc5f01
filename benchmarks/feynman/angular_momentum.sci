# Angular momentum (Feynman table I.18.14), for the baseline's measurement set
card angular_momentum "Angular momentum" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.18.14"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 1.0 .. 5.0  "mass"
  input  r [m] in 0.1 .. 1.0  "radius"
  input  v [m/s] in 1.0 .. 5.0  "speed"
  input  theta [rad] in 0.2 .. 1.4  "angle"
  output L [kg*m^2/s] tolerance abs 1e-30 rel 1%  "angular momentum"

  param n = 1  "sine exponent"
  law L = m * r * v * sin(theta)^n

  counterfactual "squared sine" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
