# Work of a force along a displacement (Feynman table I.11.19), for the baseline's held-out measurement set
card dot_product "Work of a force along a displacement" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.11.19"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  x1 [m] in 1.0 .. 5.0  "displacement x"
  input  x2 [m] in 1.0 .. 5.0  "displacement y"
  input  x3 [m] in 1.0 .. 5.0  "displacement z"
  input  y1 [N] in 1.0 .. 5.0  "force x"
  input  y2 [N] in 1.0 .. 5.0  "force y"
  input  y3 [N] in 1.0 .. 5.0  "force z"
  output A [J] tolerance abs 1e-30 rel 1%  "work"

  param k = 1  "weight of the third component"
  law A = x1 * y1 + x2 * y2 + k * x3 * y3

  counterfactual "stronger third component" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
