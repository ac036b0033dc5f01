# Concentration of a drug after a dose: a shifted textbook law (scale), for the baseline's third development set
card drug_scale_24 "Concentration of a drug after a dose" {
  collection historical
  field      biology
  source     "scigame benchmarks/shifted/generate.py, seed 5309: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

  input  t [h] in 0.5 .. 24  "time since the dose"
  input  D [mg] in 100 .. 500  "dose"
  output C [mg/L] tolerance abs 1e-4 rel 1%  "plasma concentration"

  param Vd = 40 [L]  "volume of distribution"
  param ka = 1.2 [1/h]  "absorption rate"
  param ke = 0.15 [1/h]  "elimination rate"
  law C = D / Vd * ka / (ka - ke) * (exp(-ke * t) - exp(-ka * t))

  # mutation kind: scale
  counterfactual "a lag before absorption (0.39)" {
    law C = D / Vd * ka / (ka - ke) * (exp(-ke * (t - (0.39 [h]))) - exp(-ka * (t - (0.39 [h]))))
  }

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
