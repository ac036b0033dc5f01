# Shear modulus from Young's modulus (Feynman table II.38.14), for the baseline's held-out measurement set
card shear_modulus "Shear modulus from Young's modulus" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.38.14"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  Y [Pa] in 1000000000.0 .. 100000000000.0  "Young's modulus"
  input  sigma [1] in 0.1 .. 0.5  "Poisson's ratio"
  output mu [Pa] tolerance abs 1e-30 rel 1%  "shear modulus"

  param k = 1  "scale"
  law mu = Y / (2 * (1 + k * sigma))

  counterfactual "stronger contraction" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
