# Net radiation of a hot plate: a shifted textbook law (exponent), for the baseline's development set
card radiation_exponent_44 "Net radiation of a hot plate" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  A [m^2] in 0.1 .. 1  "area"
  input  T [K] in 400 .. 900  "plate temperature"
  input  Ts [K] in 250 .. 350  "surroundings"
  output P [W] tolerance abs 1e-3 rel 1%  "net radiated power"

  param sigma = 5.670e-8 [W/(m^2*K^4)]  "Stefan-Boltzmann constant"
  law P = sigma * A * (T^4 - Ts^4)

  # mutation kind: exponent
  counterfactual "temperature exponent (1.25)" {
    law P = sigma * A * (T^(1.25) - Ts^(1.25))
    rebalance sigma at A = 0.55 [m^2], T = 650 [K], Ts = 300 [K]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
