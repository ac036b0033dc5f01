# Energy of an ideal gas with an adiabatic index (Feynman table I.39.11), for the baseline's held-out measurement set
card gas_energy_gamma "Energy of an ideal gas with an adiabatic index" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.39.11"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  gamma [1] in 1.1 .. 1.7  "adiabatic index"
  input  pr [Pa] in 50000.0 .. 200000.0  "pressure"
  input  V [m^3] in 0.001 .. 0.01  "volume"
  output E [J] tolerance abs 1e-30 rel 1%  "internal energy"

  param k = 1  "offset"
  law E = pr * V / (gamma - k)

  counterfactual "shifted offset" {
    scale k by 0.9
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
