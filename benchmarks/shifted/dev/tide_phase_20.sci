# Water level in a harbour: a shifted textbook law (phase), for the baseline's development set
card tide_phase_20 "Water level in a harbour" {
  collection historical
  field      geophysics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [h] in 0 .. 24  "time"
  input  h0 [m] in 4 .. 6  "mean level"
  output h [m] tolerance abs 1e-3 rel 1%  "water level"

  param A = 1.5 [m]  "amplitude"
  param omega = 0.5059 [rad/h]  "semidiurnal frequency"
  law h = h0 + A * cos(omega * t)

  # mutation kind: phase
  counterfactual "frequency shift (1.1)" {
    law h = h0 + A * cos(1.1 * omega * t)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
