# Wavelength of a moving particle: a shifted textbook law (sum), for the baseline's second development set
card debroglie_sum_28 "Wavelength of a moving particle" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m [kg] in 2e-27 .. 5e-26  "mass"
  input  v [km/s] in 0.5 .. 5  "speed"
  output lam [pm] tolerance abs 1e-5 rel 1%  "wavelength"

  param h = 6.626e-34 [J*s]  "Planck constant"
  law lam = h / (m * v)

  # mutation kind: sum
  counterfactual "a drift added to the speed (0.81)" {
    law lam = h / (m * (v + 0.81 [km/s]))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
