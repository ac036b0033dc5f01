# Energy of a moving body (Feynman table I.48.2), for the baseline's measurement set
card rest_energy "Energy of a moving body" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.48.2"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m [kg] in 1.0 .. 5.0  "mass"
  input  v [m/s] in 10000000.0 .. 200000000.0  "speed"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param k = 1  "scale"
  law E = m * c^2 / sqrt(1 - k * (v/c)^2)

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
