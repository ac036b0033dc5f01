# Distance between two points in a plane (Feynman table I.8.14), for the baseline's measurement set
card distance "Distance between two points in a plane" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.8.14"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  x1 [m] in 0.0 .. 1.0  "x of point 1"
  input  x2 [m] in 2.0 .. 3.0  "x of point 2"
  input  y1 [m] in 0.0 .. 1.0  "y of point 1"
  input  y2 [m] in 2.0 .. 3.0  "y of point 2"
  output d [m] tolerance abs 1e-30 rel 1%  "distance"

  param n = 2  "norm exponent"
  law d = ((x2 - x1)^n + (y2 - y1)^n)^(1/n)

  counterfactual "taxicab-like norm" {
    set n = 3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
