# Initial velocity of an enzyme-catalysed reaction versus substrate concentration (Michaelis-Menten)
card michaelis_menten "Michaelis-Menten enzyme kinetics" {
  collection historical
  field      biology
  source     "L. Michaelis, M. L. Menten, Biochem. Z. 49, 333 (1913)"

  background """
    A fixed small amount of an enzyme (invertase) is mixed into buffered
    solutions containing a chosen concentration of its substrate (sucrose)
    and a chosen concentration of a second, structurally similar sugar.
    The initial rate of product formation is measured optically in the
    first minutes, before the substrate is noticeably depleted.
  """
  conditions "enzyme concentration far below substrate concentration"
  conditions "initial rates only; fixed pH and temperature"

  input  S [mM]   in log 2 .. 170  "substrate concentration"
  input  I [mM]   in 0 .. 2        "concentration of the second sugar"
  output v [uM/s] resolution 0.01 tolerance abs 0.05 rel 1%  "initial reaction velocity"

  param Vmax = 20 [uM/s]  "limiting velocity at saturating substrate"
  param Km   = 17 [mM]    "half-saturation substrate concentration"
  param ki   = 0 [1/mM]   "binding strength of the second sugar to the active site"

  law v = Vmax * S / (Km * (1 + ki * I) + S)

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   v: min 0.22, median 0.58, max 0.99
  counterfactual "interaction term switched on: competitive inhibition" {
    set ki = 2 [1/mM]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
