# Potential of a dipole (Feynman table II.6.11), for the baseline's measurement set
card dipole_potential "Potential of a dipole" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.6.11"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  p [C*m] in 1e-09 .. 1e-08  "dipole moment"
  input  theta [rad] in 0.0 .. 1.2  "angle"
  input  r [m] in 0.1 .. 1.0  "distance"
  output V [V] tolerance abs 1e-30 rel 1%  "potential"

  param n = 2  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law V = k0 * (p * cos(theta) / (4 * pi * eps * r^n))

  counterfactual "inverse cube" {
    set n = 3
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
