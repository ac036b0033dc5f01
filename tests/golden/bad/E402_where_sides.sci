# golden bad card for E402: the two sides of a law's `where` have different dimensions
card E402_where_sides "Newton's law of universal gravitation" {
  collection historical
  field      physics
  source     "I. Newton, Principia, Book III (1687)"

  background """
    Two small bodies are held at a controllable distance in vacuum.
    A torsion balance reads the force between them.
  """
  conditions "point masses; speeds far below the speed of light"

  input  m1 [kg] in 1 .. 1000       "mass of the first body"
  input  m2 [kg] in 1 .. 1000       "mass of the second body"
  input  r  [m] in 0.5 .. 20       "centre-to-centre distance"
  output F  [N]  resolution 1e-15 tolerance abs 1e-15 rel 1%  "attractive force"

  param n = 2                           "distance exponent"
  param G = 6.674e-11 [m^3 kg^-1 s^-2]  "coupling constant"

  law F = G * m1 * m2 / r^n where r > m1 "the spheres would overlap"

  counterfactual "stronger coupling" {
    scale G by 1.2
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
