# Pressure of a gas: a shifted textbook law (term), for the baseline's held-out set
card ideal_gas_term_10 "Pressure of a gas" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  n [mol] in 0.5 .. 5  "amount"
  input  T [K] in 250 .. 400  "temperature"
  input  V [L] in 10 .. 100  "volume"
  output P [kPa] tolerance abs 1e-3 rel 1%  "pressure"

  param R = 8.314 [J/(mol*K)]  "gas constant"
  law P = R * n * T / V

  # mutation kind: term
  counterfactual "attraction between molecules switched on (1.7)" {
    law P = R * n * T / V - (1.7 [Pa*m^6/mol^2]) * n^2 / V^2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
