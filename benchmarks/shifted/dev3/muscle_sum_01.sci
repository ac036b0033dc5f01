# Speed of a contracting muscle: a shifted textbook law (sum), for the baseline's third development set
card muscle_sum_01 "Speed of a contracting muscle" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  F [N] in 10 .. 300  "load"
  output v [m/s] tolerance abs 1e-5 rel 1%  "shortening speed"

  param F0 = 400 [N]  "isometric force"
  param a = 100 [N]  "heat constant"
  param b = 0.3 [m/s]  "speed constant"
  law v = b * (F0 - F) / (F + a)

  # mutation kind: sum
  counterfactual "another heat constant (47)" {
    law v = b * (F0 - F) / (F + 47 [N])
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
