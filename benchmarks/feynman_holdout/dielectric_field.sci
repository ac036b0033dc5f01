# Field in a dielectric (Feynman table II.10.9), for the baseline's held-out measurement set
card dielectric_field "Field in a dielectric" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.10.9"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  sigma [C/m^2] in 1e-06 .. 1e-05  "surface charge density"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  chi [1] in 0.1 .. 5.0  "susceptibility"
  output Ef [V/m] tolerance abs 1e-30 rel 1%  "field"

  param k = 1  "scale"
  law Ef = sigma / eps / (1 + k * chi)

  counterfactual "stronger screening" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
