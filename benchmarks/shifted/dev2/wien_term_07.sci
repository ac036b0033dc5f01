# Peak wavelength of a hot body: a shifted textbook law (term), for the baseline's second development set
card wien_term_07 "Peak wavelength of a hot body" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  T [K] in 3000 .. 10000  "temperature"
  output lam [um] tolerance abs 1e-6 rel 1%  "peak wavelength"

  param b = 2.898e-3 [m*K]  "Wien constant"
  law lam = b / T

  # mutation kind: term
  counterfactual "an offset switched on (0.15)" {
    law lam = b / T + (0.15 [um])
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
