# Light transmitted through a polariser-analyser pair versus the angle between them (Malus's law)
card malus "Malus's law for a polariser and an analyser at an angle" {
  collection historical
  field      physics
  source     "E. L. Malus, Mém. Phys. Chim. Soc. d'Arcueil 2, 143 (1809)"

  background """
    A monochromatic laser beam passes through a first polariser, so that it
    leaves fully linearly polarised with a power that can be set. It then
    crosses a second polariser (the analyser) mounted on a graduated
    rotation stage. A photodiode power meter behind the analyser reads
    the transmitted power as the analyser is turned away from the
    orientation of the first polariser.
  """
  conditions "beam fully linearly polarised before the analyser"
  conditions "normal incidence; no stray light reaching the detector"

  input  P0    [mW]  in 0.5 .. 5  "power of the polarised beam reaching the analyser"
  input  theta [deg] in 0 .. 90   "angle between the analyser axis and the polarisation direction"
  output P     [mW]  resolution 0.001 tolerance abs 0.002 rel 1%  "transmitted power"

  param t = 0.9  "analyser transmittance for light polarised along its axis"

  law P = t * P0 * cos(theta)^2

  # mutation kind: replaced law
  # worlds: counterfactual / original output ratio over the evaluation set
  #   P: min 1, median 1.5, max 680
  counterfactual "replaced law: transmission follows the amplitude projection" {
    law P = t * P0 * cos(theta)
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
