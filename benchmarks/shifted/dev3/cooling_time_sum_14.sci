# Temperature of a cooling cup: a shifted textbook law (sum), for the baseline's third development set
card cooling_time_sum_14 "Temperature of a cooling cup" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [min] in 0 .. 60  "time"
  input  T0 [K] in 330 .. 370  "starting temperature"
  output T [K] tolerance abs 1e-3 rel 1%  "temperature"

  param Ta = 293 [K]  "room temperature"
  param tau = 20 [min]  "cooling time"
  law T = Ta + (T0 - Ta) * exp(-t / tau)

  # mutation kind: sum
  counterfactual "a warmer room to cool toward (7.5)" {
    law T = Ta + 7.5 [K] + (T0 - Ta - 7.5 [K]) * exp(-t / tau)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
