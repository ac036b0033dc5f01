# Swing of a damped oscillator: a shifted textbook law (phase), for the baseline's development set
card damped_phase_30 "Swing of a damped oscillator" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [s] in 0 .. 6  "time"
  input  x0 [cm] in 8 .. 12  "rest position"
  output x [cm] tolerance abs 1e-3 rel 1%  "position"

  param a = 4 [cm]  "amplitude"
  param tau = 3 [s]  "decay time"
  param omega = 2 [rad/s]  "frequency"
  law x = x0 + a * exp(-t / tau) * cos(omega * t)

  # mutation kind: phase
  counterfactual "phase shift (1.8)" {
    law x = x0 + a * exp(-t / tau) * cos(omega * t + 1.8)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
