# Electrostatic energy of a charged sphere (Feynman table II.8.7), for the baseline's held-out measurement set
card sphere_energy "Electrostatic energy of a charged sphere" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.8.7"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  d [m] in 0.1 .. 1.0  "radius"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param a = 0.6  "factor"
  law E = a * q^2 / (4 * pi * eps * d)

  counterfactual "doubled factor" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
