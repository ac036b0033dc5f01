# Newton's law of universal gravitation
card gravitation "Newton's law of universal gravitation" {
  collection historical
  field      physics
  source     "I. Newton, Principia, Book III (1687)"

  background """
    Two solid lead spheres of chosen masses are held at a controllable
    centre-to-centre distance in vacuum. A torsion balance reads the force
    between them.
  """
  conditions "uniform spheres that do not touch; speeds far below the speed of light"
  conditions "no other bodies nearby"

  input  m1 [kg] in 1 .. 1000  "mass of the first body"
  input  m2 [kg] in 1 .. 1000  "mass of the second body"
  input  r  [m]  in 0.5 .. 20  "centre-to-centre distance"
  output F  [N]  resolution 1e-15 tolerance abs 1e-15 rel 1%  "attractive force"

  # lead (11.34 g/cm^3): a 1000 kg sphere has a radius of 0.28 m
  constraint r > cbrt(3 * m1 / (4 * pi * 11.34 [g/cm^3])) + cbrt(3 * m2 / (4 * pi * 11.34 [g/cm^3]))  "the two spheres would overlap"

  param n = 2                           "distance exponent"
  param G = 6.674e-11 [m^3 kg^-1 s^-2]  "coupling constant"

  law F = G * m1 * m2 / r^n

  # mutation kind: exponent change. `G` takes the unit the inverse cube needs and the
  # value that gives both worlds the same force at 5 m.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   F: min 0.25, median 0.5, max 8.9
  counterfactual "exponent change: inverse-cube attraction" {
    set n = 3
    rebalance G at r = 5 [m]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
