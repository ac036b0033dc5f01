# Temperature of a hot body cooling in still air versus time (Newton's law of cooling)
card newton_cooling "Newton's law of cooling" {
  collection historical
  field      thermodynamics
  source     "I. Newton, Scala graduum caloris, Phil. Trans. R. Soc. 22, 824 (1701)"

  background """
    A thin-walled copper can filled with water and stirred continuously is
    heated to a chosen starting temperature and then set on an insulating
    stand in a large, draught-free room at 293 K. A resistance thermometer
    in the water reports the absolute temperature of the water at a chosen
    time after the can was put down.
  """
  conditions "water well stirred: one uniform temperature; room temperature constant"
  conditions "no evaporation from the covered can"

  input  t  [min] in 0 .. 60     "time since the can was set down"
  input  T0 [K]   in 330 .. 370  "starting temperature of the water"
  output T  [K]   resolution 0.01 tolerance abs 0.1 rel 0.1%  "temperature of the water"

  param Ta  = 293 [K]   "room temperature"
  param tau = 25 [min]  "characteristic cooling time"
  param k   = 0 [1/K]   "rise of the cooling rate per kelvin of excess"

  # The excess x = T - Ta obeys dx/dt = -(x / tau) * (1 + k * x): the cooling rate
  # depends on the current excess only. Its solution, with x0 = T0 - Ta and
  # u = exp(-t / tau), is x = x0 * u / (1 + k * x0 * (1 - u)); k = 0 is Newton's law.
  law T = Ta + (T0 - Ta) * exp(-t / tau) / (1 + k * (T0 - Ta) * (1 - exp(-t / tau)))

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   T: min 0.97, median 0.99, max 1
  counterfactual "interaction term switched on: a larger excess cools faster" {
    set k = 0.01 [1/K]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
