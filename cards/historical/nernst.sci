# Potential across an ion-selective membrane versus the ion concentrations on its two sides (Nernst equation)
card nernst "Nernst potential of an ion-selective membrane" {
  collection historical
  field      chemistry
  source     "W. Nernst, Die elektromotorische Wirksamkeit der Ionen, Z. Phys. Chem. 4, 129 (1889)"

  background """
    A thin membrane that lets only one kind of ion through separates two
    stirred salt solutions in a cell thermostatted at 298 K. The charge
    number of the permeant ion is chosen by changing the salt and the
    matching membrane. The concentration of the ion on each side can be
    set. Two identical reference electrodes, one in each compartment,
    feed a high-impedance voltmeter that reports the potential of the
    inner compartment relative to the outer one once it is steady.
  """
  conditions "dilute solutions: activities equal to concentrations"
  conditions "no current drawn; liquid-junction potentials cancelled"

  input  z          in {1, 2, 3}     "charge number of the permeant ion"
  input  c_out [mM] in log 1 .. 100  "concentration in the outer compartment"
  input  c_in  [mM] in log 1 .. 100  "concentration in the inner compartment"
  output E     [mV] resolution 0.01 tolerance abs 0.05 rel 1%  "potential of the inner compartment"

  param R    = 8.314 [J/(mol*K)]  "molar gas constant"
  param T    = 298.15 [K]         "cell temperature"
  param F    = 96485 [C/mol]      "charge per mole of elementary charges"
  param leak = 0                  "relative permeability of the counter-ion path"

  law E = R * T / (z * F) * log((c_out + leak * c_in) / (c_in + leak * c_out))

  # mutation kind: interaction term switched on
  # worlds: counterfactual / original output ratio over the evaluation set
  #   E: min 0.64, median 0.88, max 0.9
  counterfactual "interaction term switched on: a leak mixes the two concentrations" {
    set leak = 0.05
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 64
}
