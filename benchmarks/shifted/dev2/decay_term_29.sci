# Atoms left in a radioactive sample: a shifted textbook law (term), for the baseline's second development set
card decay_term_29 "Atoms left in a radioactive sample" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [yr] in 0 .. 30  "time"
  input  N0 [1] in 1000 .. 5000  "atoms at the start"
  output N [1] tolerance abs 1e-3 rel 1%  "atoms left"

  param lam = 0.05 [1/yr]  "decay constant"
  law N = N0 * exp(-lam * t)

  # mutation kind: term
  counterfactual "a second, slower isotope (0.39)" {
    law N = N0 * ((1 - 0.39) * exp(-lam * t) + 0.39 * exp(-lam * t / 10))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
