# Intensity of two interfering beams (Feynman table I.37.4), for the baseline's measurement set
card interference "Intensity of two interfering beams" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.37.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  I1 [W/m^2] in 1.0 .. 5.0  "intensity 1"
  input  I2 [W/m^2] in 1.0 .. 5.0  "intensity 2"
  input  delta [rad] in 0.0 .. 3.0  "phase difference"
  output I [W/m^2] tolerance abs 1e-30 rel 1%  "intensity"

  param k = 2  "cross factor"
  law I = I1 + I2 + k * sqrt(I1 * I2) * cos(delta)

  counterfactual "weaker" {
    scale k by 0.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
