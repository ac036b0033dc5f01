# Intensity after an absorbing layer: a shifted textbook law (exponent), for the baseline's held-out set
card attenuation_exponent_17 "Intensity after an absorbing layer" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  I0 [W/m^2] in 1 .. 10  "incident intensity"
  input  x [cm] in 0.1 .. 3  "thickness"
  output I [W/m^2] tolerance abs 1e-4 rel 1%  "transmitted intensity"

  param mu = 0.8 [1/cm]  "attenuation coefficient"
  param k0 = 1  "unit carrier"
  law I = k0 * I0 * exp(-mu * x)

  # mutation kind: exponent
  counterfactual "intensity exponent (1.7)" {
    law I = k0 * I0^(1.7) * exp(-mu * x)
    rebalance k0 at I0 = 5.5 [W/m^2], x = 1.55 [cm]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
