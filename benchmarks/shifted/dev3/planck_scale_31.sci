# Spectral radiance of a hot body: a shifted textbook law (scale), for the baseline's third development set
card planck_scale_31 "Spectral radiance of a hot body" {
  collection historical
  field      physics
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  lam [um] in 1 .. 10  "wavelength"
  input  T [K] in 500 .. 1500  "temperature"
  output B [W/(m^2*um)] tolerance abs 1e-3 rel 1%  "spectral radiance per steradian"

  param h = 6.626e-34 [J*s]  "Planck constant"
  param c = 2.998e8 [m/s]  "speed of light"
  param kB = 1.381e-23 [J/K]  "Boltzmann constant"
  law B = 2 * h * c^2 / lam^5 / (exp(h * c / (lam * kB * T)) - 1)

  # mutation kind: scale
  counterfactual "a temperature offset in the exponent (38)" {
    law B = 2 * h * c^2 / lam^5 / (exp(h * c / (lam * kB * (T + (38 [K])))) - 1)
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
