# Gravitation between two points in space (Feynman table I.9.18), for the baseline's held-out measurement set
card gravitation_3d "Gravitation between two points in space" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.9.18"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  G [m^3/(kg*s^2)] in 6.6e-11 .. 6.8e-11  "gravitational constant"
  input  m1 [kg] in 1.0 .. 5.0  "mass 1"
  input  m2 [kg] in 1.0 .. 5.0  "mass 2"
  input  x1 [m] in 0.0 .. 1.0  "x of body 1"
  input  x2 [m] in 2.0 .. 3.0  "x of body 2"
  input  y1 [m] in 0.0 .. 1.0  "y of body 1"
  input  y2 [m] in 2.0 .. 3.0  "y of body 2"
  input  z1 [m] in 0.0 .. 1.0  "z of body 1"
  input  z2 [m] in 2.0 .. 3.0  "z of body 2"
  output F [N] tolerance abs 1e-30 rel 1%  "force"

  param a = 1  "exponent of the squared distance"
  param k0 = 1 [1]  "unit carrier"
  law F = k0 * (G * m1 * m2 / ((x2 - x1)^2 + (y2 - y1)^2 + (z2 - z1)^2)^a)

  counterfactual "inverse cube" {
    set a = 1.5
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
