# Mean energy of a quantum oscillator (Feynman table III.4.33), for the baseline's held-out measurement set
card planck_oscillator "Mean energy of a quantum oscillator" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.4.33"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  omega [rad/s] in 10000000000000.0 .. 50000000000000.0  "angular frequency"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 100.0 .. 400.0  "temperature"
  output E [J] tolerance abs 1e-30 rel 1%  "mean energy"

  param k = 1  "scale"
  law E = h / (2 * pi) * omega / (exp(k * h * omega / (2 * pi * kb * T)) - 1)

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
