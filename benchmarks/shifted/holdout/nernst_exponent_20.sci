# Potential across a membrane: a shifted textbook law (exponent), for the baseline's held-out set
card nernst_exponent_20 "Potential across a membrane" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  T [K] in 280 .. 320  "temperature"
  input  co [mM] in 50 .. 150  "outside concentration"
  input  ci [mM] in 5 .. 20  "inside concentration"
  output E [mV] tolerance abs 1e-3 rel 1%  "membrane potential"

  param R = 8.314 [J/(mol*K)]  "gas constant"
  param F = 96485 [C/mol]  "Faraday constant"
  param z = 1  "charge number"
  law E = R * T / (z * F) * log(co / ci)

  # mutation kind: exponent
  counterfactual "exponent of the concentration ratio (1.6)" {
    law E = R * T / (z * F) * log((co / ci)^(1.6))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
