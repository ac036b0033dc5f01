# Focal length of a thick lens (Feynman table I.27.6), for the baseline's measurement set
card lens_combination "Focal length of a thick lens" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.27.6"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  d1 [m] in 0.1 .. 1.0  "distance 1"
  input  d2 [m] in 0.1 .. 1.0  "distance 2"
  input  n [1] in 1.1 .. 1.5  "index"
  output f [m] tolerance abs 1e-30 rel 1%  "focal length"

  param k = 1  "scale"
  law f = 1 / (1/d1 + k * n / d2)

  counterfactual "stronger second face" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
