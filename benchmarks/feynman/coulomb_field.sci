# Field of a point charge (Feynman table I.12.4), for the baseline's measurement set
card coulomb_field "Field of a point charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.12.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q1 [C] in 1e-06 .. 1e-05  "charge"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  r [m] in 0.1 .. 1.0  "distance"
  output E [V/m] tolerance abs 1e-30 rel 1%  "field strength"

  param n = 2  "distance exponent"
  param k0 = 1 [1]  "unit carrier"
  law E = k0 * (q1 / (4 * pi * eps * r^n))

  counterfactual "inverse cube" {
    set n = 3
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
