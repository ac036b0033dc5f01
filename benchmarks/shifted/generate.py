"""Writes the shifted-law sets: textbook laws with one structural mutation each, as the
counterfactual world of a card (the original world is the textbook law).

    python benchmarks/shifted/generate.py            # every set, from the repository root

benchmarks/shifted/dev/ (seed DEV_SEED) is the development set of the baseline's search;
benchmarks/shifted/holdout/ (seed HOLDOUT_SEED) is never looked at while developing and is
measured once at the end. Both are drawn from the same table of textbook laws (BASES, written
here, not taken from any benchmark's task list) and the same mutation kinds:

  exponent   an exponent moved to a non-integer or a small rational (1.3, 2.6, 1/3, ...)
  sum        a product replaced by a sum or a difference inside a power
  power      an exponent applied to an exponential, a logarithm or a whole factor
  phase      a frequency or phase shift in an oscillation
  sign       a sign flipped
  term       an interaction or correction term switched on
  scale      a constant moved into an exponent (a fitted length or temperature scale)

A seed draws, for every card, a (law, mutation) pair and the mutation's numbers; a draw is kept
only if the card checks with no error and no warning (which includes lint's sound-worlds test:
the two worlds stay within 10x of each other and can be told apart), else the next draw is tried.
"""
from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV_SEED, HOLDOUT_SEED = 2029, 7331
DEV2_SEED = 4177  # dev2/: the second development set, drawn from BASES2
DEV3_SEED = 5309  # dev3/: the third development set, drawn from BASES3
SIZE = 48
LIMIT = 10.0  # the largest ratio of the two worlds' outputs at one evaluation point

#: Non-integer exponents and small rationals the exponent mutations draw from.
EXPONENTS = ["1.3", "2.6", "0.7", "1.5", "2.5", "1/3", "2/3", "0.4", "1.7", "3.5", "1.25", "0.8",
             "2.2", "4/3", "1.6", "0.6", "2.4", "3/2", "5/3", "0.3", "1.2", "2.8", "3.3", "0.75"]


@dataclass
class Mut:
    """One mutation of a base law: the counterfactual law, with {v} filled by a drawn value.

    values: a list to pick from, or (lo, hi) for a uniform draw rounded to two significant
    digits; rebalance: give the unit carrier k0 the unit that balances the law again, its
    magnitude matched at the middle of the domain."""
    kind: str
    label: str
    law: str
    values: object = None
    rebalance: bool = False
    avoid: tuple = ()


@dataclass
class Base:
    name: str
    title: str
    field: str
    inputs: list  # (name, unit, lo, hi, description)
    output: tuple  # (name, unit, description, abs tolerance)
    law: str
    muts: list = field(default_factory=list)
    params: list = field(default_factory=list)  # (name, value, unit, description)


def exp_mut(law: str, label: str, avoid: tuple, rebalance: bool = True) -> Mut:
    return Mut("exponent", label, law, EXPONENTS, rebalance, avoid)


BASES = [
    Base("coulomb", "Force between two point charges", "physics",
         [("q1", "uC", 1, 10, "charge 1"), ("q2", "uC", 1, 10, "charge 2"), ("r", "m", 0.1, 1, "distance")],
         ("F", "N", "force", "1e-6"), "ke * q1 * q2 / r^2",
         [exp_mut("ke * q1 * q2 / r^({v})", "distance exponent", ("2",)),
          exp_mut("ke * (q1 * q2)^({v}) / r^2", "exponent of the product of charges", ("1",)),
          Mut("sum", "the charges summed inside the power", "ke * ((q1 + q2) / 2)^({v}) / r^2",
              ["2", "1.5", "2.5", "3", "1.3"], True),
          Mut("scale", "screened by a length", "ke * q1 * q2 / r^2 * exp(-r / ({v} [m]))", (0.2, 0.9))],
         [("ke", "8.988e9", "N*m^2/C^2", "Coulomb constant")]),
    Base("pendulum", "Period of a pendulum", "physics",
         [("L", "m", 0.2, 2, "length"), ("theta0", "rad", 0.1, 1.2, "amplitude")],
         ("T", "s", "period", "1e-3"), "2 * pi * sqrt(L / g) * (1 + c * theta0^2)",
         [exp_mut("2 * pi * (L / g)^({v}) * (1 + c * theta0^2)", "length exponent", ("1/2", "0.5")),
          Mut("term", "amplitude correction switched on", "2 * pi * sqrt(L / g) * (1 + {v} * theta0^2)",
              ["0.0625", "0.1", "0.2", "0.15"]),
          Mut("power", "amplitude factor raised to a power", "2 * pi * sqrt(L / g) * (1 + theta0^2)^({v})",
              ["0.3", "0.5", "-0.4", "1/3", "0.7"])],
         [("g", "9.81", "m/s^2", "gravity"), ("c", "0", "", "amplitude correction")]),
    Base("ideal_gas", "Pressure of a gas", "physics",
         [("n", "mol", 0.5, 5, "amount"), ("T", "K", 250, 400, "temperature"), ("V", "L", 10, 100, "volume")],
         ("P", "kPa", "pressure", "1e-3"), "R * n * T / V",
         [exp_mut("R * n * T / V^({v})", "volume exponent", ("1",)),
          exp_mut("R * n * T^({v}) / V", "temperature exponent", ("1",)),
          Mut("term", "attraction between molecules switched on",
              "R * n * T / V - ({v} [Pa*m^6/mol^2]) * n^2 / V^2", (0.5, 3)),
          Mut("term", "excluded volume switched on", "R * n * T / (V - ({v} [L/mol]) * n)", (0.5, 1.8)),
          Mut("sign", "attraction with its sign flipped",
              "R * n * T / V + ({v} [Pa*m^6/mol^2]) * n^2 / V^2", (0.5, 3))],
         [("R", "8.314", "J/(mol*K)", "gas constant")]),
    Base("radiation", "Net radiation of a hot plate", "physics",
         [("A", "m^2", 0.1, 1, "area"), ("T", "K", 400, 900, "plate temperature"),
          ("Ts", "K", 250, 350, "surroundings")],
         ("P", "W", "net radiated power", "1e-3"), "sigma * A * (T^4 - Ts^4)",
         [exp_mut("sigma * A * (T^({v}) - Ts^({v}))", "temperature exponent", ("4",)),
          Mut("sum", "the difference inside the power", "sigma * A * (T - Ts)^({v})", ["4", "3.5", "4.5", "3", "2.5"], True),
          Mut("sign", "absorption with its sign flipped", "sigma * A * (T^4 + Ts^4)"),
          exp_mut("sigma * A^({v}) * (T^4 - Ts^4)", "area exponent", ("1",))],
         [("sigma", "5.670e-8", "W/(m^2*K^4)", "Stefan-Boltzmann constant")]),
    Base("enzyme", "Rate of an enzyme reaction", "biology",
         [("S", "mM", 0.1, 10, "substrate concentration")],
         ("v", "mM/s", "reaction rate", "1e-4"), "Vmax * S / (Km + S)",
         [Mut("exponent", "cooperative binding", "Vmax * S^({v}) / (Km^({v}) + S^({v}))", EXPONENTS, False, ("1",)),
          Mut("term", "substrate inhibition switched on", "Vmax * S / (Km + S + S^2 / ({v} [mM]))", (2, 12)),
          Mut("power", "the saturation raised to a power", "Vmax * (S / (Km + S))^({v})", EXPONENTS, False, ("1",))],
         [("Vmax", "2", "mM/s", "maximal rate"), ("Km", "1.5", "mM", "Michaelis constant")]),
    Base("arrhenius", "Rate constant of a reaction", "chemistry",
         [("T", "K", 280, 400, "temperature")],
         ("k", "1/s", "rate constant", "1e-9"), "A0 * exp(-Ea / (R * T))",
         [Mut("term", "a power of temperature in the prefactor",
              "A0 * (T / (300 [K]))^({v}) * exp(-Ea / (R * T))", ["1.5", "2", "-1", "0.5", "2.5", "-0.7"]),
          Mut("power", "a power of the exponent's argument", "A0 * exp(-(Ea / (R * T))^({v}))",
              ["0.5", "0.7", "0.8", "1.2", "1.1"], True),
          Mut("scale", "a temperature scale moved into the exponent",
              "A0 * exp(-Ea / (R * (T - ({v} [K]))))", (20, 90))],
         [("A0", "1e7", "1/s", "prefactor"), ("Ea", "2e4", "J/mol", "activation energy"),
          ("R", "8.314", "J/(mol*K)", "gas constant")]),
    Base("attenuation", "Intensity after an absorbing layer", "physics",
         [("I0", "W/m^2", 1, 10, "incident intensity"), ("x", "cm", 0.1, 3, "thickness")],
         ("I", "W/m^2", "transmitted intensity", "1e-4"), "k0 * I0 * exp(-mu * x)",
         [Mut("power", "a stretched exponential", "k0 * I0 * exp(-(x / ({v} [cm]))^0.6)", (0.8, 2)),
          Mut("power", "an exponent on the depth", "k0 * I0 * exp(-(mu * x)^({v}))", ["0.5", "1.5", "0.7", "1.3", "2"]),
          exp_mut("k0 * I0^({v}) * exp(-mu * x)", "intensity exponent", ("1",)),
          Mut("term", "a scattered background switched on", "k0 * I0 * (exp(-mu * x) + {v})", (0.05, 0.3))],
         [("mu", "0.8", "1/cm", "attenuation coefficient"), ("k0", "1", "", "unit carrier")]),
    Base("tide", "Water level in a harbour", "geophysics",
         [("t", "h", 0, 24, "time"), ("h0", "m", 4, 6, "mean level")],
         ("h", "m", "water level", "1e-3"), "h0 + A * cos(omega * t)",
         [Mut("phase", "frequency shift", "h0 + A * cos({v} * omega * t)", (0.6, 1.5)),
          Mut("phase", "phase shift", "h0 + A * cos(omega * t + {v})", (0.4, 2.5)),
          Mut("term", "an overtide switched on", "h0 + A * cos(omega * t) + {v} [m] * cos(2 * omega * t)", (0.3, 1)),
          Mut("sign", "sign of the swing flipped", "h0 - A * cos(omega * t)")],
         [("A", "1.5", "m", "amplitude"), ("omega", "0.5059", "rad/h", "semidiurnal frequency")]),
    Base("malus", "Light through two polarisers", "physics",
         [("I0", "W/m^2", 1, 10, "incident intensity"), ("theta", "rad", 0, 1.2, "angle between the axes")],
         ("I", "W/m^2", "transmitted intensity", "1e-3"), "I0 * cos(theta)^2",
         [Mut("exponent", "cosine exponent", "I0 * cos(theta)^({v})", ["2.6", "1.5", "3", "1.3", "2.5", "1"], False),
          Mut("phase", "frequency shift", "I0 * cos({v} * theta)^2", (0.6, 0.9)),
          Mut("phase", "phase shift", "I0 * cos(theta - {v})^2", (0.2, 0.5)),
          Mut("term", "a leak switched on", "I0 * (cos(theta)^2 + {v})", (0.05, 0.3))]),
    Base("poiseuille", "Flow through a narrow tube", "physics",
         [("r", "mm", 0.5, 3, "radius"), ("dp", "kPa", 1, 10, "pressure drop"), ("L", "m", 0.1, 1, "length")],
         ("Q", "mL/s", "flow rate", "1e-6"), "pi * r^4 * dp / (8 * eta * L)",
         [exp_mut("pi * r^({v}) * dp / (8 * eta * L)", "radius exponent", ("4",)),
          exp_mut("pi * r^4 * dp^({v}) / (8 * eta * L)", "pressure exponent", ("1",)),
          exp_mut("pi * r^4 * dp / (8 * eta * L^({v}))", "length exponent", ("1",))],
         [("eta", "1e-3", "Pa*s", "viscosity")]),
    Base("gravitation", "Attraction of two bodies", "physics",
         [("m1", "kg", 5, 10, "mass 1"), ("m2", "kg", 1, 3, "mass 2"), ("r", "m", 0.1, 1, "distance")],
         ("F", "nN", "force", "1e-6"), "G * m1 * m2 / r^2",
         [Mut("sum", "the masses summed inside the power", "G * ((m1 + m2) / 2)^({v}) / r^2", ["2", "1.5", "2.5"], True),
          Mut("sum", "the mass difference inside the power", "G * (m1 - m2)^({v}) / r^2", ["2", "1.5", "2.5", "1.3"], True),
          exp_mut("G * m1 * m2 / r^({v})", "distance exponent", ("2",)),
          Mut("term", "a short-range correction switched on", "G * m1 * m2 / r^2 * (1 + ({v} [m]) / r)", (0.05, 0.3))],
         [("G", "6.674e-11", "N*m^2/kg^2", "gravitational constant")]),
    Base("cooling", "Heat flow from a warm wall", "engineering",
         [("A", "m^2", 0.5, 5, "area"), ("T", "K", 310, 370, "wall temperature"), ("Ta", "K", 280, 300, "air temperature")],
         ("P", "W", "heat flow", "1e-3"), "hc * A * (T - Ta)",
         [Mut("sum", "a power of the temperature difference", "hc * A * (T - Ta)^({v})",
              ["1.25", "4/3", "1.3", "0.8", "1.5"], True),
          exp_mut("hc * A^({v}) * (T - Ta)", "area exponent", ("1",)),
          Mut("term", "radiation switched on", "hc * A * (T - Ta) + ({v} [W/(m^2*K^4)]) * A * (T^4 - Ta^4)", (2e-8, 6e-8))],
         [("hc", "10", "W/(m^2*K)", "heat transfer coefficient")]),
    Base("joule", "Power dissipated in a resistor", "physics",
         [("I", "A", 0.1, 2, "current"), ("R", "ohm", 1, 100, "resistance")],
         ("P", "W", "power", "1e-4"), "k0 * I^2 * R",
         [exp_mut("k0 * I^({v}) * R", "current exponent", ("2",)),
          exp_mut("k0 * I^2 * R^({v})", "resistance exponent", ("1",)),
          Mut("sum", "an offset current inside the square", "k0 * (I + {v} [A])^2 * R", (0.1, 0.5))],
         [("k0", "1", "", "unit carrier")]),
    Base("nernst", "Potential across a membrane", "biology",
         [("T", "K", 280, 320, "temperature"), ("co", "mM", 50, 150, "outside concentration"),
          ("ci", "mM", 5, 20, "inside concentration")],
         ("E", "mV", "membrane potential", "1e-3"), "R * T / (z * F) * log(co / ci)",
         [Mut("power", "a power of the logarithm", "R * T / (z * F) * log(co / ci)^({v})", ["1.5", "0.5", "2", "0.7", "1.3"]),
          Mut("term", "a leak inside the logarithm", "R * T / (z * F) * log((co + {v} * ci) / ci)", (0.5, 3)),
          exp_mut("R * T / (z * F) * log((co / ci)^({v}))", "exponent of the concentration ratio", ("1",), False)],
         [("R", "8.314", "J/(mol*K)", "gas constant"), ("F", "96485", "C/mol", "Faraday constant"),
          ("z", "1", "", "charge number")]),
    Base("doppler", "Frequency heard from a moving source", "physics",
         [("f0", "Hz", 200, 1000, "emitted frequency"), ("vr", "m/s", 0, 60, "listener speed"),
          ("vs", "m/s", 0, 60, "source speed")],
         ("f", "Hz", "heard frequency", "1e-3"), "f0 * (cs + vr) / (cs - vs)",
         [Mut("sign", "listener sign flipped", "f0 * (cs - vr) / (cs - vs)"),
          Mut("power", "the ratio raised to a power", "f0 * ((cs + vr) / (cs - vs))^({v})", ["1.5", "2", "2.5", "3", "0.5"]),
          Mut("term", "a medium drift switched on", "f0 * (cs + vr + {v} [m/s]) / (cs - vs)", (15, 60))],
         [("cs", "343", "m/s", "speed of sound")]),
    Base("relativity", "Energy of a fast particle", "physics",
         [("m", "kg", 1, 5, "mass"), ("v", "m/s", 1e7, 2.4e8, "speed")],
         ("E", "J", "energy", "1"), "m * c^2 / sqrt(1 - (v / c)^2)",
         [Mut("power", "the Lorentz factor's exponent", "m * c^2 / (1 - (v / c)^2)^({v})", ["0.7", "1.3", "1/3", "1", "1.5"]),
          Mut("term", "a stronger velocity term", "m * c^2 / sqrt(1 - {v} * (v / c)^2)", (0.3, 0.8)),
          Mut("sum", "the square replaced by a sum", "m * c^2 / sqrt(1 - (v / c) * ({v} + v / c) / 2)", (0.2, 0.5))],
         [("c", "2.998e8", "m/s", "speed of light")]),
    Base("diffusion", "Concentration of a spreading dye", "chemistry",
         [("x", "mm", 0, 5, "distance from the source"), ("t", "s", 100, 1000, "time")],
         ("c", "1/mm", "linear density", "1e-5"), "k0 * N / sqrt(4 * pi * D * t) * exp(-x^2 / (4 * D * t))",
         [Mut("exponent", "anomalous spreading", "k0 * N / sqrt(4 * pi * D * (300 [s]) * (t / (300 [s]))^({v})) * exp(-x^2 / (4 * D * (300 [s]) * (t / (300 [s]))^({v})))",
              ["0.7", "0.8", "1.2", "1.3", "0.6", "1.5"]),
          Mut("phase", "a drifting source", "k0 * N / sqrt(4 * pi * D * t) * exp(-(x - ({v} [mm]))^2 / (4 * D * t))", (0.2, 0.8)),
          exp_mut("k0 * N / (4 * pi * D * t)^({v}) * exp(-x^2 / (4 * D * t))", "spreading exponent", ("0.5",))],
         [("N", "1", "", "amount"), ("D", "1e-9", "m^2/s", "diffusivity"), ("k0", "1", "", "unit carrier")]),
    Base("logistic", "Growth of a population", "biology",
         [("t", "d", 0, 20, "time"), ("N0", "1", 10, 50, "initial population")],
         ("N", "1", "population", "1e-3"), "K / (1 + (K / N0 - 1) * exp(-r * t))",
         [Mut("power", "Richards growth", "K / (1 + ((K / N0)^({v}) - 1) * exp(-r * t))^(1 / {v})", ["0.5", "2", "1.5", "0.7", "3"]),
          Mut("scale", "a delay moved into the exponent", "K / (1 + (K / N0 - 1) * exp(-r * t + {v}))", (0.3, 1.2)),
          Mut("term", "harvesting switched on", "K / (1 + (K / N0 - 1) * exp(-r * t)) - {v} * t / (1 [d])", (0.5, 3))],
         [("K", "1000", "", "carrying capacity"), ("r", "0.5", "1/d", "growth rate")]),
    Base("sound", "Speed of sound in a gas", "physics",
         [("gamma", "1", 1.1, 1.7, "adiabatic index"), ("p", "kPa", 50, 200, "pressure"), ("rho", "kg/m^3", 0.5, 2, "density")],
         ("c", "m/s", "speed of sound", "1e-3"), "k0 * sqrt(gamma * p / rho)",
         [exp_mut("k0 * (gamma * p / rho)^({v})", "exponent of the stiffness ratio", ("1/2", "0.5")),
          exp_mut("k0 * gamma^({v}) * sqrt(p / rho)", "exponent of the adiabatic index", ("1/2", "0.5"), False),
          Mut("sum", "the index shifted inside the root", "k0 * sqrt((gamma - {v}) * p / rho)", (0.3, 0.9))],
         [("k0", "1", "", "unit carrier")]),
    Base("drag", "Drag on a moving sphere", "engineering",
         [("v", "m/s", 1, 30, "speed"), ("A", "m^2", 0.01, 0.1, "cross-section")],
         ("F", "N", "drag force", "1e-5"), "k0 * Cd * rho / 2 * A * v^2",
         [exp_mut("k0 * Cd * rho / 2 * A * v^({v})", "speed exponent", ("2",)),
          Mut("term", "viscous drag switched on", "k0 * (Cd * rho / 2 * A * v^2 + ({v} [N*s/m^3]) * A * v)", (5, 40)),
          exp_mut("k0 * Cd * rho / 2 * A^({v}) * v^2", "area exponent", ("1",))],
         [("Cd", "0.47", "", "drag coefficient"), ("rho", "1.2", "kg/m^3", "air density"), ("k0", "1", "", "unit carrier")]),
    Base("charging", "Voltage of a charging capacitor", "physics",
         [("t", "ms", 0.1, 10, "time"), ("V0", "V", 1, 10, "supply voltage"), ("R", "kohm", 1, 10, "resistance")],
         ("V", "V", "capacitor voltage", "1e-4"), "V0 * (1 - exp(-t / (R * C)))",
         [Mut("power", "the charging curve raised to a power", "V0 * (1 - exp(-t / (R * C)))^({v})", ["1.5", "2", "0.5", "2.5", "0.7"]),
          Mut("power", "a stretched charging curve", "V0 * (1 - exp(-(t / (R * C))^({v})))", ["0.5", "0.7", "1.5", "1.3"]),
          Mut("term", "a leak switched on", "V0 * (1 - exp(-t / (R * C))) * (1 - {v} * t / (R * C))", (0.02, 0.06))],
         [("C", "0.5", "uF", "capacitance")]),
    Base("spring", "Frequency of a mass on a spring", "physics",
         [("k", "N/m", 10, 100, "stiffness"), ("m", "kg", 0.1, 1, "mass")],
         ("f", "Hz", "frequency", "1e-4"), "k0 * sqrt(k / m) / (2 * pi)",
         [exp_mut("k0 * (k / m)^({v}) / (2 * pi)", "exponent of the stiffness ratio", ("1/2", "0.5")),
          exp_mut("k0 * sqrt(k) / m^({v}) / (2 * pi)", "mass exponent", ("1/2", "0.5")),
          Mut("sum", "the spring's own mass added", "k0 * sqrt(k / (m + {v} [kg])) / (2 * pi)", (0.05, 0.3))],
         [("k0", "1", "", "unit carrier")]),
    Base("damped", "Swing of a damped oscillator", "physics",
         [("t", "s", 0, 6, "time"), ("x0", "cm", 8, 12, "rest position")],
         ("x", "cm", "position", "1e-3"), "x0 + a * exp(-t / tau) * cos(omega * t)",
         [Mut("phase", "frequency shift", "x0 + a * exp(-t / tau) * cos({v} * omega * t)",
              ["0.6", "0.7", "0.8", "1.25", "1.4", "1.5", "1.6"]),
          Mut("phase", "phase shift", "x0 + a * exp(-t / tau) * cos(omega * t + {v})", (0.3, 2)),
          Mut("power", "a stretched decay", "x0 + a * exp(-(t / tau)^({v})) * cos(omega * t)", ["0.5", "1.5", "2", "0.7"])],
         [("a", "4", "cm", "amplitude"), ("tau", "3", "s", "decay time"), ("omega", "2", "rad/s", "frequency")]),
]

#: The second table of textbook laws, written for the second development set (dev2/, seed
#: DEV2_SEED): other laws than BASES', crossed with the same mutation kinds, so that a change to
#: the search can be judged on laws it was not tuned on before holdout/ is measured.
BASES2 = [
    Base("hooke", "Energy stored in a stretched spring", "physics",
         [("k", "N/m", 50, 500, "stiffness"), ("x", "cm", 1, 10, "extension")],
         ("E", "J", "stored energy", "1e-5"), "k0 * k * x^2 / 2",
         [exp_mut("k0 * k * x^({v}) / 2", "extension exponent", ("2",)),
          Mut("term", "a stiffening switched on", "k0 * k * x^2 / 2 * (1 + x / ({v} [cm]))", (5, 30)),
          Mut("sum", "a slack taken up first", "k0 * k * (x - {v} [cm])^2 / 2", (0.2, 0.6))],
         [("k0", "1", "", "unit carrier")]),
    Base("projectile", "Range of a thrown ball", "physics",
         [("v0", "m/s", 5, 30, "launch speed"), ("theta", "rad", 0.2, 1.3, "launch angle")],
         ("R", "m", "range", "1e-4"), "k0 * v0^2 * sin(2 * theta) / g",
         [exp_mut("k0 * v0^({v}) * sin(2 * theta) / g", "speed exponent", ("2",)),
          Mut("phase", "frequency shift", "k0 * v0^2 * sin({v} * theta) / g", (1.5, 2.3)),
          Mut("phase", "phase shift", "k0 * v0^2 * sin(2 * theta - {v}) / g", (0.05, 0.15)),
          Mut("term", "air drag switched on", "k0 * v0^2 * sin(2 * theta) / g * (1 - v0 / ({v} [m/s]))", (60, 150))],
         [("g", "9.81", "m/s^2", "gravity"), ("k0", "1", "", "unit carrier")]),
    Base("kepler", "Period of a satellite", "astronomy",
         [("a", "km", 7000, 42000, "orbit radius"), ("M", "Yg", 3000, 9000, "planet mass")],
         ("T", "h", "orbital period", "1e-4"), "k0 * 2 * pi * sqrt(a^3 / (G * M))",
         [exp_mut("k0 * 2 * pi * sqrt(a^({v}) / (G * M))", "radius exponent", ("3",)),
          exp_mut("k0 * 2 * pi * sqrt(a^3 / (G * M^({v})))", "mass exponent", ("1",)),
          Mut("term", "an oblate planet", "k0 * 2 * pi * sqrt(a^3 / (G * M)) * (1 + (({v} [km]) / a)^2)", (2000, 5000))],
         [("G", "6.674e-11", "N*m^2/kg^2", "gravitational constant"), ("k0", "1", "", "unit carrier")]),
    Base("centripetal", "Force on a body moving in a circle", "physics",
         [("m", "kg", 0.1, 2, "mass"), ("v", "m/s", 1, 10, "speed"), ("r", "m", 0.5, 3, "radius")],
         ("F", "N", "force", "1e-5"), "k0 * m * v^2 / r",
         [exp_mut("k0 * m * v^({v}) / r", "speed exponent", ("2",)),
          exp_mut("k0 * m * v^2 / r^({v})", "radius exponent", ("1",)),
          Mut("term", "a weight added", "k0 * (m * v^2 / r + m * ({v} [m/s^2]))", (0.5, 3)),
          Mut("sum", "a drift added to the speed", "k0 * m * (v + {v} [m/s])^2 / r", (0.3, 1.5))],
         [("k0", "1", "", "unit carrier")]),
    Base("escape", "Escape speed from a planet", "astronomy",
         [("M", "Yg", 1000, 9000, "planet mass"), ("r", "km", 3000, 9000, "radius")],
         ("v", "km/s", "escape speed", "1e-5"), "k0 * sqrt(2 * G * M / r)",
         [exp_mut("k0 * (2 * G * M / r)^({v})", "exponent of the potential", ("1/2", "0.5")),
          Mut("sum", "launched from an altitude", "k0 * sqrt(2 * G * M / (r + {v} [km]))", (500, 3000)),
          Mut("term", "a launch speed already given", "k0 * sqrt(2 * G * M / r - ({v} [km^2/s^2]))", (2, 10))],
         [("G", "6.674e-11", "N*m^2/kg^2", "gravitational constant"), ("k0", "1", "", "unit carrier")]),
    Base("stokes", "Drag on a small sphere in a liquid", "physics",
         [("R", "um", 10, 100, "radius"), ("v", "mm/s", 0.1, 5, "speed")],
         ("F", "nN", "drag force", "1e-6"), "k0 * 6 * pi * eta * R * v",
         [exp_mut("k0 * 6 * pi * eta * R^({v}) * v", "radius exponent", ("1",)),
          exp_mut("k0 * 6 * pi * eta * R * v^({v})", "speed exponent", ("1",)),
          Mut("term", "inertia switched on (Oseen)", "k0 * 6 * pi * eta * R * v * (1 + ({v} [kg/m^3]) * v * R / eta)", (500, 3000))],
         [("eta", "1e-3", "Pa*s", "viscosity"), ("k0", "1", "", "unit carrier")]),
    Base("photon", "Energy of a photon", "physics",
         [("lam", "nm", 200, 800, "wavelength")],
         ("E", "eV", "energy", "1e-5"), "h * c / lam",
         [exp_mut("h * c / lam^({v})", "wavelength exponent", ("1",)),
          Mut("term", "a work function taken off", "h * c / lam - ({v} [eV])", (0.3, 1.2)),
          Mut("sum", "a shifted wavelength", "h * c / (lam + {v} [nm])", (20, 100))],
         [("h", "6.626e-34", "J*s", "Planck constant"), ("c", "2.998e8", "m/s", "speed of light")]),
    Base("debroglie", "Wavelength of a moving particle", "physics",
         [("m", "kg", 2e-27, 5e-26, "mass"), ("v", "km/s", 0.5, 5, "speed")],
         ("lam", "pm", "wavelength", "1e-5"), "h / (m * v)",
         [exp_mut("h / (m * v^({v}))", "speed exponent", ("1",)),
          exp_mut("h / (m^({v}) * v)", "mass exponent", ("1",)),
          Mut("sum", "a drift added to the speed", "h / (m * (v + {v} [km/s]))", (0.2, 1))],
         [("h", "6.626e-34", "J*s", "Planck constant")]),
    Base("capacitor", "Energy stored in a capacitor", "physics",
         [("C", "uF", 1, 100, "capacitance"), ("V", "V", 1, 50, "voltage")],
         ("E", "mJ", "stored energy", "1e-5"), "k0 * C * V^2 / 2",
         [exp_mut("k0 * C * V^({v}) / 2", "voltage exponent", ("2",)),
          exp_mut("k0 * C^({v}) * V^2 / 2", "capacitance exponent", ("1",)),
          Mut("term", "a nonlinear dielectric", "k0 * C * V^2 / 2 * (1 + V / ({v} [V]))", (20, 100))],
         [("k0", "1", "", "unit carrier")]),
    Base("inductor", "Current through a discharging coil", "physics",
         [("t", "ms", 0, 5, "time"), ("I0", "A", 0.5, 2, "starting current")],
         ("I", "A", "current", "1e-5"), "I0 * exp(-Rs * t / Lc)",
         [Mut("power", "a stretched decay", "I0 * exp(-(Rs * t / Lc)^({v}))", ["0.5", "0.7", "1.5", "1.3"]),
          Mut("term", "an offset switched on", "I0 * (exp(-Rs * t / Lc) + {v})", (0.05, 0.3)),
          Mut("term", "a second, slower decay", "I0 * ((1 - {v}) * exp(-Rs * t / Lc) + {v} * exp(-Rs * t / (4 * Lc)))", (0.1, 0.4)),
          Mut("scale", "a delay moved into the exponent", "I0 * exp(-Rs * (t - ({v} [ms])) / Lc)", (0.2, 1))],
         [("Rs", "100", "ohm", "resistance"), ("Lc", "0.2", "H", "inductance")]),
    Base("bragg", "Wavelength reflected by a crystal", "physics",
         [("d", "nm", 0.2, 0.5, "plane spacing"), ("theta", "rad", 0.2, 1.2, "glancing angle")],
         ("lam", "nm", "wavelength", "1e-6"), "k0 * 2 * d * sin(theta)",
         [Mut("phase", "phase shift", "k0 * 2 * d * sin(theta + {v})", (0.1, 0.3)),
          Mut("phase", "frequency shift", "k0 * 2 * d * sin({v} * theta)", (0.6, 1.3)),
          Mut("exponent", "sine exponent", "k0 * 2 * d * sin(theta)^({v})", ["1.5", "2", "0.5", "1.3", "0.7"], False),
          exp_mut("k0 * 2 * d^({v}) * sin(theta)", "spacing exponent", ("1",))],
         [("k0", "1", "", "unit carrier")]),
    Base("wien", "Peak wavelength of a hot body", "physics",
         [("T", "K", 3000, 10000, "temperature")],
         ("lam", "um", "peak wavelength", "1e-6"), "b / T",
         [exp_mut("b / T^({v})", "temperature exponent", ("1",)),
          Mut("scale", "a temperature scale moved in", "b / (T - ({v} [K]))", (300, 1500)),
          Mut("term", "an offset switched on", "b / T + ({v} [um])", (0.05, 0.3))],
         [("b", "2.898e-3", "m*K", "Wien constant")]),
    Base("absorbance", "Absorbance of a solution", "chemistry",
         [("c", "mM", 0.1, 2, "concentration"), ("l", "cm", 0.5, 2, "path length")],
         ("A", "1", "absorbance", "1e-5"), "eps * l * c",
         [exp_mut("eps * l * c^({v})", "concentration exponent", ("1",)),
          Mut("term", "stray light switched on", "-log(exp(-eps * l * c) * (1 - {v}) + {v})", (0.01, 0.1)),
          Mut("term", "saturation switched on", "eps * l * c / (1 + c / ({v} [mM]))", (1, 5))],
         [("eps", "1.5", "1/(mM*cm)", "absorption coefficient")]),
    Base("lifting", "Work to lift a mass", "physics",
         [("m", "kg", 1, 10, "mass"), ("h", "m", 1, 100, "height")],
         ("U", "J", "potential energy", "1e-4"), "k0 * m * g * h",
         [exp_mut("k0 * m * g * h^({v})", "height exponent", ("1",)),
          exp_mut("k0 * m^({v}) * g * h", "mass exponent", ("1",)),
          Mut("term", "gravity weakening with height", "k0 * m * g * h * (1 - h / ({v} [m]))", (200, 800))],
         [("g", "9.81", "m/s^2", "gravity"), ("k0", "1", "", "unit carrier")]),
    Base("ohm", "Current through a resistor", "physics",
         [("V", "V", 1, 12, "voltage"), ("R", "ohm", 10, 100, "resistance")],
         ("I", "mA", "current", "1e-4"), "k0 * V / R",
         [exp_mut("k0 * V^({v}) / R", "voltage exponent", ("1",)),
          Mut("sum", "an internal resistance", "k0 * V / (R + {v} [ohm])", (2, 20)),
          Mut("sum", "a diode's drop", "k0 * (V - {v} [V]) / R", (0.3, 0.7))],
         [("k0", "1", "", "unit carrier")]),
    Base("hydrostatic", "Pressure under water", "physics",
         [("h", "m", 0, 5, "depth"), ("p0", "kPa", 90, 110, "surface pressure")],
         ("p", "kPa", "pressure", "1e-4"), "p0 + k0 * rho * g * h",
         [exp_mut("p0 + k0 * rho * g * h^({v})", "depth exponent", ("1",)),
          Mut("term", "compression switched on", "p0 + k0 * rho * g * h * (1 + h / ({v} [m]))", (2, 10)),
          Mut("sign", "the sign of the column flipped", "p0 - k0 * rho * g * h")],
         [("rho", "1000", "kg/m^3", "density"), ("g", "9.81", "m/s^2", "gravity"), ("k0", "1", "", "unit carrier")]),
    Base("conduction", "Heat flow through a slab", "engineering",
         [("A", "m^2", 0.5, 2, "area"), ("T1", "K", 320, 400, "warm side"), ("T2", "K", 270, 290, "cold side"),
          ("d", "cm", 1, 10, "thickness")],
         ("P", "W", "heat flow", "1e-3"), "k0 * kc * A * (T1 - T2) / d",
         [exp_mut("k0 * kc * A * (T1 - T2) / d^({v})", "thickness exponent", ("1",)),
          Mut("sum", "a power of the temperature difference", "k0 * kc * A * (T1 - T2)^({v}) / d",
              ["1.2", "0.8", "1.5", "1.3"], True),
          Mut("term", "a conductivity rising with temperature",
              "k0 * kc * (1 + ({v} [1/K]) * (T1 + T2) / 2) * A * (T1 - T2) / d", (0.001, 0.005))],
         [("kc", "0.8", "W/(m*K)", "conductivity"), ("k0", "1", "", "unit carrier")]),
    Base("decay", "Atoms left in a radioactive sample", "physics",
         [("t", "yr", 0, 30, "time"), ("N0", "1", 1000, 5000, "atoms at the start")],
         ("N", "1", "atoms left", "1e-3"), "N0 * exp(-lam * t)",
         [Mut("power", "a power-law decay", "N0 * (1 + lam * t / {v})^(-{v})", ["1", "2", "3", "0.5"]),
          Mut("term", "a second, slower isotope", "N0 * ((1 - {v}) * exp(-lam * t) + {v} * exp(-lam * t / 10))", (0.1, 0.4)),
          Mut("power", "a stretched decay", "N0 * exp(-(lam * t)^({v}))", ["0.5", "0.7", "1.5", "1.3"])],
         [("lam", "0.05", "1/yr", "decay constant")]),
    Base("lc", "Voltage across an oscillating circuit", "physics",
         [("t", "ms", 0, 10, "time"), ("Vb", "V", 8, 12, "bias voltage")],
         ("V", "V", "voltage", "1e-4"), "Vb + V0 * cos(t / sqrt(Lc * Cc))",
         [Mut("phase", "frequency shift", "Vb + V0 * cos({v} * t / sqrt(Lc * Cc))", (0.6, 1.5)),
          Mut("phase", "phase shift", "Vb + V0 * cos(t / sqrt(Lc * Cc) + {v})", (0.4, 2.5)),
          Mut("term", "a resistance switched on", "Vb + V0 * exp(-t / ({v} [ms])) * cos(t / sqrt(Lc * Cc))", (3, 15)),
          Mut("sign", "sign of the swing flipped", "Vb - V0 * cos(t / sqrt(Lc * Cc))")],
         [("V0", "3", "V", "amplitude"), ("Lc", "100", "mH", "inductance"), ("Cc", "10", "uF", "capacitance")]),
    Base("vapour", "Vapour pressure of water", "chemistry",
         [("T", "K", 280, 370, "temperature")],
         ("p", "kPa", "vapour pressure", "1e-5"), "p0 * exp(-Lv / R * (1 / T - 1 / T0))",
         [Mut("term", "a power of temperature in the prefactor",
              "p0 * (T / T0)^({v}) * exp(-Lv / R * (1 / T - 1 / T0))", ["-2", "-1", "1.5", "2", "-0.5"]),
          Mut("scale", "a temperature scale moved in (Antoine)",
              "p0 * exp(-Lv / R * (1 / (T - ({v} [K])) - 1 / (T0 - ({v} [K]))))", (10, 50)),
          Mut("power", "a power of the exponent's argument",
              "p0 * exp(-(Lv / (R * T))^({v}) + (Lv / (R * T0))^({v}))", ["0.9", "1.1", "0.8", "1.2"])],
         [("p0", "101.325", "kPa", "pressure at boiling"), ("Lv", "40700", "J/mol", "heat of vaporisation"),
          ("R", "8.314", "J/(mol*K)", "gas constant"), ("T0", "373", "K", "boiling point")]),
    Base("langmuir", "Coverage of an adsorbing surface", "chemistry",
         [("p", "kPa", 1, 100, "gas pressure")],
         ("theta", "1", "coverage", "1e-5"), "K * p / (1 + K * p)",
         [Mut("exponent", "heterogeneous sites (Sips)", "(K * p)^({v}) / (1 + (K * p)^({v}))", ["0.5", "0.7", "1.5", "0.8"], False),
          Mut("term", "a dissolved part switched on", "K * p / (1 + K * p) + ({v} [1/kPa]) * p", (0.001, 0.005)),
          Mut("power", "the coverage raised to a power", "(K * p / (1 + K * p))^({v})", ["0.5", "1.5", "2", "0.7"])],
         [("K", "0.05", "1/kPa", "binding constant")]),
    Base("daylight", "Hours of daylight over the year", "geophysics",
         [("d", "day", 0, 365, "day of the year"), ("h0", "h", 11, 13, "mean day length")],
         ("H", "h", "daylight", "1e-4"), "h0 + A * sin(omega * (d - d0))",
         [Mut("phase", "frequency shift", "h0 + A * sin({v} * omega * (d - d0))", (0.6, 1.5)),
          Mut("phase", "phase shift", "h0 + A * sin(omega * (d - d0) + {v})", (0.4, 2.5)),
          Mut("term", "a second harmonic switched on", "h0 + A * sin(omega * (d - d0)) + {v} [h] * sin(2 * omega * (d - d0))", (0.3, 1))],
         [("A", "3", "h", "swing"), ("omega", "0.017214", "rad/day", "yearly frequency"), ("d0", "80", "day", "equinox")]),
    Base("torricelli", "Speed of water leaving a tank", "physics",
         [("h", "m", 0.1, 2, "water height")],
         ("v", "m/s", "outflow speed", "1e-5"), "k0 * sqrt(2 * g * h)",
         [exp_mut("k0 * (2 * g * h)^({v})", "exponent of the head", ("1/2", "0.5")),
          Mut("sum", "a head lost at the outlet", "k0 * sqrt(2 * g * (h - {v} [m]))", (0.02, 0.08)),
          Mut("term", "a contraction coefficient", "k0 * {v} * sqrt(2 * g * h)", (0.6, 0.8))],
         [("g", "9.81", "m/s^2", "gravity"), ("k0", "1", "", "unit carrier")]),
]

#: The third table of textbook laws, written for the third development set (dev3/, seed
#: DEV3_SEED): laws in neither BASES nor BASES2 (filters, lenses, wires, waves, gases, drugs,
#: muscles, rockets), crossed with the same mutation kinds, so that the search is judged on
#: a third family of structures before holdout/ is measured.
BASES3 = [
    Base("lowpass", "Output of a low-pass filter", "engineering",
         [("f", "Hz", 10, 1000, "signal frequency"), ("V0", "V", 1, 10, "input amplitude")],
         ("V", "V", "output amplitude", "1e-5"), "V0 / sqrt(1 + (f / fc)^2)",
         [Mut("power", "the roll-off's exponent", "V0 / (1 + (f / fc)^2)^({v})", ["0.3", "0.7", "1", "1/3", "0.8"]),
          Mut("exponent", "a steeper filter", "V0 / sqrt(1 + (f / fc)^({v}))", ["3", "4", "1.5", "2.5", "1.3"]),
          Mut("term", "a leak switched on", "V0 * (1 / sqrt(1 + (f / fc)^2) + {v})", (0.05, 0.3))],
         [("fc", "200", "Hz", "corner frequency")]),
    Base("lens", "Image distance of a thin lens", "physics",
         [("u", "cm", 30, 100, "object distance")],
         ("w", "cm", "image distance", "1e-4"), "u * f / (u - f)",
         [Mut("sum", "a thick lens's shift", "(u + ({v} [cm])) * f / (u + ({v} [cm]) - f)", (1, 5)),
          Mut("exponent", "a power of the distance ratio", "f * (u / f)^({v}) / ((u / f)^({v}) - 1)", ["1.3", "0.8", "1.5", "0.7", "1.2"]),
          Mut("term", "an aberration switched on", "u * f / (u - f) * (1 + ({v} [cm]) / u)", (1, 6))],
         [("f", "20", "cm", "focal length")]),
    Base("wire", "Magnetic field near a wire", "physics",
         [("I", "A", 1, 20, "current"), ("r", "cm", 1, 10, "distance")],
         ("B", "uT", "magnetic field", "1e-5"), "mu0 * I / (2 * pi * r)",
         [exp_mut("mu0 * I / (2 * pi * r^({v}))", "distance exponent", ("1",)),
          Mut("sum", "the wire's own radius", "mu0 * I / (2 * pi * (r + {v} [cm]))", (0.2, 1)),
          Mut("scale", "screened by a length", "mu0 * I / (2 * pi * r) * exp(-r / ({v} [cm]))", (5, 20)),
          exp_mut("mu0 * I^({v}) / (2 * pi * r)", "current exponent", ("1",))],
         [("mu0", "1.2566e-6", "T*m/A", "magnetic constant")]),
    Base("standing", "Displacement of a standing wave", "physics",
         [("x", "m", 0, 2, "position"), ("t", "s", 0, 2, "time")],
         ("y", "mm", "displacement", "1e-4"), "y0 + A * sin(kw * x) * cos(omega * t)",
         [Mut("phase", "frequency shift", "y0 + A * sin(kw * x) * cos({v} * omega * t)", (0.6, 1.5)),
          Mut("phase", "phase shift", "y0 + A * sin(kw * x + {v}) * cos(omega * t)", (0.3, 1.5)),
          Mut("sign", "the node moved to the other end", "y0 - A * sin(kw * x) * cos(omega * t)"),
          Mut("term", "a travelling part switched on", "y0 + A * sin(kw * x) * cos(omega * t) + {v} [mm] * sin(kw * x - omega * t)", (0.3, 1))],
         [("y0", "5", "mm", "rest position"), ("A", "2", "mm", "amplitude"), ("kw", "1.3", "rad/m", "wave number"),
          ("omega", "2.1", "rad/s", "frequency")]),
    Base("adiabatic", "Pressure of an adiabatically compressed gas", "physics",
         [("V", "L", 1, 10, "volume")],
         ("p", "kPa", "pressure", "1e-4"), "p0 * (V0 / V)^1.4",
         [Mut("exponent", "another adiabatic index", "p0 * (V0 / V)^({v})", ["1.3", "1.67", "1.1", "1.25", "1.5"]),
          Mut("sum", "a dead volume", "p0 * (V0 / (V + {v} [L]))^1.4", (0.2, 1)),
          Mut("term", "a leak switched on", "p0 * ((V0 / V)^1.4 + {v})", (0.5, 3))],
         [("p0", "100", "kPa", "starting pressure"), ("V0", "10", "L", "starting volume")]),
    Base("cooling_time", "Temperature of a cooling cup", "physics",
         [("t", "min", 0, 60, "time"), ("T0", "K", 330, 370, "starting temperature")],
         ("T", "K", "temperature", "1e-3"), "Ta + (T0 - Ta) * exp(-t / tau)",
         [Mut("power", "a stretched cooling", "Ta + (T0 - Ta) * exp(-(t / tau)^({v}))", ["0.5", "0.7", "1.3", "1.5"]),
          Mut("term", "a warming room switched on", "Ta + (T0 - Ta) * exp(-t / tau) + ({v} [K/min]) * t", (0.02, 0.1)),
          Mut("sum", "a warmer room to cool toward", "Ta + {v} [K] + (T0 - Ta - {v} [K]) * exp(-t / tau)", (5, 20))],
         [("Ta", "293", "K", "room temperature"), ("tau", "20", "min", "cooling time")]),
    Base("drug", "Concentration of a drug after a dose", "biology",
         [("t", "h", 0.5, 24, "time since the dose"), ("D", "mg", 100, 500, "dose")],
         ("C", "mg/L", "plasma concentration", "1e-4"), "D / Vd * ka / (ka - ke) * (exp(-ke * t) - exp(-ka * t))",
         [Mut("scale", "a lag before absorption", "D / Vd * ka / (ka - ke) * (exp(-ke * (t - ({v} [h]))) - exp(-ka * (t - ({v} [h]))))", (0.1, 0.4)),
          Mut("exponent", "a dose exponent", "D / Vd * (D / (300 [mg]))^({v} - 1) * ka / (ka - ke) * (exp(-ke * t) - exp(-ka * t))", ["0.7", "0.8", "1.2", "1.3", "1.5"]),
          Mut("term", "a slow second phase", "D / Vd * ka / (ka - ke) * (exp(-ke * t) - exp(-ka * t)) * (1 + {v} * t / (1 [h]))", (0.02, 0.08))],
         [("Vd", "40", "L", "volume of distribution"), ("ka", "1.2", "1/h", "absorption rate"), ("ke", "0.15", "1/h", "elimination rate")]),
    Base("muscle", "Speed of a contracting muscle", "biology",
         [("F", "N", 10, 300, "load")],
         ("v", "m/s", "shortening speed", "1e-5"), "b * (F0 - F) / (F + a)",
         [Mut("power", "the ratio raised to a power", "b * ((F0 - F) / (F + a))^({v})", ["0.5", "0.7", "1.5", "1.3"]),
          Mut("sum", "another heat constant", "b * (F0 - F) / (F + {v} [N])", (30, 60)),
          Mut("exponent", "a load exponent", "b * (F0^({v}) - F^({v})) / (F^({v}) + a^({v}))", ["0.7", "1.3", "1.5", "0.8"])],
         [("F0", "400", "N", "isometric force"), ("a", "100", "N", "heat constant"), ("b", "0.3", "m/s", "speed constant")]),
    Base("rocket", "Speed gained by a rocket", "physics",
         [("m0", "t", 100, 500, "starting mass"), ("mf", "t", 20, 90, "final mass")],
         ("dv", "km/s", "speed gained", "1e-5"), "ve * log(m0 / mf)",
         [Mut("power", "a power of the logarithm", "ve * log(m0 / mf)^({v})", ["0.7", "1.3", "1.5", "0.5"]),
          Mut("sum", "a structure mass kept", "ve * log((m0 + {v} [t]) / (mf + {v} [t]))", (10, 40)),
          Mut("term", "gravity losses switched on", "ve * log(m0 / mf) - ({v} [km/s]) * (1 - mf / m0)", (0.2, 0.8))],
         [("ve", "3", "km/s", "exhaust speed")]),
    Base("capillary", "Rise of water in a thin tube", "physics",
         [("theta", "rad", 0, 1.2, "contact angle"), ("r", "mm", 0.1, 1, "tube radius")],
         ("h", "mm", "rise", "1e-4"), "2 * gam * cos(theta) / (rho * g * r)",
         [Mut("phase", "phase shift", "2 * gam * cos(theta + {v}) / (rho * g * r)", (0.1, 0.3)),
          exp_mut("2 * gam * cos(theta) / (rho * g * r^({v}))", "radius exponent", ("1",)),
          Mut("exponent", "cosine exponent", "2 * gam * cos(theta)^({v}) / (rho * g * r)", ["1.5", "2", "0.5", "1.3"], False)],
         [("gam", "0.072", "N/m", "surface tension"), ("rho", "1000", "kg/m^3", "density"), ("g", "9.81", "m/s^2", "gravity")]),
    Base("slit", "Light through a single slit", "physics",
         [("theta", "rad", 0.05, 1, "angle"), ("I0", "W/m^2", 1, 10, "central intensity")],
         ("I", "W/m^2", "intensity", "1e-4"), "I0 * (sin(2 * theta) / (2 * theta))^2",
         [Mut("phase", "frequency shift", "I0 * (sin({v} * theta) / ({v} * theta))^2", (1.3, 2.6)),
          Mut("exponent", "another exponent", "I0 * (sin(2 * theta) / (2 * theta))^({v})", ["1.5", "3", "2.5", "1.3"], False),
          Mut("term", "a background switched on", "I0 * ((sin(2 * theta) / (2 * theta))^2 + {v})", (0.05, 0.2))]),
    Base("terminal", "Speed of a falling body with drag", "physics",
         [("t", "s", 0, 5, "time")],
         ("v", "m/s", "speed", "1e-4"), "vt * tanh(g * t / vt)",
         [Mut("power", "the curve raised to a power", "vt * tanh(g * t / vt)^({v})", ["0.7", "1.3", "1.5", "0.8"]),
          Mut("scale", "another speed in the argument", "vt * tanh(g * t / ({v} * vt))", (0.6, 1.6)),
          Mut("term", "a constant push switched on", "vt * tanh(g * t / vt) + ({v} [m/s^2]) * t", (0.2, 1))],
         [("vt", "20", "m/s", "terminal speed"), ("g", "9.81", "m/s^2", "gravity")]),
    Base("planck", "Spectral radiance of a hot body", "physics",
         [("lam", "um", 1, 10, "wavelength"), ("T", "K", 500, 1500, "temperature")],
         ("B", "W/(m^2*um)", "spectral radiance per steradian", "1e-3"),
         "2 * h * c^2 / lam^5 / (exp(h * c / (lam * kB * T)) - 1)",
         [Mut("exponent", "wavelength exponent", "2 * h * c^2 / lam^5 * (lam / (3 [um]))^(5 - {v}) / (exp(h * c / (lam * kB * T)) - 1)", ["4.5", "5.5", "4", "6", "4.6"]),
          Mut("sign", "the minus one turned to plus one", "2 * h * c^2 / lam^5 / (exp(h * c / (lam * kB * T)) + 1)"),
          Mut("scale", "a temperature offset in the exponent", "2 * h * c^2 / lam^5 / (exp(h * c / (lam * kB * (T + ({v} [K])))) - 1)", (10, 40))],
         [("h", "6.626e-34", "J*s", "Planck constant"), ("c", "2.998e8", "m/s", "speed of light"),
          ("kB", "1.381e-23", "J/K", "Boltzmann constant")]),
    Base("gompertz", "Size of a growing tumour", "biology",
         [("t", "d", 0, 30, "time")],
         ("N", "1", "cells (millions)", "1e-4"), "K * exp(log(N0 / K) * exp(-r * t))",
         [Mut("scale", "a delay moved into the exponent", "K * exp(log(N0 / K) * exp(-r * (t - ({v} [d]))))", (0.5, 2)),
          Mut("power", "the size raised to a power", "K * exp(log(N0 / K) * exp(-r * t))^({v})", ["0.7", "1.3", "1.5", "0.8"]),
          Mut("term", "treatment switched on", "K * exp(log(N0 / K) * exp(-r * t)) * (1 - {v} * t / (1 [d]))", (0.005, 0.02))],
         [("K", "100", "", "capacity"), ("N0", "2", "", "starting size"), ("r", "0.15", "1/d", "growth rate")]),
    Base("lorentz", "Force on a charge in a magnetic field", "physics",
         [("v", "km/s", 1, 10, "speed"), ("B", "mT", 1, 10, "field"), ("theta", "rad", 0.2, 1.4, "angle")],
         ("F", "fN", "force", "1e-4"), "q * v * B * sin(theta)",
         [Mut("phase", "phase shift", "q * v * B * sin(theta + {v})", (0.1, 0.4)),
          exp_mut("q * v^({v}) * B * sin(theta)", "speed exponent", ("1",)),
          Mut("term", "an electric part switched on", "q * (v * B * sin(theta) + {v} [V/m])", (1, 5))],
         [("q", "1.602e-19", "C", "charge")]),
    Base("brownian", "Spread of a diffusing particle", "physics",
         [("t", "s", 1, 100, "time"), ("D", "um^2/s", 0.1, 2, "diffusivity")],
         ("msd", "um^2", "mean square displacement", "1e-4"), "k0 * 6 * D * t",
         [exp_mut("k0 * 6 * D * t^({v})", "time exponent", ("1",)),
          Mut("term", "a drift switched on", "k0 * (6 * D * t + ({v} [um^2/s^2]) * t^2)", (0.001, 0.01)),
          Mut("power", "a confined spread", "k0 * 6 * D * ({v} [s]) * (1 - exp(-t / ({v} [s])))", (30, 100))],
         [("k0", "1", "", "unit carrier")]),
    Base("tank", "Level of a draining tank", "physics",
         [("t", "s", 0, 100, "time"), ("h0", "m", 1, 2, "starting level")],
         ("h", "m", "level", "1e-5"), "h0 * (1 - kd * t / sqrt(h0))^2",
         [Mut("exponent", "another outlet law", "h0 * (1 - kd * t / sqrt(h0))^({v})", ["1.5", "2.5", "3", "1.7"]),
          Mut("sign", "a tank being filled", "h0 * (1 + kd * t / sqrt(h0))^2"),
          Mut("sum", "a level below the outlet", "(sqrt(h0 + {v} [m]) - kd * t)^2 - {v} [m]", (0.1, 0.4))],
         [("kd", "0.004", "m^0.5/s", "drain constant")]),
]

TEMPLATE = '''# {title}: a shifted textbook law ({kind}), for the baseline's {purpose}
card {name} "{title}" {{
  collection historical
  field      {field}
  source     "scigame benchmarks/shifted/generate.py, seed {seed}: a textbook law and one structural mutation"

  background """
    A bench experiment in which every quantity listed below can be set,
    and the observable is read by a calibrated instrument.
  """
  conditions "ideal conditions"

{inputs}
  output {out} [{ounit}] tolerance abs {oabs} rel 1%  "{odesc}"

{params}
  law {out} = {law}

  # mutation kind: {kind}
  counterfactual "{label}" {{
    {body}
  }}

  fixed design 8 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}}
'''


def _num(x) -> str:
    return f"{float(x):g}"


def _value(m: Mut, rng: random.Random) -> str:
    if m.values is None:
        return ""
    if isinstance(m.values, tuple):
        return f"{float(f'{rng.uniform(*m.values):.2g}'):g}"
    return rng.choice([v for v in m.values if v not in m.avoid])


def card_text(b: Base, m: Mut, v: str, name: str, seed: int, purpose: str) -> str:
    """The card for base law b with mutation m at value v."""
    inputs = "\n".join(f'  input  {n} [{u}] in {_num(lo)} .. {_num(hi)}  "{d}"' for n, u, lo, hi, d in b.inputs)
    params = "\n".join(f'  param {n} = {val}' + (f' [{u}]' if u else '') + f'  "{d}"' for n, val, u, d in b.params)
    law = m.law.replace("{v}", v)
    body = [f"law {b.output[0]} = {law}"]
    if m.rebalance:
        carrier = "k0" if any(p[0] == "k0" for p in b.params) else b.params[0][0]
        mid = ", ".join(f"{n} = {_num((lo + hi) / 2)} [{u}]" for n, u, lo, hi, _ in b.inputs)
        body.append(f"rebalance {carrier} at {mid}")
    label = f"{m.label}" + (f" ({v})" if v else "")
    return TEMPLATE.format(title=b.title, kind=m.kind, purpose=purpose, name=name, field=b.field, seed=seed,
                           inputs=inputs, out=b.output[0], ounit=b.output[1], oabs=b.output[3],
                           odesc=b.output[2], params=params, law=b.law, label=label, body="\n    ".join(body))


def clean(text: str, path: Path) -> bool:
    """True when the card checks without an error or a warning and its two worlds stay
    within LIMIT times of each other at every evaluation point (`scigame worlds`)."""
    from compiler import check_file
    from compiler.sound_worlds import world_ratios
    path.write_text(text)
    result = check_file(path)
    if not result.ok or result.warnings:
        return False
    return all(1 / LIMIT <= r.low and r.high <= LIMIT for r in world_ratios(result.card))


def draw(seed: int, size: int = SIZE, bases: list = BASES):
    """size (base, mutation, value) draws for a seed, each distinct."""
    rng = random.Random(seed)
    pairs = [(b, m) for b in bases for m in b.muts]
    rng.shuffle(pairs)
    return rng, pairs


def write(seed: int, out: Path, purpose: str, size: int = SIZE, bases: list = BASES) -> list[str]:
    """Write size clean cards for seed, drawn from the table bases, into out (old cards
    removed); their names."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.sci"):
        old.unlink()
    rng, pairs = draw(seed, size, bases)
    names, used, i = [], set(), 0
    while len(names) < size and i < 20 * len(pairs):
        b, m = pairs[i % len(pairs)]
        i += 1
        v = _value(m, rng)
        if (b.name, m.law, v) in used:
            continue
        used.add((b.name, m.law, v))
        name = f"{b.name}_{m.kind}_{len(names) + 1:02d}"
        path = out / f"{name}.sci"
        if clean(card_text(b, m, v, name, seed, purpose), path):
            names.append(name)
        else:
            path.unlink()
    return names


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))
    dev = write(DEV_SEED, HERE / "dev", "development set")
    hold = write(HOLDOUT_SEED, HERE / "holdout", "held-out set")
    dev2 = write(DEV2_SEED, HERE / "dev2", "second development set", bases=BASES2)
    dev3 = write(DEV3_SEED, HERE / "dev3", "third development set", bases=BASES3)
    print(len(dev), len(hold), len(dev2), len(dev3))
