# Spread of a diffusing particle: a shifted textbook law (power), for the baseline's third development set
card brownian_power_41 "Spread of a diffusing particle" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [s] in 1 .. 100  "time"
  input  D [um^2/s] in 0.1 .. 2  "diffusivity"
  output msd [um^2] tolerance abs 1e-4 rel 1%  "mean square displacement"

  param k0 = 1  "unit carrier"
  law msd = k0 * 6 * D * t

  # mutation kind: power
  counterfactual "a confined spread (65)" {
    law msd = k0 * 6 * D * (65 [s]) * (1 - exp(-t / (65 [s])))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
