# Current density from the vector potential (Feynman table III.21.20), for the baseline's held-out measurement set
card current_vector_potential "Current density from the vector potential" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.21.20"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  rho [C/m^3] in 1000.0 .. 10000.0  "charge density"
  input  q [C] in 1.5e-19 .. 1.7e-19  "charge"
  input  A [T*m] in 0.001 .. 0.01  "vector potential"
  input  m [kg] in 9e-31 .. 1e-30  "mass"
  output j [A/m^2] tolerance abs 1e-30 rel 1%  "current density"

  param n = 1  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law j = k0 * (-rho * q * A^n / m)

  counterfactual "quadratic" {
    set n = 2
    rebalance k0 at A = 0.0055 [T*m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
