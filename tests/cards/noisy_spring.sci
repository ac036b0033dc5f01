# A card with measurement noise and an out-of-domain set, for the controls and interchange tests.
card noisy_spring "Hooke's law with a noisy gauge" {
  collection historical
  field      physics
  source     "R. Hooke, De Potentia Restitutiva (1678)"
  background """
    A spring is stretched by a controllable amount; a gauge reads the force.
  """
  conditions "small extensions"
  input  x [cm]  in 1 .. 10    "extension of the spring"
  input  k [N/m] in 10 .. 100  "stiffness of the spring"
  output F [N]   resolution 1e-9 tolerance abs 1e-6 rel 1% noise gaussian rel 2% abs 0.01  "force on the gauge"
  param n  = 1       "extension exponent"
  param L0 = 5 [cm]  "reference extension"
  law F = k * L0 * (x / L0)^n
  counterfactual "stiffening spring" {
    set n = 1.5
  }
  fixed design 8 sobol seed 1
  evaluation 128 seed 3 ood 3
}
