# Speed of sound in a gas: a shifted textbook law (exponent), for the baseline's held-out set
card sound_exponent_01 "Speed of sound in a gas" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  gamma [1] in 1.1 .. 1.7  "adiabatic index"
  input  p [kPa] in 50 .. 200  "pressure"
  input  rho [kg/m^3] in 0.5 .. 2  "density"
  output c [m/s] tolerance abs 1e-3 rel 1%  "speed of sound"

  param k0 = 1  "unit carrier"
  law c = k0 * sqrt(gamma * p / rho)

  # mutation kind: exponent
  counterfactual "exponent of the stiffness ratio (2/3)" {
    law c = k0 * (gamma * p / rho)^(2/3)
    rebalance k0 at gamma = 1.4 [1], p = 125 [kPa], rho = 1.25 [kg/m^3]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
