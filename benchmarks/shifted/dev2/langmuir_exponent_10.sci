# Coverage of an adsorbing surface: a shifted textbook law (exponent), for the baseline's second development set
card langmuir_exponent_10 "Coverage of an adsorbing surface" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  p [kPa] in 1 .. 100  "gas pressure"
  output theta [1] tolerance abs 1e-5 rel 1%  "coverage"

  param K = 0.05 [1/kPa]  "binding constant"
  law theta = K * p / (1 + K * p)

  # mutation kind: exponent
  counterfactual "heterogeneous sites (Sips) (0.7)" {
    law theta = (K * p)^(0.7) / (1 + (K * p)^(0.7))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
