# Light through two polarisers: a shifted textbook law (exponent), for the baseline's development set
card malus_exponent_13 "Light through two polarisers" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  I0 [W/m^2] in 1 .. 10  "incident intensity"
  input  theta [rad] in 0 .. 1.2  "angle between the axes"
  output I [W/m^2] tolerance abs 1e-3 rel 1%  "transmitted intensity"


  law I = I0 * cos(theta)^2

  # mutation kind: exponent
  counterfactual "cosine exponent (2.5)" {
    law I = I0 * cos(theta)^(2.5)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
