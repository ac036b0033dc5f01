# Energy stored in a spring (Feynman table I.14.4), for the baseline's measurement set
card spring_energy "Energy stored in a spring" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.14.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  k [N/m] in 10.0 .. 100.0  "spring constant"
  input  x [m] in 0.01 .. 0.1  "extension"
  output U [J] tolerance abs 1e-30 rel 1%  "energy"

  param n = 2  "extension exponent"
  param k0 = 1 [1]  "unit carrier"
  law U = k0 * (k * x^n / 2)

  counterfactual "cubic spring" {
    set n = 3
    rebalance k0
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
