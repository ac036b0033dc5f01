# Wavenumber of light (Feynman table I.29.4), for the baseline's measurement set
card wavenumber "Wavenumber of light" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.29.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  omega [rad/s] in 1000000000000000.0 .. 5000000000000000.0  "angular frequency"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  output k [1/m] tolerance abs 1e-30 rel 1%  "wavenumber"

  param n = 1  "frequency exponent"
  param k0 = 1 [1]  "unit carrier"
  law k = k0 * (omega^n / c)

  counterfactual "other exponent" {
    set n = 1.1
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
