# Density of an isothermal atmosphere (Feynman table I.40.1), for the baseline's measurement set
card atmosphere "Density of an isothermal atmosphere" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.40.1"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  n0 [1/m^3] in 1e+24 .. 1e+25  "density at the ground"
  input  m [kg] in 4e-26 .. 6e-26  "molecular mass"
  input  g [m/s^2] in 9.0 .. 10.0  "gravity"
  input  x [m] in 100.0 .. 5000.0  "height"
  input  kb [J/K] in 1.3e-23 .. 1.4e-23  "Boltzmann constant"
  input  T [K] in 250.0 .. 300.0  "temperature"
  output n [1/m^3] tolerance abs 1e-30 rel 1%  "density"

  param k = 1  "scale"
  law n = n0 * exp(-k * m * g * x / (kb * T))

  counterfactual "stronger" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
