# Argument of the magnetisation in a mean field (Feynman table II.36.38), for the baseline's held-out measurement set
card weiss_field "Argument of the magnetisation in a mean field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.36.38"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [J/T] in 1e-23 .. 2e-23  "moment"
  input  B [T] in 1.0 .. 10.0  "field"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 2.0 .. 20.0  "temperature"
  input  alpha [1] in 0.1 .. 1.0  "mean-field coupling"
  input  M [A/m] in 100000.0 .. 1000000.0  "magnetisation"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output f [1] tolerance abs 1e-30 rel 1%  "argument"

  param k = 1  "scale"
  law f = mu * B / (kb * T) + k * mu * alpha * M / (eps * c^2 * kb * T)

  counterfactual "stronger mean field" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
