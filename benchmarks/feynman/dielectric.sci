# Displacement of a bound electron (Feynman table II.11.3), for the baseline's measurement set
card dielectric "Displacement of a bound electron" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.11.3"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  Ef [V/m] in 100.0 .. 1000.0  "field"
  input  m [kg] in 1.0 .. 5.0  "mass"
  input  omega0 [rad/s] in 3.0 .. 5.0  "natural frequency"
  input  omega [rad/s] in 0.5 .. 2.0  "drive frequency"
  output x [m] tolerance abs 1e-30 rel 1%  "displacement"

  param k = 1  "scale"
  law x = q * Ef / (m * (omega0^2 - k * omega^2))

  counterfactual "stronger" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
