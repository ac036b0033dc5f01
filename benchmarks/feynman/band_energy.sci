# Energy of a tight-binding band (Feynman table III.15.12), for the baseline's measurement set
card band_energy "Energy of a tight-binding band" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.15.12"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  U [J] in 1e-20 .. 1e-19  "coupling"
  input  k [1/m] in 100000000.0 .. 1000000000.0  "wavenumber"
  input  d [m] in 1e-09 .. 2e-09  "spacing"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param a = 1  "scale"
  law E = 2 * U * (1 - cos(a * k * d))

  counterfactual "stronger" {
    scale a by 1.3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
