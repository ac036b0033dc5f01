# Field of a dipole off its axis (Feynman table II.6.15a), for the baseline's held-out measurement set
card dipole_field_z "Field of a dipole off its axis" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.6.15a"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  p [C*m] in 1e-09 .. 1e-08  "dipole moment"
  input  r [m] in 1.0 .. 2.0  "distance"
  input  x [m] in 0.1 .. 1.0  "x"
  input  y [m] in 0.1 .. 1.0  "y"
  input  z [m] in 0.1 .. 1.0  "z"
  output Ef [V/m] tolerance abs 1e-30 rel 1%  "field"

  param n = 5  "distance exponent"
  param k0 = 1 [1]  "unit carrier"
  law Ef = k0 * (3 / (4 * pi * eps) * p * z / r^n * sqrt(x^2 + y^2))

  counterfactual "steeper" {
    set n = 6
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
