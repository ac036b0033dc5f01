# Sliding friction (Feynman table I.12.1), for the baseline's measurement set
card friction "Sliding friction" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.12.1"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [1] in 0.1 .. 0.9  "friction coefficient"
  input  Nn [N] in 1.0 .. 100.0  "normal force"
  output F [N] tolerance abs 1e-30 rel 1%  "friction force"

  param k = 1  "scale"
  law F = k * mu * Nn

  counterfactual "stronger friction" {
    scale k by 1.3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
