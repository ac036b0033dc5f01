# Current of a circulating charge (Feynman table II.34.2a), for the baseline's measurement set
card current_loop "Current of a circulating charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.34.2a"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  v [m/s] in 10.0 .. 100.0  "speed"
  input  r [m] in 0.1 .. 1.0  "radius"
  output I [A] tolerance abs 1e-30 rel 1%  "current"

  param n = 1  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law I = k0 * (q * v / (2 * pi * r^n))

  counterfactual "other" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
