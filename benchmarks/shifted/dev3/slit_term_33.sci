# Light through a single slit: a shifted textbook law (term), for the baseline's third development set
card slit_term_33 "Light through a single slit" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  theta [rad] in 0.05 .. 1  "angle"
  input  I0 [W/m^2] in 1 .. 10  "central intensity"
  output I [W/m^2] tolerance abs 1e-4 rel 1%  "intensity"


  law I = I0 * (sin(2 * theta) / (2 * theta))^2

  # mutation kind: term
  counterfactual "a background switched on (0.1)" {
    law I = I0 * ((sin(2 * theta) / (2 * theta))^2 + 0.1)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
