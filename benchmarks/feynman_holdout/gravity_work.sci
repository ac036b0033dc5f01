# Work of gravity between two distances (Feynman table I.13.12), for the baseline's held-out measurement set
card gravity_work "Work of gravity between two distances" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.13.12"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  G [m^3/(kg*s^2)] in 6.6e-11 .. 6.8e-11  "gravitational constant"
  input  m1 [kg] in 1.0 .. 5.0  "mass 1"
  input  m2 [kg] in 1.0 .. 5.0  "mass 2"
  input  r1 [m] in 2.0 .. 5.0  "initial distance"
  input  r2 [m] in 0.5 .. 1.5  "final distance"
  output U [J] tolerance abs 1e-30 rel 1%  "work"

  param n = 1  "distance exponent"
  param k0 = 1 [1]  "unit carrier"
  law U = k0 * (G * m1 * m2 * (1/r2^n - 1/r1^n))

  counterfactual "inverse square potential" {
    set n = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
