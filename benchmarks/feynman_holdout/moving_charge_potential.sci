# Potential of a moving charge (Feynman table II.21.32), for the baseline's held-out measurement set
card moving_charge_potential "Potential of a moving charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.21.32"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  r [m] in 0.1 .. 1.0  "distance"
  input  v [m/s] in 10000000.0 .. 100000000.0  "speed"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output V [V] tolerance abs 1e-30 rel 1%  "potential"

  param k = 1  "scale"
  law V = q / (4 * pi * eps * r * (1 - k * v / c))

  counterfactual "stronger retardation" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
