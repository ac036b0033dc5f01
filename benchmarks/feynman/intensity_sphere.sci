# Intensity of a point source (Feynman table II.3.24), for the baseline's measurement set
card intensity_sphere "Intensity of a point source" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.3.24"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  P [W] in 1.0 .. 100.0  "power"
  input  r [m] in 1.0 .. 10.0  "distance"
  output I [W/m^2] tolerance abs 1e-30 rel 1%  "intensity"

  param n = 2  "exponent"
  param k0 = 1 [1]  "unit carrier"
  law I = k0 * (P / (4 * pi * r^n))

  counterfactual "inverse cube" {
    set n = 3
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
