# Position and size of the real image formed by a thin converging lens (thin lens formula)
card thin_lens "Thin lens formula for a converging lens" {
  collection historical
  field      optics
  source     "E. Halley, An instance of the excellence of the modern algebra, in the resolution of the problem of finding the foci of optick glasses universally, Phil. Trans. R. Soc. 17, 960 (1693)"

  background """
    An illuminated arrow cut into a card serves as the object on an optical
    bench. A thin biconvex glass lens, chosen from a set of lenses whose
    focal lengths were found beforehand by focusing a distant street lamp,
    stands at a chosen distance from the object. A white screen behind the
    lens is slid along the bench until the image is sharpest; the distance
    from the lens to the screen is read on the bench scale, and the height
    of the image is compared with the height of the arrow (a negative
    ratio meaning the image is upside down).
  """
  conditions "thin lens, paraxial rays, monochromatic light"
  conditions "the object stays far enough out that the image lands on the bench"

  input  d_o    [cm] in 15 .. 100  "distance from the object to the lens"
  input  f_lens [cm] in 5 .. 20    "focal length of the lens"
  output d_i    [cm] resolution 0.1 tolerance abs 0.2 rel 1%      "distance from the lens to the sharp image"
  output m      [1]  resolution 0.001 tolerance abs 0.005 rel 1%  "image height divided by object height"

  constraint d_o > 1.5 * f_lens  "the image would fall beyond the end of the bench"

  let di = f_lens * d_o / (d_o - f_lens)
  law d_i = di
  law m = -di / d_o

  # mutation kind: replaced law
  # worlds: counterfactual / original output ratio over the evaluation set
  #   d_i: min 0.47, median 0.8, max 0.94
  #   m: min 0.47, median 0.8, max 0.94
  counterfactual "replaced law: inverse squares of the distances add up" {
    let di = f_lens * d_o / sqrt(d_o^2 - f_lens^2)
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
