# Force on a charge in a field (Feynman table I.12.5), for the baseline's held-out measurement set
card electric_force "Force on a charge in a field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.12.5"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q2 [C] in 1e-06 .. 1e-05  "charge"
  input  Ef [V/m] in 100.0 .. 1000.0  "electric field"
  output F [N] tolerance abs 1e-30 rel 1%  "force"

  param n = 1  "field exponent"
  param k0 = 1 [1]  "unit carrier"
  law F = k0 * (q2 * Ef^n)

  counterfactual "quadratic field" {
    set n = 2
    rebalance k0 at Ef = 550 [V/m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
