# Energy of a moment in a magnetisable medium (Feynman table II.37.1), for the baseline's held-out measurement set
card magnetic_energy "Energy of a moment in a magnetisable medium" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.37.1"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [J/T] in 1e-24 .. 1e-23  "moment"
  input  chi [1] in 0.1 .. 5.0  "susceptibility"
  input  B [T] in 0.1 .. 1.0  "field"
  output E [J] tolerance abs 1e-30 rel 1%  "energy"

  param k = 1  "scale"
  law E = mu * (1 + k * chi) * B

  counterfactual "stronger medium" {
    scale k by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
