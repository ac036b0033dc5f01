# Work of an isothermal expansion (Feynman table I.44.4), for the baseline's measurement set
card isothermal_work "Work of an isothermal expansion" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.44.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n [1] in 1e+22 .. 1e+23  "number of molecules"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 250.0 .. 400.0  "temperature"
  input  V1 [m^3] in 0.001 .. 0.002  "initial volume"
  input  V2 [m^3] in 0.003 .. 0.006  "final volume"
  output E [J] tolerance abs 1e-30 rel 1%  "work"

  param k = 1  "scale"
  law E = n * kb * T * log(k * V2 / V1)

  counterfactual "shifted" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
