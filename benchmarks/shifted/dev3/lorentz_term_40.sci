# Force on a charge in a magnetic field: a shifted textbook law (term), for the baseline's third development set
card lorentz_term_40 "Force on a charge in a magnetic field" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  v [km/s] in 1 .. 10  "speed"
  input  B [mT] in 1 .. 10  "field"
  input  theta [rad] in 0.2 .. 1.4  "angle"
  output F [fN] tolerance abs 1e-4 rel 1%  "force"

  param q = 1.602e-19 [C]  "charge"
  law F = q * v * B * sin(theta)

  # mutation kind: term
  counterfactual "an electric part switched on (3.1)" {
    law F = q * (v * B * sin(theta) + 3.1 [V/m])
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
