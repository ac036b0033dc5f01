# Relativistic momentum (Feynman table I.15.10), for the baseline's measurement set
card rel_momentum "Relativistic momentum" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.15.10"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m0 [kg] in 1.0 .. 5.0  "rest mass"
  input  v [m/s] in 10000000.0 .. 200000000.0  "speed"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output p [kg*m/s] tolerance abs 1e-30 rel 1%  "momentum"

  param a = 0.5  "exponent"
  law p = m0 * v / (1 - (v/c)^2)^a

  counterfactual "full power" {
    set a = 1
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
