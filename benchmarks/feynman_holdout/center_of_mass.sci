# Centre of mass of two bodies (Feynman table I.18.4), for the baseline's held-out measurement set
card center_of_mass "Centre of mass of two bodies" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.18.4"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  m1 [kg] in 1.0 .. 5.0  "mass 1"
  input  m2 [kg] in 1.0 .. 5.0  "mass 2"
  input  r1 [m] in 0.0 .. 1.0  "position 1"
  input  r2 [m] in 2.0 .. 3.0  "position 2"
  output r [m] tolerance abs 1e-30 rel 1%  "centre of mass"

  param n = 1  "mass exponent"
  law r = (m1^n * r1 + m2^n * r2) / (m1^n + m2^n)

  counterfactual "weighted by squared mass" {
    set n = 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
