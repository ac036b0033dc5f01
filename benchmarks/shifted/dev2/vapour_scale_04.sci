# Vapour pressure of water: a shifted textbook law (scale), for the baseline's second development set
card vapour_scale_04 "Vapour pressure of water" {
  collection historical
  field      chemistry
  source     "scigame benchmarks/shifted/generate.py, seed 4177: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  T [K] in 280 .. 370  "temperature"
  output p [kPa] tolerance abs 1e-5 rel 1%  "vapour pressure"

  param p0 = 101.325 [kPa]  "pressure at boiling"
  param Lv = 40700 [J/mol]  "heat of vaporisation"
  param R = 8.314 [J/(mol*K)]  "gas constant"
  param T0 = 373 [K]  "boiling point"
  law p = p0 * exp(-Lv / R * (1 / T - 1 / T0))

  # mutation kind: scale
  counterfactual "a temperature scale moved in (Antoine) (34)" {
    law p = p0 * exp(-Lv / R * (1 / (T - (34 [K])) - 1 / (T0 - (34 [K]))))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
