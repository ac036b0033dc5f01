# The progress curve of an enzyme reaction; the law is the reaction's rate
card enzyme_progress "The progress curve of an enzyme reaction" {
  collection historical
  field      biochemistry
  source     "L. Michaelis and M. L. Menten, Biochem. Z. 49, 333 (1913)"
  background """
    An enzyme is mixed with its substrate at controllable concentrations and the product is
    measured some time later. The enzyme is not used up.
  """
  input  S0 [mmol/L] in 0.2 .. 10  "substrate concentration at the start"
  input  E  [umol/L] in 0.5 .. 5   "enzyme concentration"
  input  t  [s]      in 10 .. 600  "time at which the product is measured"
  output Pr [mmol/L] resolution 1e-6 tolerance abs 1e-3 rel 1%  "product concentration"

  param kcat = 2 [1/s]     "turnover number"
  param Km   = 1 [mmol/L]  "half-saturation concentration"
  param n    = 1           "cooperativity"
  law v(S, E) = kcat * E * S^n / (Km^n + S^n)  # the reaction's rate
  argument S [mmol/L] in 0.01 .. 10  "substrate concentration"

  system {
    time  t
    state Sub [mmol/L] = S0
    state Pr  [mmol/L] = 0 [mmol/L]
    rate  Sub = -v(Sub, E)
    rate  Pr  = v(Sub, E)
  }
  # exponent change: cooperative binding with a Hill coefficient of 2
  counterfactual "cooperative binding (Hill coefficient 2)" {
    set n = 2
  }
}
