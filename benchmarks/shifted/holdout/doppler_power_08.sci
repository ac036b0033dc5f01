# Frequency heard from a moving source: a shifted textbook law (power), for the baseline's held-out set
card doppler_power_08 "Frequency heard from a moving source" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  f0 [Hz] in 200 .. 1000  "emitted frequency"
  input  vr [m/s] in 0 .. 60  "listener speed"
  input  vs [m/s] in 0 .. 60  "source speed"
  output f [Hz] tolerance abs 1e-3 rel 1%  "heard frequency"

  param cs = 343 [m/s]  "speed of sound"
  law f = f0 * (cs + vr) / (cs - vs)

  # mutation kind: power
  counterfactual "the ratio raised to a power (0.5)" {
    law f = f0 * ((cs + vr) / (cs - vs))^(0.5)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
