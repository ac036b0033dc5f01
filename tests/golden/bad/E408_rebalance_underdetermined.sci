# golden bad card for E408: the units of a, c and q are fixed only together (issue #28's repro)
card E408_rebalance_underdetermined "Two power terms" {
  collection historical
  source     "a test card"
  background "Two inputs are set and a dimensionless reading is taken."

  input  x [m] in 1 .. 2  "a length"
  input  z [s] in 1 .. 2  "a duration"
  output y tolerance abs 1e-3 rel 1%  "the reading"

  param q = 1
  param a = 1 [1/m]
  param c = 1 [1/s]
  param n = 1

  law y = q * (a * x^n + c * z^n)

  counterfactual "c" {
    set n = 2
    rebalance a
    rebalance c
    rebalance q at x = 1.5 [m], z = 1.5 [s]
  }
}
