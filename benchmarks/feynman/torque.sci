# Torque of a force (Feynman table I.18.12), for the baseline's measurement set
card torque "Torque of a force" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.18.12"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  r [m] in 0.1 .. 1.0  "lever arm"
  input  F [N] in 1.0 .. 10.0  "force"
  input  theta [rad] in 0.2 .. 1.4  "angle"
  output tau [N*m] tolerance abs 1e-30 rel 1%  "torque"

  param n = 1  "sine exponent"
  law tau = r * F * sin(theta)^n

  counterfactual "squared sine" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
