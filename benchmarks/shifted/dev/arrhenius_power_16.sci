# Rate constant of a reaction: a shifted textbook law (power), for the baseline's development set
card arrhenius_power_16 "Rate constant of a reaction" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  T [K] in 280 .. 400  "temperature"
  output k [1/s] tolerance abs 1e-9 rel 1%  "rate constant"

  param A0 = 1e7 [1/s]  "prefactor"
  param Ea = 2e4 [J/mol]  "activation energy"
  param R = 8.314 [J/(mol*K)]  "gas constant"
  law k = A0 * exp(-Ea / (R * T))

  # mutation kind: power
  counterfactual "a power of the exponent's argument (1.1)" {
    law k = A0 * exp(-(Ea / (R * T))^(1.1))
    rebalance A0 at T = 340 [K]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
