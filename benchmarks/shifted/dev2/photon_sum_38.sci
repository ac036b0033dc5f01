# Energy of a photon: a shifted textbook law (sum), for the baseline's second development set
card photon_sum_38 "Energy of a photon" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  lam [nm] in 200 .. 800  "wavelength"
  output E [eV] tolerance abs 1e-5 rel 1%  "energy"

  param h = 6.626e-34 [J*s]  "Planck constant"
  param c = 2.998e8 [m/s]  "speed of light"
  law E = h * c / lam

  # mutation kind: sum
  counterfactual "a shifted wavelength (50)" {
    law E = h * c / (lam + 50 [nm])
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
