# Frequency of a mass on a spring: a shifted textbook law (exponent), for the baseline's held-out set
card spring_exponent_28 "Frequency of a mass on a spring" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  k [N/m] in 10 .. 100  "stiffness"
  input  m [kg] in 0.1 .. 1  "mass"
  output f [Hz] tolerance abs 1e-4 rel 1%  "frequency"

  param k0 = 1  "unit carrier"
  law f = k0 * sqrt(k / m) / (2 * pi)

  # mutation kind: exponent
  counterfactual "exponent of the stiffness ratio (2/3)" {
    law f = k0 * (k / m)^(2/3) / (2 * pi)
    rebalance k0 at k = 55 [N/m], m = 0.55 [kg]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
