# Newton's gravity inside a two-body system: the LANGUAGE.md example card, as written
card two_body "A light body released near a heavy one" {
  collection historical
  source     "I. Newton, Principia, Book I (1687)"
  background "A light probe is released near a heavy body and its position is read later."
  input  M  [kg]   in log 1e29 .. 1e31  "mass of the heavy body"
  input  r0 [au]   in 0.5 .. 4          "initial distance"
  input  v0 [km/s] in 5 .. 60           "initial speed, at right angles to the line between them"
  input  t  [day]  in 1 .. 720          "time after release at which the position is read"
  output x  [au] resolution 1e-6 tolerance abs 1e-4 rel 1%  "position along the initial line"
  output y  [au] resolution 1e-6 tolerance abs 1e-4 rel 1%  "position across it"

  param G = 6.674e-11 [m^3 kg^-1 s^-2]
  param n = 2
  law a(M, r) = G * M / r^n                 # the hidden law, a function of named arguments
  argument r [au] in 0.2 .. 8               # domain of an argument that is not an input

  system {
    time  t                                  # the input that is the observation time
    state x  [au]   = r0
    state y  [au]   = 0 [au]
    state vx [km/s] = 0 [km/s]
    state vy [km/s] = v0
    let   d = sqrt(x^2 + y^2)
    rate  x  = vx                            # dx/dt
    rate  y  = vy
    rate  vx = -a(M, d) * x / d
    rate  vy = -a(M, d) * y / d
  }
  counterfactual "a steeper attraction" { set n = 2.5  rebalance G at M = 2e30 [kg], r = 1 [au] }
}
