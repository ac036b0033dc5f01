# Heat flow from a warm wall: a shifted textbook law (sum), for the baseline's held-out set
card cooling_sum_46 "Heat flow from a warm wall" {
  collection historical
  field      engineering
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

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

  # mutation kind: sum
  counterfactual "a power of the temperature difference (1.25)" {
    law P = hc * A * (T - Ta)^(1.25)
    rebalance hc at A = 2.75 [m^2], T = 340 [K], Ta = 290 [K]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
