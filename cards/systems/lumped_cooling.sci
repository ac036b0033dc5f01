# A body with a heat capacity cooling in air; the law is the heat it loses
card lumped_cooling "A warm block cooling in still air" {
  collection historical
  field      thermodynamics
  source     "I. Newton, Scala graduum caloris, Phil. Trans. 22, 824 (1701); P. L. Dulong and A. T. Petit (1817)"
  background """
    A small metal block of controllable heat capacity is heated and left in still air of a
    controllable temperature. It is small enough to have one temperature throughout, which is
    read some time later.
  """
  input  C  [J/K] in 200 .. 2000  "heat capacity of the block"
  input  T0 [K]   in 330 .. 420   "temperature of the block at the start"
  input  Ta [K]   in 280 .. 300   "temperature of the air"
  input  t  [s]   in 30 .. 3000   "time at which the temperature is read"
  output T  [K]   resolution 0.001 tolerance abs 0.05 rel 0.1%  "temperature of the block"

  param hA  = 1.5 [W/K]  "conductance to the air"
  param dT0 = 50 [K]     "reference excess temperature"
  param n   = 1          "exponent of the excess temperature"
  law Q(dT) = hA * dT0 * (dT / dT0)^n  # the heat the block loses per second
  argument dT [K] in 0.5 .. 140  "excess of the block's temperature over the air's"

  system {
    time  t
    state T [K] = T0
    rate  T = -Q(T - Ta) / C
  }
  # exponent change: natural convection's 5/4 power
  counterfactual "heat loss by natural convection (exponent 5/4)" {
    set n = 1.25
  }
}
