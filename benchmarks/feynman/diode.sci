# Current of a diode (Feynman table III.14.14), for the baseline's measurement set
card diode "Current of a diode" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.14.14"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  I0 [A] in 1e-09 .. 1e-08  "saturation current"
  input  q [C] in 1.5e-19 .. 1.7e-19  "charge"
  input  Ve [V] in 0.01 .. 0.1  "voltage"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 250.0 .. 350.0  "temperature"
  output I [A] tolerance abs 1e-30 rel 1%  "current"

  param k = 1  "scale"
  law I = I0 * (exp(k * q * Ve / (kb * T)) - 1)

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
