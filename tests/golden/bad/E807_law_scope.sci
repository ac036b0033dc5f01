# golden bad card for E807: the law of named arguments uses an input that is not its argument
card E807_law_scope "A tank draining through a small hole" {
  collection historical
  field      engineering
  source     "E. Torricelli, Opera Geometrica (1644)"
  background "A tank drains through a small hole in its floor; the depth is read later."
  input  A  [m^2] in 0.5 .. 2     "cross-section of the tank"
  input  h0 [m]   in 0.5 .. 2     "depth at the start"
  input  t  [s]   in 10 .. 600    "time at which the depth is read"
  output h  [m] resolution 1e-6 tolerance abs 1e-3 rel 1%  "depth of the water"
  param k = 0.001 [m^2.5/s]
  param n = 0.5
  law q(d) = k * d^n * A
  argument d [m] in 0.01 .. 2.5
  system {
    time  t
    state h [m] = h0
    rate  h = -q(h) / A
  }
  counterfactual "laminar outflow" { set n = 1  rebalance k at d = 1 [m] }
}
