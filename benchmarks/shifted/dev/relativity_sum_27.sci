# Energy of a fast particle: a shifted textbook law (sum), for the baseline's development set
card relativity_sum_27 "Energy of a fast particle" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m [kg] in 1 .. 5  "mass"
  input  v [m/s] in 1e+07 .. 2.4e+08  "speed"
  output E [J] tolerance abs 1 rel 1%  "energy"

  param c = 2.998e8 [m/s]  "speed of light"
  law E = m * c^2 / sqrt(1 - (v / c)^2)

  # mutation kind: sum
  counterfactual "the square replaced by a sum (0.38)" {
    law E = m * c^2 / sqrt(1 - (v / c) * (0.38 + v / c) / 2)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
