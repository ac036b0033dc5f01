# Energy of a magnetic moment in a field (Feynman table II.15.4), for the baseline's held-out measurement set
card moment_energy "Energy of a magnetic moment in a field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.15.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [J/T] in 1e-24 .. 1e-23  "moment"
  input  B [T] in 0.1 .. 1.0  "field"
  input  theta [rad] in 0.0 .. 1.4  "angle"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param n = 1  "cosine exponent"
  law E = -mu * B * cos(theta)^n

  counterfactual "squared cosine" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
