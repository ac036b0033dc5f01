# Heat flow from a warm wall: a shifted textbook law (term), for the baseline's development set
card cooling_term_12 "Heat flow from a warm wall" {
  collection historical
  field      engineering
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  A [m^2] in 0.5 .. 5  "area"
  input  T [K] in 310 .. 370  "wall temperature"
  input  Ta [K] in 280 .. 300  "air temperature"
  output P [W] tolerance abs 1e-3 rel 1%  "heat flow"

  param hc = 10 [W/(m^2*K)]  "heat transfer coefficient"
  law P = hc * A * (T - Ta)

  # mutation kind: term
  counterfactual "radiation switched on (5.4e-08)" {
    law P = hc * A * (T - Ta) + (5.4e-08 [W/(m^2*K^4)]) * A * (T^4 - Ta^4)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
