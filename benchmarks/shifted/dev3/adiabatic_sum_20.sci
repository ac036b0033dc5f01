# Pressure of an adiabatically compressed gas: a shifted textbook law (sum), for the baseline's third development set
card adiabatic_sum_20 "Pressure of an adiabatically compressed gas" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  V [L] in 1 .. 10  "volume"
  output p [kPa] tolerance abs 1e-4 rel 1%  "pressure"

  param p0 = 100 [kPa]  "starting pressure"
  param V0 = 10 [L]  "starting volume"
  law p = p0 * (V0 / V)^1.4

  # mutation kind: sum
  counterfactual "a dead volume (0.67)" {
    law p = p0 * (V0 / (V + 0.67 [L]))^1.4
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
