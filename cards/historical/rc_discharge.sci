# Voltage and current of a capacitor discharging through a resistor (RC discharge)
card rc_discharge "Discharge of a capacitor through a resistor" {
  collection historical
  field      electromagnetism
  source     "W. Thomson, On transient electric currents, Phil. Mag. 5, 393 (1853)"

  background """
    A film capacitor is charged from a 5 V reference supply. At time zero a
    relay disconnects the supply and connects the capacitor across a
    precision resistor chosen from a decade box. A digital oscilloscope
    records the voltage across the capacitor and, through a small sense
    resistor, the current in the loop; both are read at a chosen delay
    after the relay switches.
  """
  conditions "relay bounce, leakage and dielectric absorption negligible"
  conditions "oscilloscope input impedance far above the decade resistance"

  input  t [ms]   in 0 .. 20  "delay after the relay switches"
  input  R [kohm] in 2 .. 20  "resistance of the decade box"
  output V [V]    resolution 0.001 tolerance abs 0.005 rel 1%  "voltage across the capacitor"
  output I [mA]   resolution 0.001 tolerance abs 0.002 rel 1%  "current in the loop"

  param V0 = 5 [V]   "voltage at time zero"
  param C  = 1 [uF]  "capacitance"

  let u = V0 * exp(-t / (R * C))
  law V = u
  law I = u / R

  # mutation kind: parameter scaling
  # worlds: counterfactual / original output ratio over the evaluation set
  #   V: min 0.18, median 0.8, max 1
  #   I: min 0.18, median 0.8, max 1
  counterfactual "parameter scaling: capacitance reduced to 0.8" {
    scale C by 0.8
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
