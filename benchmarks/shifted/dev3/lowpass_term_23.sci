# Output of a low-pass filter: a shifted textbook law (term), for the baseline's third development set
card lowpass_term_23 "Output of a low-pass filter" {
  collection historical
  field      engineering
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  f [Hz] in 10 .. 1000  "signal frequency"
  input  V0 [V] in 1 .. 10  "input amplitude"
  output V [V] tolerance abs 1e-5 rel 1%  "output amplitude"

  param fc = 200 [Hz]  "corner frequency"
  law V = V0 / sqrt(1 + (f / fc)^2)

  # mutation kind: term
  counterfactual "a leak switched on (0.29)" {
    law V = V0 * (1 / sqrt(1 + (f / fc)^2) + 0.29)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
