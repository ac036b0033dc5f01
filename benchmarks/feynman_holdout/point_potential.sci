# Potential of a point charge (Feynman table II.4.23), for the baseline's held-out measurement set
card point_potential "Potential of a point charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.4.23"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  r [m] in 0.1 .. 1.0  "distance"
  output V [V] tolerance abs 1e-30 rel 1%  "potential"

  param n = 1  "distance exponent"
  param k0 = 1 [1]  "unit carrier"
  law V = k0 * (q / (4 * pi * eps * r^n))

  counterfactual "inverse square" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
