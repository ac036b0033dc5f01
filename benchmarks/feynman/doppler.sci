# Doppler shift of a moving source (Feynman table I.34.10), for the baseline's measurement set
card doppler "Doppler shift of a moving source" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.34.10"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  omega0 [rad/s] in 1.0 .. 5.0  "emitted frequency"
  input  v [m/s] in 10000000.0 .. 100000000.0  "speed"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output omega [rad/s] tolerance abs 1e-30 rel 1%  "observed frequency"

  param k = 1  "scale"
  law omega = omega0 / (1 - k * v / c)

  counterfactual "stronger" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
