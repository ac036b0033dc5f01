# Prey and predators on an island; the law is the rate at which prey are eaten
card predator_prey "Hares and lynxes on an island" {
  collection historical
  field      biology
  source     "A. J. Lotka, Elements of Physical Biology (1925); V. Volterra, Nature 118, 558 (1926)"
  background """
    An island is stocked with controllable numbers of prey and predators (per square kilometre).
    Prey breed up to what the island can feed, predators eat prey and die without them. Both
    populations are counted some days later.
  """
  input  H0 [1]   in 20 .. 80  "prey per square kilometre at the start"
  input  P0 [1]   in 2 .. 20   "predators per square kilometre at the start"
  input  t  [day] in 1 .. 30   "day of the count"
  output H  [1]   resolution 1e-4 tolerance abs 0.05 rel 1%  "prey per square kilometre"
  output P  [1]   resolution 1e-4 tolerance abs 0.05 rel 1%  "predators per square kilometre"

  param a = 0.02 [1/day]  "attack rate"
  param h = 0 [day]       "handling time per prey"
  law f(Hn, Pn) = a * Hn * Pn / (1 + a * h * Hn)  # prey eaten per day
  argument Hn [1] in 1 .. 300   "prey per square kilometre"
  argument Pn [1] in 0.5 .. 60  "predators per square kilometre"

  system {
    time  t
    state H [1] = H0
    state P [1] = P0
    rate  H = 0.6 [1/day] * H * (1 - H / 300) - f(H, P)
    rate  P = 0.25 * f(H, P) - 0.3 [1/day] * P
  }
  # interaction term switched on: predators that need time to handle each prey (Holling type II)
  counterfactual "predators that need time to handle each prey" {
    set h = 0.5 [day]
    scale a by 1.5
  }
}
