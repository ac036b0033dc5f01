# Flow of water through a narrow glass capillary under a pressure difference (Hagen-Poiseuille law)
card poiseuille "Hagen-Poiseuille flow through a capillary" {
  collection historical
  field      mechanics
  source     "J. L. M. Poiseuille, Comptes Rendus Acad. Sci. 11, 961 (1840); G. Hagen, Ann. Phys. Chem. 46, 423 (1839)"

  background """
    Water at 20 degrees Celsius is driven through a straight glass
    capillary of circular bore from a pressurised reservoir. The bore
    radius (from a mercury-thread calibration) and the capillary length
    can be chosen from a stock of tubes, and a regulator holds a chosen
    pressure difference between the two ends. The water leaving the
    capillary is collected on a balance and the steady volumetric flow
    rate is reported.
  """
  conditions "steady laminar flow; entrance, exit and kinetic-energy effects below 0.5% of the pressure drop"
  conditions "water temperature held constant; tube walls wetted and clean"

  input  r  [mm]   in log 0.1 .. 0.25  "bore radius of the capillary"
  input  L  [cm]   in 20 .. 50         "length of the capillary"
  input  dp [kPa]  in 0.5 .. 2.5       "pressure difference between the ends"
  output Q  [uL/s] resolution 0.001 tolerance abs 0.005 rel 1%  "volumetric flow rate"

  param mu = 1.0e-3 [Pa*s]  "viscosity of water"
  param n  = 4              "radius exponent"

  law Q = pi * dp * r^n / (8 * mu * L)

  # mutation kind: exponent change. `mu` takes the unit the cube law needs and the
  # value that gives both worlds the same flow through a 0.16 mm bore.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   Q: min 0.64, median 1, max 1.6
  counterfactual "exponent change: flow grows with the cube of the bore radius" {
    set n = 3
    rebalance mu at r = 0.16 [mm]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
