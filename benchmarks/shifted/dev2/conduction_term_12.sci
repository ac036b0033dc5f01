# Heat flow through a slab: a shifted textbook law (term), for the baseline's second development set
card conduction_term_12 "Heat flow through a slab" {
  collection historical
  field      engineering
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  A [m^2] in 0.5 .. 2  "area"
  input  T1 [K] in 320 .. 400  "warm side"
  input  T2 [K] in 270 .. 290  "cold side"
  input  d [cm] in 1 .. 10  "thickness"
  output P [W] tolerance abs 1e-3 rel 1%  "heat flow"

  param kc = 0.8 [W/(m*K)]  "conductivity"
  param k0 = 1  "unit carrier"
  law P = k0 * kc * A * (T1 - T2) / d

  # mutation kind: term
  counterfactual "a conductivity rising with temperature (0.0028)" {
    law P = k0 * kc * (1 + (0.0028 [1/K]) * (T1 + T2) / 2) * A * (T1 - T2) / d
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
