# Image distance of a thin lens: a shifted textbook law (exponent), for the baseline's third development set
card lens_exponent_32 "Image distance of a thin lens" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  u [cm] in 30 .. 100  "object distance"
  output w [cm] tolerance abs 1e-4 rel 1%  "image distance"

  param f = 20 [cm]  "focal length"
  law w = u * f / (u - f)

  # mutation kind: exponent
  counterfactual "a power of the distance ratio (0.8)" {
    law w = f * (u / f)^(0.8) / ((u / f)^(0.8) - 1)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
