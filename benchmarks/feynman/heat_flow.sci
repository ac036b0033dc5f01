# Heat conduction through a slab (Feynman table II.2.42), for the baseline's measurement set
card heat_flow "Heat conduction through a slab" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.2.42"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  kappa [W/(m*K)] in 1.0 .. 10.0  "conductivity"
  input  T1 [K] in 280.0 .. 300.0  "cold side"
  input  T2 [K] in 320.0 .. 350.0  "hot side"
  input  A [m^2] in 0.1 .. 1.0  "area"
  input  d [m] in 0.01 .. 0.1  "thickness"
  output P [W] tolerance abs 1e-30 rel 1%  "heat flow"

  param n = 1  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law P = k0 * (kappa * (T2 - T1) * A / d^n)

  counterfactual "other" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
