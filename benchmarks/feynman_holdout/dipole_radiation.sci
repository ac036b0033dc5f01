# Power radiated by a driven electron (Feynman table I.32.17), for the baseline's held-out measurement set
card dipole_radiation "Power radiated by a driven electron" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.32.17"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  input  Ef [V/m] in 1000000.0 .. 10000000.0  "field amplitude"
  input  r [m] in 1e-15 .. 5e-15  "radius"
  input  omega [rad/s] in 3000000000000000.0 .. 5000000000000000.0  "drive frequency"
  input  omega0 [rad/s] in 500000000000000.0 .. 2000000000000000.0  "natural frequency"
  output P [W] tolerance abs 1e-30 rel 1%  "power"

  param k = 1  "scale"
  law P = (eps * c * Ef^2 / 2) * (8 * pi * r^2 / 3) * omega^4 / (omega^2 - k * omega0^2)^2

  counterfactual "stiffer binding" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
