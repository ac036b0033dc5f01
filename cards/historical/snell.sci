# Angle of refraction of light entering glass from air versus angle of incidence (Snell's law)
card snell "Snell's law of refraction" {
  collection historical
  field      physics
  source     "R. Descartes, La Dioptrique (1637); W. Snellius, unpublished manuscript (1621)"

  background """
    A narrow beam of monochromatic light in air strikes the flat face of a
    thick semicircular glass block at the centre of its flat side. The
    block stands on a protractor table; the angle of incidence is set by
    turning the table, and the angle of the refracted beam inside the
    glass is read on the same protractor, both measured from the normal
    to the flat face.
  """
  conditions "monochromatic light; isotropic homogeneous glass"
  conditions "beam enters through the flat face at its centre"

  input  theta1 [deg] in 0 .. 80  "angle of incidence in air, from the normal"
  output theta2 [deg] resolution 0.01 tolerance abs 0.05 rel 0.5%  "angle of refraction in the glass, from the normal"

  param n1 = 1.000  "refractive index of air"
  param n2 = 1.50   "refractive index of the glass"

  law theta2 = asin(n1 * sin(theta1) / n2)

  # mutation kind: replaced law
  # worlds: counterfactual / original output ratio over the evaluation set
  #   theta2: min 1, median 1.2, max 1.8
  counterfactual "replaced law: tangent law of refraction" {
    law theta2 = atan(n1 * tan(theta1) / n2)
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
