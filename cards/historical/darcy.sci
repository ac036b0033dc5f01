# Discharge of water through a saturated sand column (Darcy's law)
card darcy "Darcy's law of flow through porous media" {
  collection historical
  field      earth_science
  source     "H. Darcy, Les Fontaines publiques de la ville de Dijon, Victor Dalmont, Paris (1856)"

  background """
    A vertical cylinder packed with clean, saturated river sand is fed with
    water at the top and drains at the bottom. Constant-level reservoirs
    hold a chosen difference of hydraulic head between the inlet and the
    outlet. The length of the sand column and its cross-sectional area can
    be changed between runs. The steady discharge is collected in a
    graduated cylinder and timed.
  """
  conditions "steady, slow, laminar flow through fully saturated sand"
  conditions "homogeneous packing; water at constant temperature"

  input  dh [cm]     in 5 .. 100   "head difference between inlet and outlet"
  input  L  [cm]     in 20 .. 200  "length of the sand column"
  input  A  [cm^2]   in 10 .. 100  "cross-sectional area of the column"
  output Q  [mL/min] resolution 0.01 tolerance abs 0.05 rel 1%  "steady volumetric discharge"

  param K = 1e-4 [m/s]  "hydraulic conductivity of the sand"

  law Q = K * A * dh / L

  # mutation kind: parameter scaling
  # worlds: counterfactual / original output ratio over the evaluation set
  #   Q: min 1.2, median 1.2, max 1.2
  counterfactual "parameter scaling: conductivity raised by 1.2" {
    scale K by 1.2
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
