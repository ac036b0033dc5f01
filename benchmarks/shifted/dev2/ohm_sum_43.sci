# Current through a resistor: a shifted textbook law (sum), for the baseline's second development set
card ohm_sum_43 "Current through a resistor" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  V [V] in 1 .. 12  "voltage"
  input  R [ohm] in 10 .. 100  "resistance"
  output I [mA] tolerance abs 1e-4 rel 1%  "current"

  param k0 = 1  "unit carrier"
  law I = k0 * V / R

  # mutation kind: sum
  counterfactual "a diode's drop (0.37)" {
    law I = k0 * (V - 0.37 [V]) / R
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
