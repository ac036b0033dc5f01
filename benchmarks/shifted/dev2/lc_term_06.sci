# Voltage across an oscillating circuit: a shifted textbook law (term), for the baseline's second development set
card lc_term_06 "Voltage across an oscillating circuit" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [ms] in 0 .. 10  "time"
  input  Vb [V] in 8 .. 12  "bias voltage"
  output V [V] tolerance abs 1e-4 rel 1%  "voltage"

  param V0 = 3 [V]  "amplitude"
  param Lc = 100 [mH]  "inductance"
  param Cc = 10 [uF]  "capacitance"
  law V = Vb + V0 * cos(t / sqrt(Lc * Cc))

  # mutation kind: term
  counterfactual "a resistance switched on (7.3)" {
    law V = Vb + V0 * exp(-t / (7.3 [ms])) * cos(t / sqrt(Lc * Cc))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
