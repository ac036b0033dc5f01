# Energy levels of hydrogen (Feynman table III.19.51), for the baseline's held-out measurement set
card hydrogen_levels "Energy levels of hydrogen" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.19.51"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 9e-31 .. 1e-30  "electron mass"
  input  q [C] in 1.5e-19 .. 1.7e-19  "electron charge"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  n [1] in 1.0 .. 5.0  "principal quantum number"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param p = 2  "exponent"
  law E = -m * q^4 / (2 * (4 * pi * eps)^2 * (h / (2 * pi))^2) / n^p

  counterfactual "cubic" {
    set p = 3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
