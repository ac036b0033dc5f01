# Rate constant of a reaction: a shifted textbook law (term), for the baseline's held-out set
card arrhenius_term_07 "Rate constant of a reaction" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

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

  # mutation kind: term
  counterfactual "a power of temperature in the prefactor (2)" {
    law k = A0 * (T / (300 [K]))^(2) * exp(-Ea / (R * T))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
