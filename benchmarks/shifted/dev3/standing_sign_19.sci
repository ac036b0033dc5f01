# Displacement of a standing wave: a shifted textbook law (sign), for the baseline's third development set
card standing_sign_19 "Displacement of a standing wave" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  x [m] in 0 .. 2  "position"
  input  t [s] in 0 .. 2  "time"
  output y [mm] tolerance abs 1e-4 rel 1%  "displacement"

  param y0 = 5 [mm]  "rest position"
  param A = 2 [mm]  "amplitude"
  param kw = 1.3 [rad/m]  "wave number"
  param omega = 2.1 [rad/s]  "frequency"
  law y = y0 + A * sin(kw * x) * cos(omega * t)

  # mutation kind: sign
  counterfactual "the node moved to the other end" {
    law y = y0 - A * sin(kw * x) * cos(omega * t)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
