# Normal density with a mean and a width (Feynman table I.6.2b), for the baseline's held-out measurement set
card gaussian_shifted "Normal density with a mean and a width" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.6.2b"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  theta [1] in -3.0 .. 3.0  "value"
  input  theta1 [1] in -1.0 .. 1.0  "mean"
  input  sigma [1] in 1.0 .. 3.0  "width"
  output f [1] tolerance abs 1e-30 rel 1%  "probability density"

  param a = 2  "width parameter"
  law f = exp(-((theta - theta1)/sigma)^2 / a) / (sqrt(2 * pi) * sigma)

  counterfactual "width doubled" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
