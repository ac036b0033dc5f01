# Period of a simple pendulum swinging through small angles (Galileo, Huygens)
card pendulum "Small-angle period of a simple pendulum" {
  collection historical
  field      physics
  source     "C. Huygens, Horologium Oscillatorium (1673)"

  background """
    A small dense bob hangs from a light, inextensible thread whose length
    can be adjusted. The bob is released from rest a few degrees from the
    vertical and swings in still air near the Earth's surface. A photogate
    at the lowest point times many full swings, from which the duration of
    one full swing is reported.
  """
  conditions "release amplitude below about 5 degrees"
  conditions "thread mass and air drag negligible; bob small compared with the thread length"

  input  L [m] in 0.2 .. 2.0  "length from the pivot to the centre of the bob"
  output T [s] resolution 0.001 tolerance abs 0.002 rel 0.5%  "period of one full oscillation"

  param g = 9.81 [m/s^2]  "local gravitational acceleration"

  law T = 2 * pi * sqrt(L / g)

  # mutation kind: parameter scaling
  # worlds: counterfactual / original output ratio over the evaluation set
  #   T: min 1.1, median 1.1, max 1.1
  counterfactual "parameter scaling: gravity weakened to 0.8 of its value" {
    scale g by 0.8
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
