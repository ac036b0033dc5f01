# Period of a pendulum: a shifted textbook law (exponent), for the baseline's development set
card pendulum_exponent_33 "Period of a pendulum" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  L [m] in 0.2 .. 2  "length"
  input  theta0 [rad] in 0.1 .. 1.2  "amplitude"
  output T [s] tolerance abs 1e-3 rel 1%  "period"

  param g = 9.81 [m/s^2]  "gravity"
  param c = 0  "amplitude correction"
  law T = 2 * pi * sqrt(L / g) * (1 + c * theta0^2)

  # mutation kind: exponent
  counterfactual "length exponent (3/2)" {
    law T = 2 * pi * (L / g)^(3/2) * (1 + c * theta0^2)
    rebalance g at L = 1.1 [m], theta0 = 0.65 [rad]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
