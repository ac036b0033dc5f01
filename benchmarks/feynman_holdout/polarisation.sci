# Polarisation of a dense dielectric (Feynman table II.11.27), for the baseline's held-out measurement set
card polarisation "Polarisation of a dense dielectric" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.11.27"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n [1/m^3] in 1e+28 .. 1e+29  "number density"
  input  alpha [m^3] in 1e-30 .. 1e-29  "polarisability"
  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  Ef [V/m] in 100.0 .. 1000.0  "field"
  output P [C/m^2] tolerance abs 1e-30 rel 1%  "polarisation"

  param k = 3  "local-field factor"
  law P = n * alpha / (1 - n * alpha / k) * eps * Ef

  counterfactual "stronger local field" {
    scale k by 0.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
