# Restoring force of a stretched coil spring (Hooke's law)
card hooke "Hooke's law for a coil spring" {
  collection historical
  field      physics
  source     "R. Hooke, Lectures de Potentia Restitutiva, or of Spring (1678)"

  background """
    A steel coil spring hangs from a rigid support. Its lower end is pulled
    down by a chosen distance from its rest position with a screw-driven
    stage, and a load cell between the stage and the spring reads the force
    the spring exerts.
  """
  conditions "extensions well inside the elastic range; no permanent set"
  conditions "the spring's own weight is tared before each reading"

  input  x [mm] in 5 .. 50  "extension beyond the rest length"
  output F [N]  resolution 0.001 tolerance abs 0.005 rel 1%  "restoring force"

  param k = 250 [N/m]  "stiffness of the spring"
  param n = 1          "extension exponent"

  law F = k * x^n

  # mutation kind: exponent change
  counterfactual "exponent change: force grows with the square of the extension" {
    set n = 2
    rebalance k at x = 20 [mm]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
