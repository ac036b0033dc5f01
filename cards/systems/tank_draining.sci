# A tank draining through a hole in its floor; the law is the outflow
card tank_draining "A tank draining through a small hole" {
  collection historical
  field      engineering
  source     "E. Torricelli, Opera Geometrica (1644)"
  background """
    A tank of controllable cross-section is filled with water to a controllable depth and drains
    through a small hole in its floor. The depth is read some time later.
  """
  input  A  [m^2] in 0.5 .. 2   "cross-section of the tank"
  input  h0 [m]   in 0.5 .. 2   "depth at the start"
  input  t  [s]   in 10 .. 600  "time at which the depth is read"
  output h  [m]   resolution 1e-6 tolerance abs 1e-3 rel 1%  "depth of the water"

  param k = 0.001 [m^2.5/s]  "outflow coefficient"
  param n = 0.5              "exponent of the depth"
  law q(d) = k * d^n  # the outflow, volume per second
  argument d [m] in 0.01 .. 2.5  "depth of the water"

  system {
    time  t
    state h [m] = h0
    rate  h = -q(h) / A
  }
  # exponent change: a long narrow outlet with laminar flow, outflow proportional to depth
  counterfactual "laminar outflow through a long outlet" {
    set n = 1
    rebalance k at d = 1 [m]
  }
}
