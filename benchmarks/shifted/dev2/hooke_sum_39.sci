# Energy stored in a stretched spring: a shifted textbook law (sum), for the baseline's second development set
card hooke_sum_39 "Energy stored in a stretched spring" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  k [N/m] in 50 .. 500  "stiffness"
  input  x [cm] in 1 .. 10  "extension"
  output E [J] tolerance abs 1e-5 rel 1%  "stored energy"

  param k0 = 1  "unit carrier"
  law E = k0 * k * x^2 / 2

  # mutation kind: sum
  counterfactual "a slack taken up first (0.52)" {
    law E = k0 * k * (x - 0.52 [cm])^2 / 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
