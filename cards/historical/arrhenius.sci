# Temperature dependence of a reaction rate constant (Arrhenius equation)
card arrhenius "Arrhenius temperature dependence of a rate constant" {
  collection historical
  field      chemistry
  source     "S. Arrhenius, Z. Phys. Chem. 4, 226 (1889)"

  background """
    A dilute reacting solution is held in a thermostat bath at a chosen
    absolute temperature. The progress of a first-order reaction is
    followed over time with a polarimeter, and the first-order rate
    constant is extracted from the readings.
  """
  conditions "first-order kinetics; reactant dilute; catalyst concentration fixed"
  conditions "same reaction mechanism at every temperature in the range"

  input  T [K]     in 280 .. 360  "absolute temperature of the bath"
  output k [1/min] resolution 1e-5 tolerance abs 1e-5 rel 1%  "first-order rate constant"

  param A  = 1e10 [1/s]         "frequency factor"
  param Ea = 80 [kJ/mol]        "activation energy"
  param R  = 8.314 [J/(mol*K)]  "molar gas constant"

  law k = A * exp(-Ea / (R * T))

  # mutation kind: parameter scaling. `A` takes the value that gives both worlds the
  # same rate constant at 320 K, so the worlds differ in how k changes with T.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   k: min 0.52, median 0.97, max 2.3
  counterfactual "parameter scaling: activation energy lowered to 0.8" {
    scale Ea by 0.8
    rebalance A at T = 320 [K]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
