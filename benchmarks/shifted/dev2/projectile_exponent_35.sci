# Range of a thrown ball: a shifted textbook law (exponent), for the baseline's second development set
card projectile_exponent_35 "Range of a thrown ball" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  v0 [m/s] in 5 .. 30  "launch speed"
  input  theta [rad] in 0.2 .. 1.3  "launch angle"
  output R [m] tolerance abs 1e-4 rel 1%  "range"

  param g = 9.81 [m/s^2]  "gravity"
  param k0 = 1  "unit carrier"
  law R = k0 * v0^2 * sin(2 * theta) / g

  # mutation kind: exponent
  counterfactual "speed exponent (0.8)" {
    law R = k0 * v0^(0.8) * sin(2 * theta) / g
    rebalance k0 at v0 = 17.5 [m/s], theta = 0.75 [rad]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
