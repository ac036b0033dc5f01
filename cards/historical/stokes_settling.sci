# Terminal speed of a small sphere sinking through glycerol (Stokes's law)
card stokes_settling "Terminal settling speed of a sphere in a viscous liquid" {
  collection historical
  field      mechanics
  source     "G. G. Stokes, On the effect of the internal friction of fluids on the motion of pendulums, Trans. Camb. Phil. Soc. 9, 8 (1851)"

  background """
    A tall glass cylinder of inner diameter 50 cm is filled with glycerol at 20
    degrees Celsius. Smooth spheres of chosen radius, made of materials of
    chosen density, are released at the centre just below the surface.
    After they have fallen far enough to stop speeding up, two marks
    10 cm apart are timed with a stopwatch and camera, and the steady
    sinking speed is reported.
  """
  conditions "spheres far from the walls and the bottom; liquid at rest"
  conditions "glycerol at constant temperature"

  # the wall slows a 1 mm sphere in a 50 cm cylinder by about 0.4% (2.1 d / D)
  input  r     [mm]     in 0.1 .. 0.5  "radius of the sphere"
  input  rho_s [g/cm^3] in 2 .. 8      "density of the sphere"
  output v     [mm/s]   resolution 0.001 tolerance abs 0.002 rel 1%  "terminal sinking speed"

  param rho_f = 1.26 [g/cm^3]  "density of glycerol"
  param mu    = 1.41 [Pa*s]    "viscosity of glycerol"
  param g     = 9.81 [m/s^2]   "gravitational acceleration"

  law v = 2 / 9 * (rho_s - rho_f) * g * r^2 / mu

  # mutation kind: replaced law. In a world where the resistance grows with the square
  # of the speed, the speed goes as the square root of r * (rho_s - rho_f) instead of
  # r^2 * (rho_s - rho_f). The drag coefficient of that world is a free choice (0.47 is
  # the high-Reynolds value of our world, not of this one), so it is fixed by making the
  # worlds agree for a 0.25 mm sphere 3.74 g/cm^3 denser than the glycerol (a 5 g/cm^3
  # sphere): they part ways by form, not by size.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   v: min 0.28, median 0.78, max 6.9
  counterfactual "replaced law: resistance grows with the square of the speed" {
    law v = 2 / 9 * 3.74 [g/cm^3] * g * 0.25 [mm]^2 / mu * sqrt(r / 0.25 [mm] * (rho_s - rho_f) / 3.74 [g/cm^3])
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
