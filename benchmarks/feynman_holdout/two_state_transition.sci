# Probability of a two-state transition (Feynman table III.8.54), for the baseline's held-out measurement set
card two_state_transition "Probability of a two-state transition" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.8.54"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  E [J] in 1e-34 .. 3e-34  "coupling energy"
  input  t [s] in 0.1 .. 0.5  "time"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  output prob [1] tolerance abs 1e-30 rel 1%  "probability"

  param k = 1  "scale"
  law prob = sin(k * E * t / (h / (2 * pi)))^2

  counterfactual "faster oscillation" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
