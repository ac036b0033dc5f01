# A ball thrown from a cliff with air drag; the law is the drag deceleration
card projectile_drag "A ball thrown through air" {
  collection historical
  field      physics
  source     "I. Newton, Principia, Book II (1687); the quadratic drag of a bluff body"
  background """
    A small ball is thrown from the edge of a high cliff at a controllable speed and angle
    above the horizontal. Its position relative to the launch point is read some time later.
  """
  input  v0    [m/s] in 10 .. 40  "launch speed"
  input  theta [deg] in 20 .. 70  "launch angle above the horizontal"
  input  t     [s]   in 0.2 .. 3  "time after launch at which the position is read"
  output x     [m]   resolution 1e-4 tolerance abs 0.01 rel 1%  "horizontal distance from the launch point"
  output y     [m]   resolution 1e-4 tolerance abs 0.01 rel 1%  "height above the launch point"

  param c = 0.005 [1/m]  "drag coefficient per unit mass"
  param n = 2            "exponent of the speed"
  law D(v) = c * v^n  # the drag deceleration
  argument v [m/s] in 0.5 .. 50  "speed of the ball"

  system {
    time  t
    state x  [m]   = 0 [m]
    state y  [m]   = 0 [m]
    state vx [m/s] = v0 * cos(theta)
    state vy [m/s] = v0 * sin(theta)
    let s = sqrt(vx^2 + vy^2)
    rate  x  = vx
    rate  y  = vy
    rate  vx = -D(s) * vx / s
    rate  vy = -9.81 [m/s^2] - D(s) * vy / s
  }
  # exponent change: drag linear in the speed
  counterfactual "drag linear in the speed" {
    set n = 1
    rebalance c at v = 20 [m/s]
  }
}
