# Drag on a small sphere in a liquid: a shifted textbook law (exponent), for the baseline's second development set
card stokes_exponent_47 "Drag on a small sphere in a liquid" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  R [um] in 10 .. 100  "radius"
  input  v [mm/s] in 0.1 .. 5  "speed"
  output F [nN] tolerance abs 1e-6 rel 1%  "drag force"

  param eta = 1e-3 [Pa*s]  "viscosity"
  param k0 = 1  "unit carrier"
  law F = k0 * 6 * pi * eta * R * v

  # mutation kind: exponent
  counterfactual "radius exponent (1.2)" {
    law F = k0 * 6 * pi * eta * R^(1.2) * v
    rebalance k0 at R = 55 [um], v = 2.55 [mm/s]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
