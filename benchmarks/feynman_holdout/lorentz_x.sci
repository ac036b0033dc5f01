# Lorentz transformation of a position (Feynman table I.15.3x), for the baseline's held-out measurement set
card lorentz_x "Lorentz transformation of a position" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.15.3x"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  x [m] in 300000000.0 .. 600000000.0  "position"
  input  u [m/s] in 10000000.0 .. 100000000.0  "frame speed"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  input  t [s] in 0.1 .. 1.0  "time"
  output x1 [m] tolerance abs 1e-30 rel 1%  "position in the moving frame"

  param k = 1  "scale"
  law x1 = (x - k * u * t) / sqrt(1 - (u/c)^2)

  counterfactual "faster drift" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
