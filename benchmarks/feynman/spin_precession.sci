# Spin precession frequency (Feynman table III.7.38), for the baseline's measurement set
card spin_precession "Spin precession frequency" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.7.38"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [J/T] in 1e-26 .. 1e-25  "moment"
  input  B [T] in 1.0 .. 10.0  "field"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  output omega [rad/s] tolerance abs 1e-30 rel 1%  "frequency"

  param k = 1  "scale"
  law omega = k * 4 * pi * mu * B / h

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
