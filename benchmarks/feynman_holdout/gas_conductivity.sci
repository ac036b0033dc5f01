# Heat conductivity of a gas (Feynman table I.43.43), for the baseline's held-out measurement set
card gas_conductivity "Heat conductivity of a gas" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.43.43"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  gamma [1] in 1.1 .. 1.7  "adiabatic index"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  v [m/s] in 100.0 .. 1000.0  "mean speed"
  input  A [m^2] in 1e-20 .. 1e-19  "collision cross-section"
  output kappa [W/(m*K)] tolerance abs 1e-30 rel 1%  "conductivity"

  param n = 1  "speed exponent"
  param k0 = 1 [1]  "unit carrier"
  law kappa = k0 * (kb * v^n / (A * (gamma - 1)))

  counterfactual "quadratic speed" {
    set n = 2
    rebalance k0 at v = 550 [m/s]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
