# Absorbance of a dye solution versus concentration and path length (Beer-Lambert law)
card beer_lambert "Beer-Lambert law of light absorption" {
  collection historical
  field      chemistry
  source     "A. Beer, Bestimmung der Absorption des rothen Lichts in farbigen Fluessigkeiten, Ann. Phys. Chem. 86, 78 (1852); J. H. Lambert, Photometria, Augsburg (1760)"

  background """
    A solution of a blue dye in water, made up to a chosen concentration
    from a stock solution, is poured into a quartz cuvette chosen from a
    set of standard path lengths. A single-beam spectrophotometer at the
    dye's absorption maximum, zeroed on a cuvette of pure water of the
    same path length, reports the absorbance (the decadic logarithm of
    the ratio of incident to transmitted intensity).
  """
  conditions "monochromatic light; no scattering or fluorescence"
  conditions "fixed temperature and solvent; stray light negligible"

  input  c [uM] in 1 .. 50               "dye concentration"
  input  l [cm] in {0.1, 0.2, 0.5, 1.0}  "path length of the cuvette"
  output A [1]  resolution 0.001 tolerance abs 0.005 rel 1%  "absorbance"

  param eps = 2.0e4 [L/(mol*cm)]  "molar absorptivity of the dye"
  param kd  = 0 [1/uM]            "rise of absorptivity per unit concentration"

  law A = eps * l * c * (1 + kd * c)

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   A: min 1, median 1.3, max 1.5
  counterfactual "interaction term switched on: dye aggregates absorb more strongly" {
    set kd = 0.01 [1/uM]
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
