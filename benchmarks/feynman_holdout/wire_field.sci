# Magnetic field of a straight wire (Feynman table II.13.17), for the baseline's held-out measurement set
card wire_field "Magnetic field of a straight wire" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.13.17"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  input  I [A] in 1.0 .. 10.0  "current"
  input  r [m] in 0.01 .. 0.1  "distance"
  output B [T] tolerance abs 1e-30 rel 1%  "field"

  param n = 1  "distance exponent"
  param k0 = 1 [1]  "unit carrier"
  law B = k0 * (1 / (4 * pi * eps * c^2) * 2 * I / r^n)

  counterfactual "inverse square" {
    set n = 2
    rebalance k0 at r = 0.055 [m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
