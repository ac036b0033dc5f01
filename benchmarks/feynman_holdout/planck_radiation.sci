# Planck's radiation law (Feynman table I.41.16), for the baseline's held-out measurement set
card planck_radiation "Planck's radiation law" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.41.16"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  omega [rad/s] in 10000000000000.0 .. 50000000000000.0  "angular frequency"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 100.0 .. 400.0  "temperature"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output L [J/m^2] tolerance abs 1e-30 rel 1%  "radiance per unit angular frequency"

  param n = 3  "frequency exponent"
  param k0 = 1 [1]  "unit carrier"
  law L = k0 * (h / (2 * pi) * omega^n / (pi^2 * c^2 * (exp(h * omega / (2 * pi * kb * T)) - 1)))

  counterfactual "quadratic frequency" {
    set n = 2
    rebalance k0 at omega = 3e13 [rad/s]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
