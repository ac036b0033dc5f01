# Wavelength reflected by a crystal: a shifted textbook law (phase), for the baseline's second development set
card bragg_phase_32 "Wavelength reflected by a crystal" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  d [nm] in 0.2 .. 0.5  "plane spacing"
  input  theta [rad] in 0.2 .. 1.2  "glancing angle"
  output lam [nm] tolerance abs 1e-6 rel 1%  "wavelength"

  param k0 = 1  "unit carrier"
  law lam = k0 * 2 * d * sin(theta)

  # mutation kind: phase
  counterfactual "phase shift (0.29)" {
    law lam = k0 * 2 * d * sin(theta + 0.29)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
