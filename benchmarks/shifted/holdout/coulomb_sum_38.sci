# Force between two point charges: a shifted textbook law (sum), for the baseline's held-out set
card coulomb_sum_38 "Force between two point charges" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 7331: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  q1 [uC] in 1 .. 10  "charge 1"
  input  q2 [uC] in 1 .. 10  "charge 2"
  input  r [m] in 0.1 .. 1  "distance"
  output F [N] tolerance abs 1e-6 rel 1%  "force"

  param ke = 8.988e9 [N*m^2/C^2]  "Coulomb constant"
  law F = ke * q1 * q2 / r^2

  # mutation kind: sum
  counterfactual "the charges summed inside the power (2)" {
    law F = ke * ((q1 + q2) / 2)^(2) / r^2
    rebalance ke at q1 = 5.5 [uC], q2 = 5.5 [uC], r = 0.55 [m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
