# Density of a bacterial culture growing in a closed flask versus time (Verhulst logistic growth)
card logistic_growth "Logistic growth of a bacterial culture" {
  collection historical
  field      biology
  source     "P.-F. Verhulst, Notice sur la loi que la population suit dans son accroissement, Corresp. Math. Phys. 10, 113 (1838)"

  background """
    A flask of fresh nutrient broth in a shaking incubator is inoculated
    with a chosen starting density of Escherichia coli cells. No medium is
    added or removed afterwards. At a chosen time after inoculation a
    sample is diluted, plated and counted, and the density of viable cells
    in the flask is reported.
  """
  conditions "one strain; constant temperature and aeration; no medium added"
  conditions "inoculum taken from a culture already growing steadily"

  input  t  [h]    in 0 .. 24         "time since inoculation"
  input  N0 [1/mL] in log 1e4 .. 1e6  "starting cell density"
  output N  [1/mL] resolution 1 tolerance abs 10 rel 2%  "viable cell density"

  param K  = 1e9 [1/mL]  "density the broth can support"
  param r  = 0.7 [1/h]   "growth rate constant"
  param rg = 0.1 [1/h]   "decay rate of the Gompertz growth rate"

  law N = K / (1 + (K / N0 - 1) * exp(-r * t))

  # mutation kind: replaced law. The Gompertz curve has its own rate: its specific
  # growth rate starts at rg * ln(K / N0), 0.7 to 1.2 /h over the domain, next to the
  # logistic 0.7 /h (with r it would start at 4.8 to 8.1 /h, a doubling every 5 to 9 min).
  # worlds: counterfactual / original output ratio over the evaluation set
  #   N: min 0.15, median 0.33, max 2.6
  counterfactual "replaced law: Gompertz growth curve" {
    law N = K * exp(log(N0 / K) * exp(-rg * t))
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
