# Standard normal density (Feynman table I.6.2a), for the baseline's measurement set
card gaussian_std "Standard normal density" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.6.2a"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  theta [1] in -3.0 .. 3.0  "standardised deviation"
  output f [1] tolerance abs 1e-30 rel 1%  "probability density"

  param a = 2  "width parameter"
  law f = exp(-theta^2 / a) / sqrt(2 * pi)

  counterfactual "width doubled" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
