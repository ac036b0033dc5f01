# Rate of an enzyme reaction: a shifted textbook law (power), for the baseline's development set
card enzyme_power_37 "Rate of an enzyme reaction" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  S [mM] in 0.1 .. 10  "substrate concentration"
  output v [mM/s] tolerance abs 1e-4 rel 1%  "reaction rate"

  param Vmax = 2 [mM/s]  "maximal rate"
  param Km = 1.5 [mM]  "Michaelis constant"
  law v = Vmax * S / (Km + S)

  # mutation kind: power
  counterfactual "the saturation raised to a power (0.4)" {
    law v = Vmax * (S / (Km + S))^(0.4)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
