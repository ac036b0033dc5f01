# Quantised angular momentum (Feynman table III.12.43), for the baseline's held-out measurement set
card angular_momentum_quantum "Quantised angular momentum" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.12.43"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n [1] in 1.0 .. 5.0  "quantum number"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  output L [J*s] tolerance abs 1e-40 rel 1%  "angular momentum"

  param p = 1  "exponent"
  law L = n^p * h / (2 * pi)

  counterfactual "quadratic" {
    set p = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
