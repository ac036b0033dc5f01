# Energy of a driven oscillator (Feynman table I.24.6), for the baseline's measurement set
card oscillator_energy "Energy of a driven oscillator" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.24.6"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 1.0 .. 5.0  "mass"
  input  omega [rad/s] in 1.0 .. 5.0  "drive frequency"
  input  omega0 [rad/s] in 1.0 .. 5.0  "natural frequency"
  input  x [m] in 0.1 .. 1.0  "amplitude"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param a = 0.25  "factor"
  law E = a * m * (omega^2 + omega0^2) * x^2

  counterfactual "doubled factor" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
