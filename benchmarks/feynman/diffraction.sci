# Angle of a diffraction minimum (Feynman table I.30.5), for the baseline's measurement set
card diffraction "Angle of a diffraction minimum" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.30.5"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  lam [m] in 4e-07 .. 7e-07  "wavelength"
  input  n [1] in 1.0 .. 3.0  "order"
  input  d [m] in 2e-06 .. 5e-06  "slit width"
  output theta [rad] tolerance abs 1e-30 rel 1%  "angle"

  param k = 1  "scale"
  law theta = asin(k * lam / (n * d))

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
