# Hours of daylight over the year: a shifted textbook law (phase), for the baseline's second development set
card daylight_phase_11 "Hours of daylight over the year" {
  collection historical
  field      geophysics
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  d [day] in 0 .. 365  "day of the year"
  input  h0 [h] in 11 .. 13  "mean day length"
  output H [h] tolerance abs 1e-4 rel 1%  "daylight"

  param A = 3 [h]  "swing"
  param omega = 0.017214 [rad/day]  "yearly frequency"
  param d0 = 80 [day]  "equinox"
  law H = h0 + A * sin(omega * (d - d0))

  # mutation kind: phase
  counterfactual "phase shift (1.3)" {
    law H = h0 + A * sin(omega * (d - d0) + 1.3)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
