# Photon energy (Feynman table I.34.27), for the baseline's measurement set
card photon_energy "Photon energy" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.34.27"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  input  omega [rad/s] in 1000000000000000.0 .. 5000000000000000.0  "angular frequency"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param n = 1  "exponent"
  law E = h * omega / (2 * pi)^n

  counterfactual "other" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
