# Power radiated by a hot grey body versus temperature and area (Stefan-Boltzmann law)
card stefan_boltzmann "Stefan-Boltzmann law of thermal radiation" {
  collection historical
  field      thermodynamics
  source     "J. Stefan, Sitzungsber. Akad. Wiss. Wien 79, 391 (1879)"

  background """
    A flat, blackened metal plate of adjustable exposed area is heated
    electrically in an evacuated chamber whose walls are cooled with
    liquid nitrogen to about 77 K. A thermocouple reads the plate's absolute
    temperature; a calibrated thermopile collecting all the emitted
    radiation reports the total radiant power leaving the exposed face.
  """
  conditions "plate in vacuum: no convection or conduction losses"
  conditions "surroundings cold enough that absorbed radiation is negligible"
  conditions "emissivity independent of temperature over the range"

  input  T [K]    in 500 .. 1500  "absolute temperature of the plate"
  input  A [cm^2] in 10 .. 100    "exposed radiating area"
  output P [W]    resolution 0.001 tolerance abs 0.01 rel 1%  "total radiated power"

  param eps   = 0.95                    "emissivity of the blackened surface"
  param n     = 4                       "temperature exponent"
  param sigma = 5.670e-8 [W m^-2 K^-4]  "radiation constant"

  law P = eps * sigma * A * T^n

  # mutation kind: exponent change. `sigma` takes the unit the fifth power needs and
  # the value that gives both worlds the same power at 1000 K.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   P: min 0.51, median 1, max 1.5
  counterfactual "exponent change: fifth-power radiation" {
    set n = 5
    rebalance sigma at T = 1000 [K]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
