# Cyclotron frequency (Feynman table I.34.8), for the baseline's measurement set
card cyclotron "Cyclotron frequency" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.34.8"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  v [m/s] in 10.0 .. 100.0  "speed"
  input  B [T] in 0.1 .. 1.0  "field"
  input  p [kg*m/s] in 1e-05 .. 0.0001  "momentum"
  output omega [rad/s] tolerance abs 1e-30 rel 1%  "frequency"

  param k = 1  "scale"
  law omega = k * q * v * B / p

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
