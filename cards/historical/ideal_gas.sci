# Pressure of a confined gas versus amount, volume and temperature (ideal gas law)
card ideal_gas "Ideal gas law" {
  collection historical
  field      thermodynamics
  source     "B. P. E. Clapeyron, Mémoire sur la puissance motrice de la chaleur, J. École Polytechnique 14, 153 (1834)"

  background """
    A known amount of dry nitrogen is admitted into a rigid steel vessel whose
    internal volume can be set with a calibrated piston. The vessel sits in
    a thermostat bath that holds the gas at a chosen absolute temperature.
    After equilibrium, a pressure transducer reads the gas pressure.
  """
  conditions "gas far from condensation; equilibrium reached before reading"
  conditions "vessel walls do not adsorb or leak the gas"

  # at most 25 bar, where nitrogen between 280 and 380 K is ideal within 1%
  input  n [mol] in 0.1 .. 0.8  "amount of gas admitted"
  input  V [L]   in 1 .. 4      "internal volume of the vessel"
  input  T [K]   in 280 .. 380  "absolute temperature of the bath"
  output P [kPa] resolution 0.1 tolerance abs 0.5 rel 1%  "gas pressure"

  param R = 8.314 [J/(mol*K)]  "molar gas constant"
  param a = 0 [Pa*m^6/mol^2]   "strength of mutual attraction between molecules"

  law P = n * R * T / V - a * n^2 / V^2

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   P: min 0.91, median 0.98, max 1
  counterfactual "interaction term switched on: intermolecular attraction" {
    set a = 0.364 [Pa*m^6/mol^2]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
