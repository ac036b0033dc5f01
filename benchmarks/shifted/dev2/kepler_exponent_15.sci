# Period of a satellite: a shifted textbook law (exponent), for the baseline's second development set
card kepler_exponent_15 "Period of a satellite" {
  collection historical
  field      astronomy
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  a [km] in 7000 .. 42000  "orbit radius"
  input  M [Yg] in 3000 .. 9000  "planet mass"
  output T [h] tolerance abs 1e-4 rel 1%  "orbital period"

  param G = 6.674e-11 [N*m^2/kg^2]  "gravitational constant"
  param k0 = 1  "unit carrier"
  law T = k0 * 2 * pi * sqrt(a^3 / (G * M))

  # mutation kind: exponent
  counterfactual "radius exponent (1.3)" {
    law T = k0 * 2 * pi * sqrt(a^(1.3) / (G * M))
    rebalance k0 at a = 24500 [km], M = 6000 [Yg]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
