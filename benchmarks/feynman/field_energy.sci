# Energy density of an electric field (Feynman table II.8.31), for the baseline's measurement set
card field_energy "Energy density of an electric field" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. II.8.31"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  eps [F/m] in 8e-12 .. 1e-11  "permittivity"
  input  Ef [V/m] in 100.0 .. 1000.0  "field"
  output u [J/m^3] tolerance abs 1e-30 rel 1%  "energy density"

  param a = 0.5  "factor"
  law u = a * eps * Ef^2

  counterfactual "doubled" {
    scale a by 2
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
