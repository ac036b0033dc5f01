# golden bad card for E410: at the reference point I1 = I2 the counterfactual force is 0 whatever k is
card E410_reference_counterfactual_zero "Force between two currents" {
  collection historical
  source     "a test card"
  background "Two currents are set and the force between their wires is read."

  input  I1 [A] in 1 .. 2  "first current"
  input  I2 [A] in 1 .. 2  "second current"
  output F  [N] tolerance abs 1e-3 rel 1%  "force"

  param k = 1 [N/A^2]
  param s = 0

  law F = k * (I1 * I2 + s * (I1 - I2)^2 - s * I1 * I2)

  counterfactual "a force that vanishes for equal currents" {
    set s = 1
    rebalance k at I1 = 1.5 [A], I2 = 1.5 [A]
  }
}
