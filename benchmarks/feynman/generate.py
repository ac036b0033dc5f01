"""Writes benchmarks/feynman/*.sci from the table C and benchmarks/feynman_holdout/*.sci
from the table HOLDOUT below (run from the repository root; the cards are committed, see
the README.md beside each folder). HOLDOUT is the held-out set: the baseline is never
developed or tuned on it."""
from pathlib import Path
OUT = Path("benchmarks/feynman")
OUT_HOLDOUT = Path("benchmarks/feynman_holdout")
# name, id, title, [inputs: (name, unit, lo, hi, desc)], (out, unit, desc[, abs tolerance, default 1e-30]), law, [params: (name, value, unit, desc)], cf (label, body)
C = [
("gaussian_std", "I.6.2a", "Standard normal density", [("theta","1",-3,3,"standardised deviation")], ("f","1","probability density"),
 "exp(-theta^2 / a) / sqrt(2 * pi)", [("a","2","","width parameter")], ("width doubled", "scale a by 2")),
("gaussian", "I.6.2", "Normal density with a width", [("theta","1",-3,3,"deviation"),("sigma","1",1,3,"width")], ("f","1","probability density"),
 "exp(-(theta/sigma)^2 / a) / (sqrt(2 * pi) * sigma)", [("a","2","","width parameter")], ("width doubled", "scale a by 2")),
("distance", "I.8.14", "Distance between two points in a plane", [("x1","m",0,1,"x of point 1"),("x2","m",2,3,"x of point 2"),("y1","m",0,1,"y of point 1"),("y2","m",2,3,"y of point 2")], ("d","m","distance"),
 "((x2 - x1)^n + (y2 - y1)^n)^(1/n)", [("n","2","","norm exponent")], ("taxicab-like norm", "set n = 3")),
("relativistic_mass", "I.10.7", "Relativistic mass", [("m0","kg",1,5,"rest mass"),("v","m/s",1e7,2e8,"speed")], ("m","kg","moving mass"),
 "m0 / sqrt(1 - (v/c)^2)", [("c","2.998e8","m/s","speed of light")], ("slower light", "scale c by 0.8")),
("friction", "I.12.1", "Sliding friction", [("mu","1",0.1,0.9,"friction coefficient"),("Nn","N",1,100,"normal force")], ("F","N","friction force"),
 "k * mu * Nn", [("k","1","","scale")], ("stronger friction", "scale k by 1.3")),
("coulomb", "I.12.2", "Coulomb's law", [("q1","C",1e-6,1e-5,"charge 1"),("q2","C",1e-6,1e-5,"charge 2"),("eps","F/m",8e-12,1e-11,"permittivity"),("r","m",0.1,1,"distance")], ("F","N","force"),
 "q1 * q2 / (4 * pi * eps * r^n)", [("n","2","","distance exponent")], ("inverse cube", "set n = 3\n    rebalance k0"), [("k0","1","1","")]),
("coulomb_field", "I.12.4", "Field of a point charge", [("q1","C",1e-6,1e-5,"charge"),("eps","F/m",8e-12,1e-11,"permittivity"),("r","m",0.1,1,"distance")], ("E","V/m","field strength"),
 "q1 / (4 * pi * eps * r^n)", [("n","2","","distance exponent")], ("inverse cube", "set n = 3\n    rebalance k0"), [("k0","1","1","")]),
("lorentz_force", "I.12.11", "Force on a moving charge", [("q","C",1e-6,1e-5,"charge"),("Ef","V/m",100,1000,"electric field"),("B","T",0.1,1,"magnetic field"),("v","m/s",100,1000,"speed"),("theta","rad",0.2,1.4,"angle")], ("F","N","force"),
 "q * (Ef + k * B * v * sin(theta))", [("k","1","","coupling")], ("stronger magnetic part", "scale k by 1.5")),
("kinetic_energy", "I.13.4", "Kinetic energy in three components", [("m","kg",1,5,"mass"),("v","m/s",1,5,"x speed"),("u","m/s",1,5,"y speed"),("w","m/s",1,5,"z speed")], ("K","J","kinetic energy"),
 "a * m * (v^2 + u^2 + w^2)", [("a","0.5","","factor")], ("doubled factor", "scale a by 2")),
("potential_height", "I.14.3", "Potential energy near the ground", [("m","kg",1,10,"mass"),("g","m/s^2",9,10,"gravity"),("z","m",1,10,"height")], ("U","J","energy"),
 "m * g * z^n", [("n","1","","height exponent")], ("quadratic height", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("spring_energy", "I.14.4", "Energy stored in a spring", [("k","N/m",10,100,"spring constant"),("x","m",0.01,0.1,"extension")], ("U","J","energy"),
 "k * x^n / 2", [("n","2","","extension exponent")], ("cubic spring", "set n = 3\n    rebalance k0"), [("k0","1","1","")]),
("rel_momentum", "I.15.10", "Relativistic momentum", [("m0","kg",1,5,"rest mass"),("v","m/s",1e7,2e8,"speed"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("p","kg*m/s","momentum"),
 "m0 * v / (1 - (v/c)^2)^a", [("a","0.5","","exponent")], ("full power", "set a = 1")),
("velocity_addition", "I.16.6", "Relativistic addition of velocities", [("u","m/s",1e7,1e8,"speed 1"),("v","m/s",1e7,1e8,"speed 2"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("w","m/s","combined speed"),
 "(u + v) / (1 + k * u * v / c^2)", [("k","1","","coupling")], ("stronger coupling", "scale k by 3")),
("torque", "I.18.12", "Torque of a force", [("r","m",0.1,1,"lever arm"),("F","N",1,10,"force"),("theta","rad",0.2,1.4,"angle")], ("tau","N*m","torque"),
 "r * F * sin(theta)^n", [("n","1","","sine exponent")], ("squared sine", "set n = 2")),
("angular_momentum", "I.18.14", "Angular momentum", [("m","kg",1,5,"mass"),("r","m",0.1,1,"radius"),("v","m/s",1,5,"speed"),("theta","rad",0.2,1.4,"angle")], ("L","kg*m^2/s","angular momentum"),
 "m * r * v * sin(theta)^n", [("n","1","","sine exponent")], ("squared sine", "set n = 2")),
("oscillator_energy", "I.24.6", "Energy of a driven oscillator", [("m","kg",1,5,"mass"),("omega","rad/s",1,5,"drive frequency"),("omega0","rad/s",1,5,"natural frequency"),("x","m",0.1,1,"amplitude")], ("E","J","energy"),
 "a * m * (omega^2 + omega0^2) * x^2", [("a","0.25","","factor")], ("doubled factor", "scale a by 2")),
("capacitor_voltage", "I.25.13", "Voltage of a capacitor", [("q","C",1e-6,1e-5,"charge"),("C","F",1e-6,1e-5,"capacitance")], ("V","V","voltage"),
 "q^n / C", [("n","1","","charge exponent")], ("quadratic charge law", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("snell_feynman", "I.26.2", "Refraction", [("n","1",1.1,1.5,"index"),("theta2","rad",0.1,0.6,"angle inside")], ("theta1","rad","angle outside"),
 "asin(k * n * sin(theta2))", [("k","1","","scale")], ("weaker index", "scale k by 0.8")),
("lens_combination", "I.27.6", "Focal length of a thick lens", [("d1","m",0.1,1,"distance 1"),("d2","m",0.1,1,"distance 2"),("n","1",1.1,1.5,"index")], ("f","m","focal length"),
 "1 / (1/d1 + k * n / d2)", [("k","1","","scale")], ("stronger second face", "scale k by 2")),
("wavenumber", "I.29.4", "Wavenumber of light", [("omega","rad/s",1e15,5e15,"angular frequency"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("k","1/m","wavenumber"),
 "omega^n / c", [("n","1","","frequency exponent")], ("other exponent", "set n = 1.1\n    rebalance k0"), [("k0","1","1","")]),
("interference_sum", "I.29.16", "Sum of two waves", [("x1","m",1,2,"amplitude 1"),("x2","m",1,2,"amplitude 2"),("theta1","rad",0,1,"phase 1"),("theta2","rad",2,3,"phase 2")], ("x","m","resultant"),
 "sqrt(x1^2 + x2^2 - k * x1 * x2 * cos(theta1 - theta2))", [("k","2","","cross factor")], ("weaker cross term", "scale k by 0.5")),
("diffraction", "I.30.5", "Angle of a diffraction minimum", [("lam","m",4e-7,7e-7,"wavelength"),("n","1",1,3,"order"),("d","m",2e-6,5e-6,"slit width")], ("theta","rad","angle"),
 "asin(k * lam / (n * d))", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("larmor", "I.32.5", "Larmor power of an accelerated charge", [("q","C",1e-6,1e-5,"charge"),("a","m/s^2",1e5,1e6,"acceleration"),("eps","F/m",8e-12,1e-11,"permittivity"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("P","W","power"),
 "k * q^2 * a^2 / (6 * pi * eps * c^3)", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("cyclotron", "I.34.8", "Cyclotron frequency", [("q","C",1e-6,1e-5,"charge"),("v","m/s",10,100,"speed"),("B","T",0.1,1,"field"),("p","kg*m/s",1e-5,1e-4,"momentum")], ("omega","rad/s","frequency"),
 "k * q * v * B / p", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("doppler", "I.34.10", "Doppler shift of a moving source", [("omega0","rad/s",1,5,"emitted frequency"),("v","m/s",1e7,1e8,"speed"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("omega","rad/s","observed frequency"),
 "omega0 / (1 - k * v / c)", [("k","1","","scale")], ("stronger", "scale k by 2")),
("photon_energy", "I.34.27", "Photon energy", [("h","J*s",6e-34,7e-34,"Planck constant"),("omega","rad/s",1e15,5e15,"angular frequency")], ("E","J","energy"),
 "h * omega / (2 * pi)^n", [("n","1","","exponent")], ("other", "set n = 2")),
("interference", "I.37.4", "Intensity of two interfering beams", [("I1","W/m^2",1,5,"intensity 1"),("I2","W/m^2",1,5,"intensity 2"),("delta","rad",0,3,"phase difference")], ("I","W/m^2","intensity"),
 "I1 + I2 + k * sqrt(I1 * I2) * cos(delta)", [("k","2","","cross factor")], ("weaker", "scale k by 0.5")),
("ideal_gas_feynman", "I.39.22", "Pressure of an ideal gas", [("n","1",1e22,1e23,"number of molecules"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",250,400,"temperature"),("V","m^3",1e-3,1e-2,"volume")], ("P","Pa","pressure"),
 "n * kb * T / V^a", [("a","1","","volume exponent")], ("other", "set a = 2\n    rebalance k0"), [("k0","1","1","")]),
("atmosphere", "I.40.1", "Density of an isothermal atmosphere", [("n0","1/m^3",1e24,1e25,"density at the ground"),("m","kg",4e-26,6e-26,"molecular mass"),("g","m/s^2",9,10,"gravity"),("x","m",100,5000,"height"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",250,300,"temperature")], ("n","1/m^3","density"),
 "n0 * exp(-k * m * g * x / (kb * T))", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("mobility", "I.43.16", "Drift velocity", [("mu","m^2/(V*s)",0.01,0.1,"mobility"),("q","1",1,3,"charge number"),("Ve","V",1,10,"voltage"),("d","m",0.01,0.1,"distance")], ("v","m/s","drift velocity"),
 "mu * q * Ve / d^n", [("n","1","","exponent")], ("other", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("einstein_diffusion", "I.43.31", "Diffusion constant", [("mu","s/kg",1e10,1e11,"mobility"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",250,400,"temperature")], ("D","m^2/s","diffusion constant"),
 "k * mu * kb * T", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("isothermal_work", "I.44.4", "Work of an isothermal expansion", [("n","1",1e22,1e23,"number of molecules"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",250,400,"temperature"),("V1","m^3",1e-3,2e-3,"initial volume"),("V2","m^3",3e-3,6e-3,"final volume")], ("E","J","work"),
 "n * kb * T * log(k * V2 / V1)", [("k","1","","scale")], ("shifted", "scale k by 2")),
("sound_speed", "I.47.23", "Speed of sound", [("gamma","1",1.1,1.7,"adiabatic index"),("pr","Pa",5e4,2e5,"pressure"),("rho","kg/m^3",0.5,2,"density")], ("c","m/s","speed of sound"),
 "(gamma * pr / rho)^a", [("a","0.5","","exponent")], ("other", "set a = 0.6\n    rebalance k0"), [("k0","1","1","")]),
("rest_energy", "I.48.2", "Energy of a moving body", [("m","kg",1,5,"mass"),("v","m/s",1e7,2e8,"speed"),("c","m/s",2.9e8,3.1e8,"speed of light")], ("E","J","energy"),
 "m * c^2 / sqrt(1 - k * (v/c)^2)", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("heat_flow", "II.2.42", "Heat conduction through a slab", [("kappa","W/(m*K)",1,10,"conductivity"),("T1","K",280,300,"cold side"),("T2","K",320,350,"hot side"),("A","m^2",0.1,1,"area"),("d","m",0.01,0.1,"thickness")], ("P","W","heat flow"),
 "kappa * (T2 - T1) * A / d^n", [("n","1","","exponent")], ("other", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("intensity_sphere", "II.3.24", "Intensity of a point source", [("P","W",1,100,"power"),("r","m",1,10,"distance")], ("I","W/m^2","intensity"),
 "P / (4 * pi * r^n)", [("n","2","","exponent")], ("inverse cube", "set n = 3\n    rebalance k0"), [("k0","1","1","")]),
("dipole_potential", "II.6.11", "Potential of a dipole", [("eps","F/m",8e-12,1e-11,"permittivity"),("p","C*m",1e-9,1e-8,"dipole moment"),("theta","rad",0,1.2,"angle"),("r","m",0.1,1,"distance")], ("V","V","potential"),
 "p * cos(theta) / (4 * pi * eps * r^n)", [("n","2","","exponent")], ("inverse cube", "set n = 3\n    rebalance k0"), [("k0","1","1","")]),
("field_energy", "II.8.31", "Energy density of an electric field", [("eps","F/m",8e-12,1e-11,"permittivity"),("Ef","V/m",100,1000,"field")], ("u","J/m^3","energy density"),
 "a * eps * Ef^2", [("a","0.5","","factor")], ("doubled", "scale a by 2")),
("dielectric", "II.11.3", "Displacement of a bound electron", [("q","C",1e-6,1e-5,"charge"),("Ef","V/m",100,1000,"field"),("m","kg",1,5,"mass"),("omega0","rad/s",3,5,"natural frequency"),("omega","rad/s",0.5,2,"drive frequency")], ("x","m","displacement"),
 "q * Ef / (m * (omega0^2 - k * omega^2))", [("k","1","","scale")], ("stronger", "scale k by 2")),
("current_loop", "II.34.2a", "Current of a circulating charge", [("q","C",1e-6,1e-5,"charge"),("v","m/s",10,100,"speed"),("r","m",0.1,1,"radius")], ("I","A","current"),
 "q * v / (2 * pi * r^n)", [("n","1","","exponent")], ("other", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("paramagnet", "II.35.21", "Magnetisation of a paramagnet", [("n","1/m^3",1e24,1e25,"density"),("mu","J/T",1e-23,2e-23,"moment"),("B","T",1,10,"field"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",2,20,"temperature")], ("M","J/(T*m^3)","magnetisation"),
 "n * mu * tanh(k * mu * B / (kb * T))", [("k","1","","scale")], ("stronger", "scale k by 2")),
("young_force", "II.38.3", "Elastic force in a bar", [("Y","Pa",1e9,1e10,"Young's modulus"),("A","m^2",1e-4,1e-3,"area"),("x","m",1e-4,1e-3,"extension"),("d","m",0.5,2,"length")], ("F","N","force"),
 "Y * A * x / d^n", [("n","1","","exponent")], ("other", "set n = 2\n    rebalance k0"), [("k0","1","1","")]),
("bose_occupation", "III.4.32", "Bose-Einstein occupation", [("h","J*s",6e-34,7e-34,"Planck constant"),("omega","rad/s",1e13,5e13,"angular frequency"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",100,400,"temperature")], ("n","1","occupation"),
 "1 / (exp(k * h * omega / (2 * pi * kb * T)) - 1)", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("diode", "III.14.14", "Current of a diode", [("I0","A",1e-9,1e-8,"saturation current"),("q","C",1.5e-19,1.7e-19,"charge"),("Ve","V",0.01,0.1,"voltage"),("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant"),("T","K",250,350,"temperature")], ("I","A","current"),
 "I0 * (exp(k * q * Ve / (kb * T)) - 1)", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("band_energy", "III.15.12", "Energy of a tight-binding band", [("U","J",1e-20,1e-19,"coupling"),("k","1/m",1e8,1e9,"wavenumber"),("d","m",1e-9,2e-9,"spacing")], ("E","J","energy"),
 "2 * U * (1 - cos(a * k * d))", [("a","1","","scale")], ("stronger", "scale a by 1.3")),
("spin_precession", "III.7.38", "Spin precession frequency", [("mu","J/T",1e-26,1e-25,"moment"),("B","T",1,10,"field"),("h","J*s",6e-34,7e-34,"Planck constant")], ("omega","rad/s","frequency"),
 "k * 4 * pi * mu * B / h", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("dipole_angle", "III.17.37", "Angular distribution", [("beta","1",1,5,"scale"),("alpha","1",0.1,0.9,"anisotropy"),("theta","rad",0,3,"angle")], ("f","1","distribution"),
 "beta * (1 + alpha * cos(theta)^n)", [("n","1","","exponent")], ("squared", "set n = 2")),
]
# The held-out set: further equations of the same table, none of them among C above. Same row format.
EPS = ("eps","F/m",8e-12,1e-11,"permittivity")
C_LIGHT = ("c","m/s",2.9e8,3.1e8,"speed of light")
H = ("h","J*s",6e-34,7e-34,"Planck constant")
KB = ("kb","J/K",1.3e-23,1.4e-23,"Boltzmann constant")
G = ("G","m^3/(kg*s^2)",6.6e-11,6.8e-11,"gravitational constant")
K0 = [("k0","1","1","")]
HOLDOUT = [
("gaussian_shifted", "I.6.2b", "Normal density with a mean and a width", [("theta","1",-3,3,"value"),("theta1","1",-1,1,"mean"),("sigma","1",1,3,"width")], ("f","1","probability density"),
 "exp(-((theta - theta1)/sigma)^2 / a) / (sqrt(2 * pi) * sigma)", [("a","2","","width parameter")], ("width doubled", "scale a by 2")),
("gravitation_3d", "I.9.18", "Gravitation between two points in space", [G,("m1","kg",1,5,"mass 1"),("m2","kg",1,5,"mass 2"),("x1","m",0,1,"x of body 1"),("x2","m",2,3,"x of body 2"),("y1","m",0,1,"y of body 1"),("y2","m",2,3,"y of body 2"),("z1","m",0,1,"z of body 1"),("z2","m",2,3,"z of body 2")], ("F","N","force"),
 "G * m1 * m2 / ((x2 - x1)^2 + (y2 - y1)^2 + (z2 - z1)^2)^a", [("a","1","","exponent of the squared distance")], ("inverse cube", "set a = 1.5\n    rebalance k0"), K0),
("dot_product", "I.11.19", "Work of a force along a displacement", [("x1","m",1,5,"displacement x"),("x2","m",1,5,"displacement y"),("x3","m",1,5,"displacement z"),("y1","N",1,5,"force x"),("y2","N",1,5,"force y"),("y3","N",1,5,"force z")], ("A","J","work"),
 "x1 * y1 + x2 * y2 + k * x3 * y3", [("k","1","","weight of the third component")], ("stronger third component", "scale k by 2")),
("electric_force", "I.12.5", "Force on a charge in a field", [("q2","C",1e-6,1e-5,"charge"),("Ef","V/m",100,1000,"electric field")], ("F","N","force"),
 "q2 * Ef^n", [("n","1","","field exponent")], ("quadratic field", "set n = 2\n    rebalance k0 at Ef = 550 [V/m]"), K0),
("gravity_work", "I.13.12", "Work of gravity between two distances", [G,("m1","kg",1,5,"mass 1"),("m2","kg",1,5,"mass 2"),("r1","m",2,5,"initial distance"),("r2","m",0.5,1.5,"final distance")], ("U","J","work"),
 "G * m1 * m2 * (1/r2^n - 1/r1^n)", [("n","1","","distance exponent")], ("inverse square potential", "set n = 2\n    rebalance k0"), K0),
("lorentz_x", "I.15.3x", "Lorentz transformation of a position", [("x","m",3e8,6e8,"position"),("u","m/s",1e7,1e8,"frame speed"),C_LIGHT,("t","s",0.1,1,"time")], ("x1","m","position in the moving frame"),
 "(x - k * u * t) / sqrt(1 - (u/c)^2)", [("k","1","","scale")], ("faster drift", "scale k by 2")),
("lorentz_t", "I.15.3t", "Lorentz transformation of a time", [("t","s",1,2,"time"),("u","m/s",1e7,1e8,"frame speed"),("x","m",1e8,3e8,"position"),C_LIGHT], ("t1","s","time in the moving frame"),
 "(t - k * u * x / c^2) / sqrt(1 - (u/c)^2)", [("k","1","","scale")], ("stronger desynchronisation", "scale k by 2")),
("center_of_mass", "I.18.4", "Centre of mass of two bodies", [("m1","kg",1,5,"mass 1"),("m2","kg",1,5,"mass 2"),("r1","m",0,1,"position 1"),("r2","m",2,3,"position 2")], ("r","m","centre of mass"),
 "(m1^n * r1 + m2^n * r2) / (m1^n + m2^n)", [("n","1","","mass exponent")], ("weighted by squared mass", "set n = 2")),
("multislit", "I.30.3", "Intensity behind n slits", [("I0","W/m^2",1,5,"intensity of one slit"),("n","1",2,4,"number of slits"),("theta","rad",0.2,1.2,"phase difference")], ("I","W/m^2","intensity"),
 "I0 * sin(k * n * theta / 2)^2 / sin(theta / 2)^2", [("k","1","","scale")], ("faster phase", "scale k by 1.5")),
("dipole_radiation", "I.32.17", "Power radiated by a driven electron", [EPS,C_LIGHT,("Ef","V/m",1e6,1e7,"field amplitude"),("r","m",1e-15,5e-15,"radius"),("omega","rad/s",3e15,5e15,"drive frequency"),("omega0","rad/s",5e14,2e15,"natural frequency")], ("P","W","power"),
 "(eps * c * Ef^2 / 2) * (8 * pi * r^2 / 3) * omega^4 / (omega^2 - k * omega0^2)^2", [("k","1","","scale")], ("stiffer binding", "scale k by 2")),
("bohr_radius", "I.38.12", "Bohr radius", [EPS,H,("m","kg",9e-31,1e-30,"electron mass"),("q","C",1.5e-19,1.7e-19,"electron charge")], ("r","m","radius"),
 "4 * pi * eps * (h / (2 * pi))^2 / (m * q^n)", [("n","2","","charge exponent")], ("cubic charge", "set n = 3\n    rebalance k0 at q = 1.6e-19 [C]"), K0),
("gas_energy", "I.39.10", "Energy of a monatomic ideal gas", [("pr","Pa",5e4,2e5,"pressure"),("V","m^3",1e-3,1e-2,"volume")], ("E","J","internal energy"),
 "a * pr * V", [("a","1.5","","factor")], ("doubled factor", "scale a by 2")),
("gas_energy_gamma", "I.39.11", "Energy of an ideal gas with an adiabatic index", [("gamma","1",1.1,1.7,"adiabatic index"),("pr","Pa",5e4,2e5,"pressure"),("V","m^3",1e-3,1e-2,"volume")], ("E","J","internal energy"),
 "pr * V / (gamma - k)", [("k","1","","offset")], ("shifted offset", "scale k by 0.9")),
("planck_radiation", "I.41.16", "Planck's radiation law", [H,("omega","rad/s",1e13,5e13,"angular frequency"),KB,("T","K",100,400,"temperature"),C_LIGHT], ("L","J/m^2","radiance per unit angular frequency"),
 "h / (2 * pi) * omega^n / (pi^2 * c^2 * (exp(h * omega / (2 * pi * kb * T)) - 1))", [("n","3","","frequency exponent")], ("quadratic frequency", "set n = 2\n    rebalance k0 at omega = 3e13 [rad/s]"), K0),
("gas_conductivity", "I.43.43", "Heat conductivity of a gas", [("gamma","1",1.1,1.7,"adiabatic index"),KB,("v","m/s",100,1000,"mean speed"),("A","m^2",1e-20,1e-19,"collision cross-section")], ("kappa","W/(m*K)","conductivity"),
 "kb * v^n / (A * (gamma - 1))", [("n","1","","speed exponent")], ("quadratic speed", "set n = 2\n    rebalance k0 at v = 550 [m/s]"), K0),
("anharmonic", "I.50.26", "Response of an anharmonic oscillator", [("x1","m",1,5,"amplitude"),("omega","rad/s",1,5,"frequency"),("t","s",1,5,"time"),("alpha","1",0.1,0.9,"anharmonicity")], ("x","m","displacement"),
 "x1 * (cos(omega * t) + alpha * cos(omega * t)^n)", [("n","2","","exponent")], ("cubic term", "set n = 3")),
("point_potential", "II.4.23", "Potential of a point charge", [("q","C",1e-6,1e-5,"charge"),EPS,("r","m",0.1,1,"distance")], ("V","V","potential"),
 "q / (4 * pi * eps * r^n)", [("n","1","","distance exponent")], ("inverse square", "set n = 2\n    rebalance k0"), K0),
("dipole_field_z", "II.6.15a", "Field of a dipole off its axis", [EPS,("p","C*m",1e-9,1e-8,"dipole moment"),("r","m",1,2,"distance"),("x","m",0.1,1,"x"),("y","m",0.1,1,"y"),("z","m",0.1,1,"z")], ("Ef","V/m","field"),
 "3 / (4 * pi * eps) * p * z / r^n * sqrt(x^2 + y^2)", [("n","5","","distance exponent")], ("steeper", "set n = 6\n    rebalance k0"), K0),
("sphere_energy", "II.8.7", "Electrostatic energy of a charged sphere", [("q","C",1e-6,1e-5,"charge"),EPS,("d","m",0.1,1,"radius")], ("E","J","energy"),
 "a * q^2 / (4 * pi * eps * d)", [("a","0.6","","factor")], ("doubled factor", "scale a by 2")),
("dielectric_field", "II.10.9", "Field in a dielectric", [("sigma","C/m^2",1e-6,1e-5,"surface charge density"),EPS,("chi","1",0.1,5,"susceptibility")], ("Ef","V/m","field"),
 "sigma / eps / (1 + k * chi)", [("k","1","","scale")], ("stronger screening", "scale k by 2")),
("polarisation", "II.11.27", "Polarisation of a dense dielectric", [("n","1/m^3",1e28,1e29,"number density"),("alpha","m^3",1e-30,1e-29,"polarisability"),EPS,("Ef","V/m",100,1000,"field")], ("P","C/m^2","polarisation"),
 "n * alpha / (1 - n * alpha / k) * eps * Ef", [("k","3","","local-field factor")], ("stronger local field", "scale k by 0.5")),
("wire_field", "II.13.17", "Magnetic field of a straight wire", [EPS,C_LIGHT,("I","A",1,10,"current"),("r","m",0.01,0.1,"distance")], ("B","T","field"),
 "1 / (4 * pi * eps * c^2) * 2 * I / r^n", [("n","1","","distance exponent")], ("inverse square", "set n = 2\n    rebalance k0 at r = 0.055 [m]"), K0),
("moment_energy", "II.15.4", "Energy of a magnetic moment in a field", [("mu","J/T",1e-24,1e-23,"moment"),("B","T",0.1,1,"field"),("theta","rad",0,1.4,"angle")], ("E","J","energy"),
 "-mu * B * cos(theta)^n", [("n","1","","cosine exponent")], ("squared cosine", "set n = 2")),
("moving_charge_potential", "II.21.32", "Potential of a moving charge", [("q","C",1e-6,1e-5,"charge"),EPS,("r","m",0.1,1,"distance"),("v","m/s",1e7,1e8,"speed"),C_LIGHT], ("V","V","potential"),
 "q / (4 * pi * eps * r * (1 - k * v / c))", [("k","1","","scale")], ("stronger retardation", "scale k by 2")),
("waveguide", "II.24.17", "Wavenumber in a waveguide", [("omega","rad/s",1.5e10,5e10,"angular frequency"),C_LIGHT,("d","m",0.1,0.2,"guide width")], ("k","1/m","wavenumber"),
 "sqrt(omega^2 / c^2 - s * pi^2 / d^2)", [("s","1","","scale")], ("stronger cutoff", "scale s by 1.5")),
("poynting", "II.27.16", "Energy flux of a plane wave", [EPS,C_LIGHT,("Ef","V/m",100,1000,"field")], ("S","W/m^2","flux"),
 "eps * c * Ef^n", [("n","2","","field exponent")], ("cubic field", "set n = 3\n    rebalance k0 at Ef = 550 [V/m]"), K0),
("two_state", "II.35.18", "Density of moments along a field", [("n0","1/m^3",1e24,1e25,"density"),("mu","J/T",1e-23,2e-23,"moment"),("B","T",1,10,"field"),KB,("T","K",2,20,"temperature")], ("n","1/m^3","density"),
 "n0 / (exp(k * mu * B / (kb * T)) + exp(-k * mu * B / (kb * T)))", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("weiss_field", "II.36.38", "Argument of the magnetisation in a mean field", [("mu","J/T",1e-23,2e-23,"moment"),("B","T",1,10,"field"),KB,("T","K",2,20,"temperature"),("alpha","1",0.1,1,"mean-field coupling"),("M","A/m",1e5,1e6,"magnetisation"),EPS,C_LIGHT], ("f","1","argument"),
 "mu * B / (kb * T) + k * mu * alpha * M / (eps * c^2 * kb * T)", [("k","1","","scale")], ("stronger mean field", "scale k by 2")),
("magnetic_energy", "II.37.1", "Energy of a moment in a magnetisable medium", [("mu","J/T",1e-24,1e-23,"moment"),("chi","1",0.1,5,"susceptibility"),("B","T",0.1,1,"field")], ("E","J","energy"),
 "mu * (1 + k * chi) * B", [("k","1","","scale")], ("stronger medium", "scale k by 2")),
("shear_modulus", "II.38.14", "Shear modulus from Young's modulus", [("Y","Pa",1e9,1e11,"Young's modulus"),("sigma","1",0.1,0.5,"Poisson's ratio")], ("mu","Pa","shear modulus"),
 "Y / (2 * (1 + k * sigma))", [("k","1","","scale")], ("stronger contraction", "scale k by 2")),
("planck_oscillator", "III.4.33", "Mean energy of a quantum oscillator", [H,("omega","rad/s",1e13,5e13,"angular frequency"),KB,("T","K",100,400,"temperature")], ("E","J","mean energy"),
 "h / (2 * pi) * omega / (exp(k * h * omega / (2 * pi * kb * T)) - 1)", [("k","1","","scale")], ("stronger", "scale k by 1.5")),
("two_state_transition", "III.8.54", "Probability of a two-state transition", [("E","J",1e-34,3e-34,"coupling energy"),("t","s",0.1,0.5,"time"),H], ("prob","1","probability"),
 "sin(k * E * t / (h / (2 * pi)))^2", [("k","1","","scale")], ("faster oscillation", "scale k by 1.5")),
("resonance_transition", "III.9.52", "Transition probability near resonance", [("p","C*m",1e-30,3e-30,"dipole moment"),("Ef","V/m",1e-5,1e-4,"field"),("t","s",0.1,1,"time"),H,("omega","rad/s",3,5,"drive frequency"),("omega0","rad/s",0.5,2,"resonance frequency")], ("prob","1","probability"),
 "p * Ef * t / (h / (2 * pi)) * sin((omega - k * omega0) * t / 2)^2 / ((omega - k * omega0) * t / 2)^2", [("k","1","","scale")], ("shifted resonance", "scale k by 0.5")),
("moment_in_field", "III.10.19", "Energy of a moment in a three-component field", [("mu","J/T",1e-24,1e-23,"moment"),("Bx","T",0.1,1,"field x"),("By","T",0.1,1,"field y"),("Bz","T",0.1,1,"field z")], ("E","J","energy"),
 "mu * (Bx^n + By^n + Bz^n)^(1/n)", [("n","2","","norm exponent")], ("cubic norm", "set n = 3")),
("angular_momentum_quantum", "III.12.43", "Quantised angular momentum", [("n","1",1,5,"quantum number"),H], ("L","J*s","angular momentum","1e-40"),
 "n^p * h / (2 * pi)", [("p","1","","exponent")], ("quadratic", "set p = 2")),
("lattice_velocity", "III.13.18", "Velocity of an electron in a lattice", [("E","J",1e-20,1e-19,"coupling energy"),("d","m",1e-10,5e-10,"spacing"),("k","1/m",1e8,1e9,"wavenumber"),H], ("v","m/s","velocity"),
 "2 * E * d^n * k / (h / (2 * pi))", [("n","2","","spacing exponent")], ("cubic spacing", "set n = 3\n    rebalance k0 at d = 3e-10 [m]"), K0),
("hydrogen_levels", "III.19.51", "Energy levels of hydrogen", [("m","kg",9e-31,1e-30,"electron mass"),("q","C",1.5e-19,1.7e-19,"electron charge"),EPS,H,("n","1",1,5,"principal quantum number")], ("E","J","energy"),
 "-m * q^4 / (2 * (4 * pi * eps)^2 * (h / (2 * pi))^2) / n^p", [("p","2","","exponent")], ("cubic", "set p = 3")),
("current_vector_potential", "III.21.20", "Current density from the vector potential", [("rho","C/m^3",1e3,1e4,"charge density"),("q","C",1.5e-19,1.7e-19,"charge"),("A","T*m",1e-3,1e-2,"vector potential"),("m","kg",9e-31,1e-30,"mass")], ("j","A/m^2","current density"),
 "-rho * q * A^n / m", [("n","1","","exponent")], ("quadratic", "set n = 2\n    rebalance k0 at A = 0.0055 [T*m]"), K0),
]
TEMPLATE = '''# {title} (Feynman table {fid}), for the baseline's {purpose}
card {name} "{title}" {{
  collection historical
  field      physics
  source     "R. P. Feynman, R. B. Leighton, M. Sands, The Feynman Lectures on Physics, eq. {fid}"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions as in the textbook derivation"

{inputs}
  output {out} [{ounit}] tolerance abs {oabs} rel 1%  "{odesc}"

{params}
  law {out} = {law}

  counterfactual "{cflabel}" {{
    {cfbody}
  }}

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}}
'''
def num(x): return repr(float(x)) if not isinstance(x, str) else x
def write(rows, out, purpose):
    """One card per row of a table, into the folder out."""
    out.mkdir(parents=True, exist_ok=True)
    for row in rows:
        name, fid, title, ins, (out_name, ounit, odesc, *oabs), law, params, (cflabel, cfbody) = row[:8]
        extra = row[8] if len(row) > 8 else []
        inputs = "\n".join(f'  input  {n} [{u}] in {num(lo)} .. {num(hi)}  "{d}"' for n, u, lo, hi, d in ins)
        ps = []
        for pn, val, unit, d in params + [(e[0], e[1], e[2], "unit carrier") for e in extra]:
            ps.append(f'  param {pn} = {val}' + (f' [{unit}]' if unit else '') + f'  "{d or pn}"')
        if extra:
            law = f"{extra[0][0]} * ({law})"
        out.joinpath(f"{name}.sci").write_text(TEMPLATE.format(name=name, fid=fid, title=title, inputs=inputs,
            out=out_name, ounit=ounit, oabs=oabs[0] if oabs else "1e-30", odesc=odesc, params="\n".join(ps), law=law, cflabel=cflabel,
            cfbody=cfbody, purpose=purpose))
    return len(rows)
if __name__ == "__main__":
    print(write(C, OUT, "measurement set"), write(HOLDOUT, OUT_HOLDOUT, "held-out measurement set"))
