# Drag on a moving sphere: a shifted textbook law (exponent), for the baseline's held-out set
card drag_exponent_45 "Drag on a moving sphere" {
  collection historical
  field      engineering
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  v [m/s] in 1 .. 30  "speed"
  input  A [m^2] in 0.01 .. 0.1  "cross-section"
  output F [N] tolerance abs 1e-5 rel 1%  "drag force"

  param Cd = 0.47  "drag coefficient"
  param rho = 1.2 [kg/m^3]  "air density"
  param k0 = 1  "unit carrier"
  law F = k0 * Cd * rho / 2 * A * v^2

  # mutation kind: exponent
  counterfactual "speed exponent (1.25)" {
    law F = k0 * Cd * rho / 2 * A * v^(1.25)
    rebalance k0 at v = 15.5 [m/s], A = 0.055 [m^2]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
