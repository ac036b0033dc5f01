# Decline of the activity of thorium emanation with time (radioactive decay law)
card radioactive_decay "Radioactive decay of thorium emanation" {
  collection historical
  field      physics
  source     "E. Rutherford, Phil. Mag. 49, 1 (1900)"

  background """
    A sample of the gas given off by thorium compounds is swept into a
    closed ionisation chamber and the supply is cut off at time zero. A
    counter attached to the chamber reports the count rate due to the
    sample at a chosen time after the cut-off, background subtracted.
  """
  conditions "a single pure radioactive species; no parent present after time zero"
  conditions "counter dead time and background corrections already applied"

  input  t [s]   in 0 .. 300  "time elapsed since the supply was cut off"
  output R [1/s] resolution 0.01 tolerance abs 0.05 rel 1%  "count rate"

  param R0    = 500 [1/s]  "count rate at time zero"
  param thalf = 55.6 [s]   "characteristic time of the decline"

  law R = R0 * 2^(-t / thalf)

  # mutation kind: replaced law
  # worlds: counterfactual / original output ratio over the evaluation set
  #   R: min 0.94, median 1.8, max 6.5
  counterfactual "replaced law: hyperbolic decline" {
    law R = R0 / (1 + t / thalf)
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
