# Density of moments along a field (Feynman table II.35.18), for the baseline's held-out measurement set
card two_state "Density of moments along a field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.35.18"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n0 [1/m^3] in 1e+24 .. 1e+25  "density"
  input  mu [J/T] in 1e-23 .. 2e-23  "moment"
  input  B [T] in 1.0 .. 10.0  "field"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 2.0 .. 20.0  "temperature"
  output n [1/m^3] tolerance abs 1e-30 rel 1%  "density"

  param k = 1  "scale"
  law n = n0 / (exp(k * mu * B / (kb * T)) + exp(-k * mu * B / (kb * T)))

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
