# Response of an anharmonic oscillator (Feynman table I.50.26), for the baseline's held-out measurement set
card anharmonic "Response of an anharmonic oscillator" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.50.26"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  x1 [m] in 1.0 .. 5.0  "amplitude"
  input  omega [rad/s] in 1.0 .. 5.0  "frequency"
  input  t [s] in 1.0 .. 5.0  "time"
  input  alpha [1] in 0.1 .. 0.9  "anharmonicity"
  output x [m] tolerance abs 1e-30 rel 1%  "displacement"

  param n = 2  "exponent"
  law x = x1 * (cos(omega * t) + alpha * cos(omega * t)^n)

  counterfactual "cubic term" {
    set n = 3
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
