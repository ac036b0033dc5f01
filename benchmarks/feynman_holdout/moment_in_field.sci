# Energy of a moment in a three-component field (Feynman table III.10.19), for the baseline's held-out measurement set
card moment_in_field "Energy of a moment in a three-component field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.10.19"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [J/T] in 1e-24 .. 1e-23  "moment"
  input  Bx [T] in 0.1 .. 1.0  "field x"
  input  By [T] in 0.1 .. 1.0  "field y"
  input  Bz [T] in 0.1 .. 1.0  "field z"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param n = 2  "norm exponent"
  law E = mu * (Bx^n + By^n + Bz^n)^(1/n)

  counterfactual "cubic norm" {
    set n = 3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
