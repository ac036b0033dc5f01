# Magnetic field near a wire: a shifted textbook law (exponent), for the baseline's third development set
card wire_exponent_02 "Magnetic field near a wire" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  I [A] in 1 .. 20  "current"
  input  r [cm] in 1 .. 10  "distance"
  output B [uT] tolerance abs 1e-5 rel 1%  "magnetic field"

  param mu0 = 1.2566e-6 [T*m/A]  "magnetic constant"
  law B = mu0 * I / (2 * pi * r)

  # mutation kind: exponent
  counterfactual "distance exponent (0.3)" {
    law B = mu0 * I / (2 * pi * r^(0.3))
    rebalance mu0 at I = 10.5 [A], r = 5.5 [cm]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
