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

  input  t  [h]    in 0 .. 24           "time since inoculation"
  input  N0 [1/mL] in log 1e4 .. 1e6    "starting cell density"
  output N  [1/mL] resolution 1 tolerance abs 10 rel 2%  "viable cell density"

  param K = 1e9 [1/mL]  "density the broth can support"
  param r = 0.7 [1/h]   "growth rate constant"

  law N = K / (1 + (K / N0 - 1) * exp(-r * t))

  # mutation kind: replaced law
  counterfactual "replaced law: Gompertz growth curve" {
    law N = K * exp(log(N0 / K) * exp(-r * t))
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
