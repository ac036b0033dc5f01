# Sum of two waves (Feynman table I.29.16), for the baseline's measurement set
card interference_sum "Sum of two waves" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.29.16"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  x1 [m] in 1.0 .. 2.0  "amplitude 1"
  input  x2 [m] in 1.0 .. 2.0  "amplitude 2"
  input  theta1 [rad] in 0.0 .. 1.0  "phase 1"
  input  theta2 [rad] in 2.0 .. 3.0  "phase 2"
  output x [m] tolerance abs 1e-30 rel 1%  "resultant"

  param k = 2  "cross factor"
  law x = sqrt(x1^2 + x2^2 - k * x1 * x2 * cos(theta1 - theta2))

  counterfactual "weaker cross term" {
    scale k by 0.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
