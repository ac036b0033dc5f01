# Velocity of an electron in a lattice (Feynman table III.13.18), for the baseline's held-out measurement set
card lattice_velocity "Velocity of an electron in a lattice" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. III.13.18"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  E [J] in 1e-20 .. 1e-19  "coupling energy"
  input  d [m] in 1e-10 .. 5e-10  "spacing"
  input  k [1/m] in 100000000.0 .. 1000000000.0  "wavenumber"
  input  h [J*s] in 6e-34 .. 7e-34  "Planck constant"
  output v [m/s] tolerance abs 1e-30 rel 1%  "velocity"

  param n = 2  "spacing exponent"
  param k0 = 1 [1]  "unit carrier"
  law v = k0 * (2 * E * d^n * k / (h / (2 * pi)))

  counterfactual "cubic spacing" {
    set n = 3
    rebalance k0 at d = 3e-10 [m]
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
