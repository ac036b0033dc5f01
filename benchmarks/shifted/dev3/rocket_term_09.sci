# Speed gained by a rocket: a shifted textbook law (term), for the baseline's third development set
card rocket_term_09 "Speed gained by a rocket" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  m0 [t] in 100 .. 500  "starting mass"
  input  mf [t] in 20 .. 90  "final mass"
  output dv [km/s] tolerance abs 1e-5 rel 1%  "speed gained"

  param ve = 3 [km/s]  "exhaust speed"
  law dv = ve * log(m0 / mf)

  # mutation kind: term
  counterfactual "gravity losses switched on (0.58)" {
    law dv = ve * log(m0 / mf) - (0.58 [km/s]) * (1 - mf / m0)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
