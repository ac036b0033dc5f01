# Growth of a population: a shifted textbook law (term), for the baseline's held-out set
card logistic_term_18 "Growth of a population" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [d] in 0 .. 20  "time"
  input  N0 [1] in 10 .. 50  "initial population"
  output N [1] tolerance abs 1e-3 rel 1%  "population"

  param K = 1000  "carrying capacity"
  param r = 0.5 [1/d]  "growth rate"
  law N = K / (1 + (K / N0 - 1) * exp(-r * t))

  # mutation kind: term
  counterfactual "harvesting switched on (2.1)" {
    law N = K / (1 + (K / N0 - 1) * exp(-r * t)) - 2.1 * t / (1 [d])
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
