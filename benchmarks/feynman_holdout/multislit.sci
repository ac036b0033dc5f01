# Intensity behind n slits (Feynman table I.30.3), for the baseline's held-out measurement set
card multislit "Intensity behind n slits" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.30.3"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  I0 [W/m^2] in 1.0 .. 5.0  "intensity of one slit"
  input  n [1] in 2.0 .. 4.0  "number of slits"
  input  theta [rad] in 0.2 .. 1.2  "phase difference"
  output I [W/m^2] tolerance abs 1e-30 rel 1%  "intensity"

  param k = 1  "scale"
  law I = I0 * sin(k * n * theta / 2)^2 / sin(theta / 2)^2

  counterfactual "faster phase" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
