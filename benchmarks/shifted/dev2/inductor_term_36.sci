# Current through a discharging coil: a shifted textbook law (term), for the baseline's second development set
card inductor_term_36 "Current through a discharging coil" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [ms] in 0 .. 5  "time"
  input  I0 [A] in 0.5 .. 2  "starting current"
  output I [A] tolerance abs 1e-5 rel 1%  "current"

  param Rs = 100 [ohm]  "resistance"
  param Lc = 0.2 [H]  "inductance"
  law I = I0 * exp(-Rs * t / Lc)

  # mutation kind: term
  counterfactual "an offset switched on (0.19)" {
    law I = I0 * (exp(-Rs * t / Lc) + 0.19)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
