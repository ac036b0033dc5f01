# Size of a growing tumour: a shifted textbook law (power), for the baseline's third development set
card gompertz_power_43 "Size of a growing tumour" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [d] in 0 .. 30  "time"
  output N [1] tolerance abs 1e-4 rel 1%  "cells (millions)"

  param K = 100  "capacity"
  param N0 = 2  "starting size"
  param r = 0.15 [1/d]  "growth rate"
  law N = K * exp(log(N0 / K) * exp(-r * t))

  # mutation kind: power
  counterfactual "the size raised to a power (0.8)" {
    law N = K * exp(log(N0 / K) * exp(-r * t))^(0.8)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
