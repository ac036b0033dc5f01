# A parent nuclide decaying into a radioactive daughter; the law is the parent's decay rate
card decay_chain "A parent nuclide and its radioactive daughter" {
  collection historical
  field      chemistry
  source     "E. Rutherford and F. Soddy, Phil. Mag. 4, 370 (1902); H. Bateman, Proc. Camb. Phil. Soc. 15, 423 (1910)"
  background """
    A sample holds a controllable amount of a parent nuclide and none of its daughter. The
    daughter decays in turn, at a rate constant set by choosing the daughter. The amount of the
    daughter is read some time later.
  """
  input  N0 [umol] in 1 .. 100     "amount of the parent at the start"
  input  kd [1/h]  in 0.05 .. 0.5  "decay constant of the daughter"
  input  t  [h]    in 0.5 .. 48    "time at which the daughter is measured"
  output D  [umol] resolution 1e-5 tolerance abs 1e-3 rel 1%  "amount of the daughter"

  param lam = 0.1 [1/h]  "decay constant of the parent"
  param N1  = 10 [umol]  "reference amount"
  param n   = 1          "order of the decay"
  law A(N) = lam * N1 * (N / N1)^n  # how fast the parent decays
  argument N [umol] in 0.01 .. 100  "amount of the parent"

  system {
    time  t
    state P [umol] = N0
    state D [umol] = 0 [umol]
    rate  P = -A(P)
    rate  D = A(P) - kd * D
  }
  # exponent change: an order-3/2 decay
  counterfactual "a decay that speeds up with the amount (order 3/2)" {
    set n = 1.5
  }
}
