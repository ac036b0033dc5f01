# Relativistic addition of velocities (Feynman table I.16.6), for the baseline's measurement set
card velocity_addition "Relativistic addition of velocities" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.16.6"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  u [m/s] in 10000000.0 .. 100000000.0  "speed 1"
  input  v [m/s] in 10000000.0 .. 100000000.0  "speed 2"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output w [m/s] tolerance abs 1e-30 rel 1%  "combined speed"

  param k = 1  "coupling"
  law w = (u + v) / (1 + k * u * v / c^2)

  counterfactual "stronger coupling" {
    scale k by 3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
