# Wavenumber in a waveguide (Feynman table II.24.17), for the baseline's held-out measurement set
card waveguide "Wavenumber in a waveguide" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.24.17"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  omega [rad/s] in 15000000000.0 .. 50000000000.0  "angular frequency"
  input  c [m/s] in 290000000.0 .. 310000000.0  "speed of light"
  input  d [m] in 0.1 .. 0.2  "guide width"
  output k [1/m] tolerance abs 1e-30 rel 1%  "wavenumber"

  param s = 1  "scale"
  law k = sqrt(omega^2 / c^2 - s * pi^2 / d^2)

  counterfactual "stronger cutoff" {
    scale s by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
