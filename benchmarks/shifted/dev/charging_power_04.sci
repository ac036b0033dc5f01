# Voltage of a charging capacitor: a shifted textbook law (power), for the baseline's development set
card charging_power_04 "Voltage of a charging capacitor" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 2029: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [ms] in 0.1 .. 10  "time"
  input  V0 [V] in 1 .. 10  "supply voltage"
  input  R [kohm] in 1 .. 10  "resistance"
  output V [V] tolerance abs 1e-4 rel 1%  "capacitor voltage"

  param C = 0.5 [uF]  "capacitance"
  law V = V0 * (1 - exp(-t / (R * C)))

  # mutation kind: power
  counterfactual "a stretched charging curve (0.7)" {
    law V = V0 * (1 - exp(-(t / (R * C))^(0.7)))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
