# Angle of refraction of light leaving glass into air versus angle of incidence (Snell's law),
# over the whole quarter circle: beyond the critical angle there is no refracted ray (`where`)
card snell "Snell's law of refraction" {
  collection historical
  field      physics
  source     "R. Descartes, La Dioptrique (1637); W. Snellius, unpublished manuscript (1621)"

  background """
    A narrow beam of monochromatic light enters a thick semicircular glass
    block through its curved side, aimed at the centre of its flat face,
    and leaves the glass through the flat face into air. The block stands
    on a protractor table; the angle of incidence inside the glass is set
    by turning the table, and the angle of the beam leaving into the air
    is read on the same protractor, both measured from the normal to the
    flat face. At some settings no beam leaves through the flat face.
  """
  conditions "monochromatic light; isotropic homogeneous glass"
  conditions "beam leaves through the flat face at its centre"

  input  theta1 [deg] in 0 .. 90  "angle of incidence in the glass, from the normal"
  output theta2 [deg] resolution 0.01 tolerance abs 0.05 rel 0.5%  "angle of refraction in the air, from the normal"

  param n1 = 1.50   "refractive index of the glass"
  param n2 = 1.000  "refractive index of air"

  law theta2 = asin(n1 * sin(theta1) / n2) where n1 * sin(theta1) <= n2 "total internal reflection: no refracted ray"

  # mutation kind: replaced law
  # worlds: counterfactual / original output ratio over the evaluation set
  #   theta2: min 0.65, median 0.93, max 1
  #   (the tangent law refracts at every angle: only the original world refuses
  #   experiments past the critical angle, and hidden points lie below it)
  counterfactual "replaced law: tangent law of refraction" {
    law theta2 = atan(n1 * tan(theta1) / n2)
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
