# Pressure of an ideal gas (Feynman table I.39.22), for the baseline's measurement set
card ideal_gas_feynman "Pressure of an ideal gas" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.39.22"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n [1] in 1e+22 .. 1e+23  "number of molecules"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 250.0 .. 400.0  "temperature"
  input  V [m^3] in 0.001 .. 0.01  "volume"
  output P [Pa] tolerance abs 1e-30 rel 1%  "pressure"

  param a = 1  "volume exponent"
  param k0 = 1 [1]  "unit carrier"
  law P = k0 * (n * kb * T / V^a)

  counterfactual "other" {
    set a = 2
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
