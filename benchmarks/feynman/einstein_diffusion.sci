# Diffusion constant (Feynman table I.43.31), for the baseline's measurement set
card einstein_diffusion "Diffusion constant" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.43.31"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  mu [s/kg] in 10000000000.0 .. 100000000000.0  "mobility"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 250.0 .. 400.0  "temperature"
  output D [m^2/s] tolerance abs 1e-30 rel 1%  "diffusion constant"

  param k = 1  "scale"
  law D = k * mu * kb * T

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
