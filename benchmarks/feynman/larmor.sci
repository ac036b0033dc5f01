# Larmor power of an accelerated charge (Feynman table I.32.5), for the baseline's measurement set
card larmor "Larmor power of an accelerated charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.32.5"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  a [m/s^2] in 100000.0 .. 1000000.0  "acceleration"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output P [W] tolerance abs 1e-30 rel 1%  "power"

  param k = 1  "scale"
  law P = k * q^2 * a^2 / (6 * pi * eps * c^3)

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
