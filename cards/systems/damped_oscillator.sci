# A mass on a spring with a damper; the law is the force on the cart
card damped_oscillator "A cart on a spring and a damper" {
  collection historical
  field      physics
  source     "R. Hooke, De Potentia Restitutiva (1678); viscous damping after G. G. Stokes (1851)"
  background """
    A cart of controllable mass runs on a level track, tied to a wall by a spring and a damper.
    It is pulled out, released from rest, and its displacement is read some time later.
  """
  input  m  [kg] in 0.5 .. 2  "mass of the cart"
  input  x0 [cm] in 2 .. 10   "displacement at release"
  input  t  [s]  in 0.1 .. 5  "time after release at which the displacement is read"
  output x  [cm] resolution 1e-4 tolerance abs 0.01 rel 1%  "displacement from the rest position"

  param k  = 20 [N/m]     "spring constant"
  param b  = 0.8 [N*s/m]  "damping coefficient"
  param k3 = 0 [N/m^3]    "cubic stiffening of the spring"
  law F(q, u) = -k * q - k3 * q^3 - b * u  # the force on the cart
  argument q [cm]  in -12 .. 12    "displacement"
  argument u [m/s] in -1.2 .. 1.2  "velocity"

  system {
    time  t
    state x [cm]  = x0
    state v [m/s] = 0 [m/s]
    rate  x = v
    rate  v = F(x, v) / m
  }
  # interaction term switched on: a spring that stiffens as it stretches
  counterfactual "a stiffening spring (a cubic term switched on)" {
    set k3 = 2000 [N/m^3]
  }
}
