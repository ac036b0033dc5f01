# Force on a moving charge (Feynman table I.12.11), for the baseline's measurement set
card lorentz_force "Force on a moving charge" {
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. I.12.11"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

  input  q [C] in 1e-06 .. 1e-05  "charge"
  input  Ef [V/m] in 100.0 .. 1000.0  "electric field"
  input  B [T] in 0.1 .. 1.0  "magnetic field"
  input  v [m/s] in 100.0 .. 1000.0  "speed"
  input  theta [rad] in 0.2 .. 1.4  "angle"
  output F [N] tolerance abs 1e-30 rel 1%  "force"

  param k = 1  "coupling"
  law F = q * (Ef + k * B * v * sin(theta))

  counterfactual "stronger magnetic part" {
    scale k by 1.5
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
