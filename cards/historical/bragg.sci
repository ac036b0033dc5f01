# Glancing angle of strong X-ray reflection from a rock-salt crystal (Bragg's law)
card bragg "Bragg reflection of X-rays by a crystal" {
  collection historical
  field      optics
  source     "W. H. Bragg, W. L. Bragg, The reflection of X-rays by crystals, Proc. R. Soc. Lond. A 88, 428 (1913)"

  background """
    A collimated beam of monochromatic X-rays strikes the cleavage face of
    a rock-salt crystal mounted on the table of an X-ray spectrometer. The
    crystal is turned slowly while an ionisation chamber on the arm
    follows at twice its angle. As the glancing angle between the beam and
    the face grows from zero, sharp peaks of reflected intensity appear,
    numbered in order of increasing angle. For a chosen wavelength and
    peak number the spectrometer reports the glancing angle of that peak.
  """
  conditions "monochromatic X-rays; perfect crystal with the cleavage face parallel to the reflecting planes"
  conditions "refraction of X-rays in the crystal negligible"

  # every peak of the domain exists in both worlds (n * wl <= 540 pm < 2 d = 564 pm),
  # so no constraint is needed, and none shows players the combination n wl / 2d
  input  wl    [pm]  in 50 .. 180       "X-ray wavelength"
  input  n           integer in 1 .. 3  "peak number, counted from the smallest angle"
  output theta [deg] resolution 0.01 tolerance abs 0.02 rel 0.5%  "glancing angle of the peak"

  param d = 282 [pm]  "spacing of the reflecting planes"

  law theta = asin(n * wl / (2 * d))

  # mutation kind: replaced law. The tangent of the glancing angle, not its sine, grows
  # in proportion to the peak number and the wavelength: small angles agree, and the
  # high orders of long wavelengths come out at markedly smaller angles.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   theta: min 0.6, median 0.93, max 1
  counterfactual "replaced law: the tangent of the glancing angle grows with peak number and wavelength" {
    law theta = atan(n * wl / (2 * d))
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
