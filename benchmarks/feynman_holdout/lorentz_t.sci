# Lorentz transformation of a time (Feynman table I.15.3t), for the baseline's held-out measurement set
card lorentz_t "Lorentz transformation of a time" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.15.3t"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  t [s] in 1.0 .. 2.0  "time"
  input  u [m/s] in 10000000.0 .. 100000000.0  "frame speed"
  input  x [m] in 100000000.0 .. 300000000.0  "position"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output t1 [s] tolerance abs 1e-30 rel 1%  "time in the moving frame"

  param k = 1  "scale"
  law t1 = (t - k * u * x / c^2) / sqrt(1 - (u/c)^2)

  counterfactual "stronger desynchronisation" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
