# Refraction (Feynman table I.26.2), for the baseline's measurement set
card snell_feynman "Refraction" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.26.2"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n [1] in 1.1 .. 1.5  "index"
  input  theta2 [rad] in 0.1 .. 0.6  "angle inside"
  output theta1 [rad] tolerance abs 1e-30 rel 1%  "angle outside"

  param k = 1  "scale"
  law theta1 = asin(k * n * sin(theta2))

  counterfactual "weaker index" {
    scale k by 0.8
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
