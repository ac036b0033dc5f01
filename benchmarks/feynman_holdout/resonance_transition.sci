# Transition probability near resonance (Feynman table III.9.52), for the baseline's held-out measurement set
card resonance_transition "Transition probability near resonance" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.9.52"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  p [C*m] in 1e-30 .. 3e-30  "dipole moment"
  input  Ef [V/m] in 1e-05 .. 0.0001  "field"
  input  t [s] in 0.1 .. 1.0  "time"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  omega [rad/s] in 3.0 .. 5.0  "drive frequency"
  input  omega0 [rad/s] in 0.5 .. 2.0  "resonance frequency"
  output prob [1] tolerance abs 1e-30 rel 1%  "probability"

  param k = 1  "scale"
  law prob = p * Ef * t / (h / (2 * pi)) * sin((omega - k * omega0) * t / 2)^2 / ((omega - k * omega0) * t / 2)^2

  counterfactual "shifted resonance" {
    scale k by 0.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
