# Pressure under water: a shifted textbook law (term), for the baseline's second development set
card hydrostatic_term_48 "Pressure under water" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  h [m] in 0 .. 5  "depth"
  input  p0 [kPa] in 90 .. 110  "surface pressure"
  output p [kPa] tolerance abs 1e-4 rel 1%  "pressure"

  param rho = 1000 [kg/m^3]  "density"
  param g = 9.81 [m/s^2]  "gravity"
  param k0 = 1  "unit carrier"
  law p = p0 + k0 * rho * g * h

  # mutation kind: term
  counterfactual "compression switched on (4)" {
    law p = p0 + k0 * rho * g * h * (1 + h / (4 [m]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
