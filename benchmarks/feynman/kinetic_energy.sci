# Kinetic energy in three components (Feynman table I.13.4), for the baseline's measurement set
card kinetic_energy "Kinetic energy in three components" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.13.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 1.0 .. 5.0  "mass"
  input  v [m/s] in 1.0 .. 5.0  "x speed"
  input  u [m/s] in 1.0 .. 5.0  "y speed"
  input  w [m/s] in 1.0 .. 5.0  "z speed"
  output K [J] tolerance abs 1e-30 rel 1%  "kinetic energy"

  param a = 0.5  "factor"
  law K = a * m * (v^2 + u^2 + w^2)

  counterfactual "doubled factor" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
