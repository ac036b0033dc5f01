# Speed of sound in a gas: a shifted textbook law (sum), for the baseline's development set
card sound_sum_22 "Speed of sound in a gas" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

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

  # mutation kind: sum
  counterfactual "the index shifted inside the root (0.35)" {
    law c = k0 * sqrt((gamma - 0.35) * p / rho)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
