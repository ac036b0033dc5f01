# Speed of water leaving a tank: a shifted textbook law (exponent), for the baseline's second development set
card torricelli_exponent_45 "Speed of water leaving a tank" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  h [m] in 0.1 .. 2  "water height"
  output v [m/s] tolerance abs 1e-5 rel 1%  "outflow speed"

  param g = 9.81 [m/s^2]  "gravity"
  param k0 = 1  "unit carrier"
  law v = k0 * sqrt(2 * g * h)

  # mutation kind: exponent
  counterfactual "exponent of the head (3/2)" {
    law v = k0 * (2 * g * h)^(3/2)
    rebalance k0 at h = 1.05 [m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
