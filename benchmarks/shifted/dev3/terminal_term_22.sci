# Speed of a falling body with drag: a shifted textbook law (term), for the baseline's third development set
card terminal_term_22 "Speed of a falling body with drag" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [s] in 0 .. 5  "time"
  output v [m/s] tolerance abs 1e-4 rel 1%  "speed"

  param vt = 20 [m/s]  "terminal speed"
  param g = 9.81 [m/s^2]  "gravity"
  law v = vt * tanh(g * t / vt)

  # mutation kind: term
  counterfactual "a constant push switched on (0.51)" {
    law v = vt * tanh(g * t / vt) + (0.51 [m/s^2]) * t
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
