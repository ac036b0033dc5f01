# Escape speed from a planet: a shifted textbook law (term), for the baseline's second development set
card escape_term_19 "Escape speed from a planet" {
  collection historical
  field      astronomy
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  M [Yg] in 1000 .. 9000  "planet mass"
  input  r [km] in 3000 .. 9000  "radius"
  output v [km/s] tolerance abs 1e-5 rel 1%  "escape speed"

  param G = 6.674e-11 [N*m^2/kg^2]  "gravitational constant"
  param k0 = 1  "unit carrier"
  law v = k0 * sqrt(2 * G * M / r)

  # mutation kind: term
  counterfactual "a launch speed already given (9.1)" {
    law v = k0 * sqrt(2 * G * M / r - (9.1 [km^2/s^2]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
