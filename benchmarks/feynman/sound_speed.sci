# Speed of sound (Feynman table I.47.23), for the baseline's measurement set
card sound_speed "Speed of sound" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.47.23"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  gamma [1] in 1.1 .. 1.7  "adiabatic index"
  input  pr [Pa] in 50000.0 .. 200000.0  "pressure"
  input  rho [kg/m^3] in 0.5 .. 2.0  "density"
  output c [m/s] tolerance abs 1e-30 rel 1%  "speed of sound"

  param a = 0.5  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law c = k0 * ((gamma * pr / rho)^a)

  counterfactual "other" {
    set a = 0.6
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
