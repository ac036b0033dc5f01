# Yearly number of earthquakes above a magnitude in a region (Gutenberg-Richter law)
card gutenberg_richter "Gutenberg-Richter frequency-magnitude relation" {
  collection historical
  field      earth_science
  source     "B. Gutenberg, C. F. Richter, Frequency of earthquakes in California, Bull. Seismol. Soc. Am. 34, 185 (1944)"

  background """
    A regional seismic network has recorded a long, complete catalogue of
    shallow earthquakes in a tectonically uniform province. A circular
    counting region of chosen area is drawn inside the province and a
    threshold magnitude on the local scale is chosen. The catalogue
    reports the mean number of earthquakes per year inside the region
    whose magnitude is at or above the threshold.
  """
  conditions "catalogue complete above the smallest threshold used"
  conditions "seismicity uniform in space and steady in time across the province"

  input  M [1]    in 2.5 .. 7        "threshold magnitude"
  input  S [km^2] in log 1e3 .. 1e5  "area of the counting region"
  output N [1/yr] resolution 0.0001 tolerance abs 0.001 rel 5%  "yearly number of events at or above the threshold"

  param rho = 2.5 [1/(yr*km^2)]  "areal rate scale"
  param b   = 1.0                "magnitude coefficient"

  law N = rho * S * 10^(-b * M)

  # mutation kind: exponent change (b is the exponent of 10^-M). `rho` takes the value
  # that gives both worlds the same rate at magnitude 4.5.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   N: min 0.18, median 0.76, max 3.9
  counterfactual "exponent change: b-value raised to 1.3" {
    set b = 1.3
    rebalance rho at M = 4.5
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
