# Attraction of two bodies: a shifted textbook law (term), for the baseline's held-out set
card gravitation_term_27 "Attraction of two bodies" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m1 [kg] in 5 .. 10  "mass 1"
  input  m2 [kg] in 1 .. 3  "mass 2"
  input  r [m] in 0.1 .. 1  "distance"
  output F [nN] tolerance abs 1e-6 rel 1%  "force"

  param G = 6.674e-11 [N*m^2/kg^2]  "gravitational constant"
  law F = G * m1 * m2 / r^2

  # mutation kind: term
  counterfactual "a short-range correction switched on (0.29)" {
    law F = G * m1 * m2 / r^2 * (1 + (0.29 [m]) / r)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
