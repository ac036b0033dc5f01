# Level of a draining tank: a shifted textbook law (sum), for the baseline's third development set
card tank_sum_44 "Level of a draining tank" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [s] in 0 .. 100  "time"
  input  h0 [m] in 1 .. 2  "starting level"
  output h [m] tolerance abs 1e-5 rel 1%  "level"

  param kd = 0.004 [m^0.5/s]  "drain constant"
  law h = h0 * (1 - kd * t / sqrt(h0))^2

  # mutation kind: sum
  counterfactual "a level below the outlet (0.19)" {
    law h = (sqrt(h0 + 0.19 [m]) - kd * t)^2 - 0.19 [m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
