# Work to lift a mass: a shifted textbook law (term), for the baseline's second development set
card lifting_term_34 "Work to lift a mass" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m [kg] in 1 .. 10  "mass"
  input  h [m] in 1 .. 100  "height"
  output U [J] tolerance abs 1e-4 rel 1%  "potential energy"

  param g = 9.81 [m/s^2]  "gravity"
  param k0 = 1  "unit carrier"
  law U = k0 * m * g * h

  # mutation kind: term
  counterfactual "gravity weakening with height (360)" {
    law U = k0 * m * g * h * (1 - h / (360 [m]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
