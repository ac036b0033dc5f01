# Range and peak height of a ball launched over level ground (Galileo's projectile motion)
card projectile "Range and peak height of a projectile" {
  collection historical
  field      mechanics
  source     "G. Galilei, Discorsi e dimostrazioni matematiche intorno a due nuove scienze, Elsevier, Leiden (1638)"

  background """
    A steel ball 12.7 to 25 mm across is fired from a spring launcher
    whose muzzle sits at floor level on a long, flat hall floor. The
    launch speed is set by the spring compression and checked with a pair
    of photogates at the muzzle;
    the launch elevation is set on a protractor fixed to the launcher. The
    landing spot is marked on carbon paper and its horizontal distance from
    the muzzle is measured with a tape. A high-speed camera filming the
    flight against a vertical scale gives the greatest height reached
    above the floor.
  """
  conditions "dense, small ball at low speed: air drag and spin negligible"
  conditions "launch and landing at the same height"

  # air drag on a 12.7-25 mm steel ball shortens the range by about 0.3-0.5% at 4 m/s
  # (it grows as v0^2: 1.7-3.3% at 10 m/s), well under the 1% tolerance
  input  v0    [m/s] in 2 .. 4    "launch speed"
  input  theta [deg] in 15 .. 75  "launch elevation above the horizontal"
  output R     [m]   resolution 0.001 tolerance abs 0.005 rel 1%  "horizontal distance to the landing spot"
  output H     [m]   resolution 0.001 tolerance abs 0.005 rel 1%  "greatest height above the floor"

  param g = 9.81 [m/s^2]  "local gravitational acceleration"
  param n = 2             "speed exponent"

  law R = v0^n * sin(2 * theta) / g
  law H = v0^n * sin(theta)^2 / (2 * g)

  # mutation kind: exponent change. `g` takes the unit the cube law needs and the
  # value that gives both worlds the same flight at a launch speed of 3 m/s.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   R: min 0.67, median 1, max 1.3
  #   H: min 0.67, median 1, max 1.3
  counterfactual "exponent change: range and height grow with the cube of the launch speed" {
    set n = 3
    rebalance g at v0 = 3 [m/s]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
