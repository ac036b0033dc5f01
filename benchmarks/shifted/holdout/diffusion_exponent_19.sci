# Concentration of a spreading dye: a shifted textbook law (exponent), for the baseline's held-out set
card diffusion_exponent_19 "Concentration of a spreading dye" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  x [mm] in 0 .. 5  "distance from the source"
  input  t [s] in 100 .. 1000  "time"
  output c [1/mm] tolerance abs 1e-5 rel 1%  "linear density"

  param N = 1  "amount"
  param D = 1e-9 [m^2/s]  "diffusivity"
  param k0 = 1  "unit carrier"
  law c = k0 * N / sqrt(4 * pi * D * t) * exp(-x^2 / (4 * D * t))

  # mutation kind: exponent
  counterfactual "spreading exponent (1.25)" {
    law c = k0 * N / (4 * pi * D * t)^(1.25) * exp(-x^2 / (4 * D * t))
    rebalance k0 at x = 2.5 [mm], t = 550 [s]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
