# Energy flux of a plane wave (Feynman table II.27.16), for the baseline's held-out measurement set
card poynting "Energy flux of a plane wave" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.27.16"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  input  Ef [V/m] in 100.0 .. 1000.0  "field"
  output S [W/m^2] tolerance abs 1e-30 rel 1%  "flux"

  param n = 2  "field exponent"
  param k0 = 1 [1]  "unit carrier"
  law S = k0 * (eps * c * Ef^n)

  counterfactual "cubic field" {
    set n = 3
    rebalance k0 at Ef = 550 [V/m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
