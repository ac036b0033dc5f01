# Force on a body moving in a circle: a shifted textbook law (term), for the baseline's second development set
card centripetal_term_09 "Force on a body moving in a circle" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m [kg] in 0.1 .. 2  "mass"
  input  v [m/s] in 1 .. 10  "speed"
  input  r [m] in 0.5 .. 3  "radius"
  output F [N] tolerance abs 1e-5 rel 1%  "force"

  param k0 = 1  "unit carrier"
  law F = k0 * m * v^2 / r

  # mutation kind: term
  counterfactual "a weight added (0.98)" {
    law F = k0 * (m * v^2 / r + m * (0.98 [m/s^2]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
