# Air pressure versus height in a column of air at one temperature (barometric formula)
card barometric "Barometric formula for an isothermal atmosphere" {
  collection historical
  field      earth_science
  source     "P.-S. Laplace, Traite de mecanique celeste, tome IV, livre X, Courcier, Paris (1805)"

  background """
    On calm days a radiosonde on a tethered balloon is raised above a
    coastal station whose barometer reads the standard sea-level
    pressure. Days are chosen when the air below the balloon has nearly
    the same temperature at every height, and that temperature is
    measured along the tether. The sonde's calibrated aneroid sensor
    reports the pressure at a chosen height above sea level.
  """
  conditions "dry, still air at one uniform temperature below the sonde"
  conditions "sea-level pressure the same on every day used"

  # a tethered sonde reaches 1.5 km; sea-level air at a coastal station is -8 to 32 C
  input  h [m]   in 0 .. 1500   "height above sea level"
  input  T [K]   in 265 .. 305  "temperature of the air column"
  output p [hPa] resolution 0.1 tolerance abs 0.2 rel 0.5%  "air pressure at the sonde"

  param p0 = 1013.25 [hPa]      "sea-level pressure"
  param Ma = 0.02896 [kg/mol]   "molar mass of air"
  param g  = 9.81 [m/s^2]       "gravitational acceleration"
  param R  = 8.314 [J/(mol*K)]  "molar gas constant"

  law p = p0 * exp(-Ma * g * h / (R * T))

  # mutation kind: parameter scaling
  # worlds: counterfactual / original output ratio over the evaluation set
  #   p: min 0.96, median 0.98, max 1
  counterfactual "parameter scaling: molar mass of air raised by 1.2" {
    scale Ma by 1.2
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
