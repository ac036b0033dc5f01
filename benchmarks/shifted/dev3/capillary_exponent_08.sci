# Rise of water in a thin tube: a shifted textbook law (exponent), for the baseline's third development set
card capillary_exponent_08 "Rise of water in a thin tube" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  theta [rad] in 0 .. 1.2  "contact angle"
  input  r [mm] in 0.1 .. 1  "tube radius"
  output h [mm] tolerance abs 1e-4 rel 1%  "rise"

  param gam = 0.072 [N/m]  "surface tension"
  param rho = 1000 [kg/m^3]  "density"
  param g = 9.81 [m/s^2]  "gravity"
  law h = 2 * gam * cos(theta) / (rho * g * r)

  # mutation kind: exponent
  counterfactual "cosine exponent (1.5)" {
    law h = 2 * gam * cos(theta)^(1.5) / (rho * g * r)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
