# Power dissipated in a resistor: a shifted textbook law (exponent), for the baseline's development set
card joule_exponent_39 "Power dissipated in a resistor" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  I [A] in 0.1 .. 2  "current"
  input  R [ohm] in 1 .. 100  "resistance"
  output P [W] tolerance abs 1e-4 rel 1%  "power"

  param k0 = 1  "unit carrier"
  law P = k0 * I^2 * R

  # mutation kind: exponent
  counterfactual "current exponent (3/2)" {
    law P = k0 * I^(3/2) * R
    rebalance k0 at I = 1.05 [A], R = 50.5 [ohm]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
