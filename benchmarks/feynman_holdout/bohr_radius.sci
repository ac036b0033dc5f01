# Bohr radius (Feynman table I.38.12), for the baseline's held-out measurement set
card bohr_radius "Bohr radius" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.38.12"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  m [kg] in 9e-31 .. 1e-30  "electron mass"
  input  q [C] in 1.5e-19 .. 1.7e-19  "electron charge"
  output r [m] tolerance abs 1e-30 rel 1%  "radius"

  param n = 2  "charge exponent"
  param k0 = 1 [1]  "unit carrier"
  law r = k0 * (4 * pi * eps * (h / (2 * pi))^2 / (m * q^n))

  counterfactual "cubic charge" {
    set n = 3
    rebalance k0 at q = 1.6e-19 [C]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
