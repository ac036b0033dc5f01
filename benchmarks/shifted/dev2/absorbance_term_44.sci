# Absorbance of a solution: a shifted textbook law (term), for the baseline's second development set
card absorbance_term_44 "Absorbance of a solution" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  c [mM] in 0.1 .. 2  "concentration"
  input  l [cm] in 0.5 .. 2  "path length"
  output A [1] tolerance abs 1e-5 rel 1%  "absorbance"

  param eps = 1.5 [1/(mM*cm)]  "absorption coefficient"
  law A = eps * l * c

  # mutation kind: term
  counterfactual "stray light switched on (0.098)" {
    law A = -log(exp(-eps * l * c) * (1 - 0.098) + 0.098)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
