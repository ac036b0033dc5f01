# Energy stored in a capacitor: a shifted textbook law (term), for the baseline's second development set
card capacitor_term_16 "Energy stored in a capacitor" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  C [uF] in 1 .. 100  "capacitance"
  input  V [V] in 1 .. 50  "voltage"
  output E [mJ] tolerance abs 1e-5 rel 1%  "stored energy"

  param k0 = 1  "unit carrier"
  law E = k0 * C * V^2 / 2

  # mutation kind: term
  counterfactual "a nonlinear dielectric (50)" {
    law E = k0 * C * V^2 / 2 * (1 + V / (50 [V]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
