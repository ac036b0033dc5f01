# Relativistic mass (Feynman table I.10.7), for the baseline's measurement set
card relativistic_mass "Relativistic mass" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.10.7"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m0 [kg] in 1.0 .. 5.0  "rest mass"
  input  v [m/s] in 10000000.0 .. 200000000.0  "speed"
  output m [kg] tolerance abs 1e-30 rel 1%  "moving mass"

  param c = 2.998e8 [m/s]  "speed of light"
  law m = m0 / sqrt(1 - (v/c)^2)

  counterfactual "slower light" {
    scale c by 0.8
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
