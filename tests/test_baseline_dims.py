"""The baseline's dimensional analysis (scigame/players/baseline/dims.py):
every group it finds is dimensionless and every prefactor has the output's
units, as pint computes them; the groups span sympy's nullspace of the
dimension matrix, written here."""

from __future__ import annotations

import numpy as np
import pint
import pytest
import sympy

from scigame.players.baseline.dims import BASE_NAMES, CONSTANTS, analyse, constant_vector, independent
from scigame.players.baseline.task import Input, Output

UREG = pint.UnitRegistry()


def _vec(unit: str) -> np.ndarray:
    dims = UREG.get_dimensionality(unit)
    return np.array([float(dims.get(f"[{b}]", 0)) for b in BASE_NAMES])


def _inputs(units: dict[str, str]) -> list[Input]:
    return [Input(n, u, "range", 1.0, 2.0, [], _vec(u)) for n, u in units.items()]


def _unit_of(units: dict[str, str], names, exps) -> pint.Unit:
    q = UREG.Quantity(1.0, "")
    for n, e in zip(names, exps):
        q = q * UREG.Quantity(1.0, units[n]) ** float(e)
    return q


CASES = {
    "pendulum": ({"L": "m", "g": "m/s^2", "m": "kg"}, "s"),
    "drag": ({"rho": "kg/m^3", "v": "m/s", "A": "m^2", "mu": "Pa*s"}, "N"),
    "gas": ({"P": "Pa", "V": "m^3", "T": "K"}, "J"),  # needs a hidden constant with the mole: no prefactor
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_groups_are_dimensionless_and_the_prefactor_has_the_output_units(case):
    units, out_unit = CASES[case]
    d = analyse(_inputs(units), Output("y", out_unit, 0.0, 0.01, _vec(out_unit)))
    assert d.names == tuple(units)
    for g in d.groups:
        assert _unit_of(units, d.names, g).dimensionless, g
    if d.prefactor is not None:
        q = _unit_of(units, d.names, d.prefactor)
        assert q.dimensionality == UREG.Quantity(1.0, out_unit).dimensionality
    D = sympy.Matrix([[int(_vec(units[n])[r]) for n in d.names] for r in range(len(BASE_NAMES))])
    null = D.nullspace()
    assert len(d.basis) == len(null)
    assert len(independent(d.groups, len(null))) == len(null)  # the groups span the nullspace


def test_pendulum_prefactor_and_no_group_with_the_mass():
    units, out = CASES["pendulum"]
    d = analyse(_inputs(units), Output("T", out, 0.0, 0.01, _vec(out)))
    assert d.determined and [float(p) for p in d.prefactor] == [0.5, -0.5, 0.0]
    assert d.groups == ()  # L, g and m make no dimensionless number


def test_drag_has_the_reynolds_number():
    """ρ·v·√A/μ is dimensionless; with integer exponents ≤ 3, ρ²·v²·A/μ² is the
    simplest power of it (the groups are integer vectors of one sign)."""
    units, out = CASES["drag"]
    d = analyse(_inputs(units), Output("F", out, 0.0, 0.01, _vec(out)))
    assert (2, 2, 1, -2) in d.groups
    assert d.determined and _unit_of(units, d.names, d.prefactor).dimensionality == UREG.N.dimensionality


def test_hidden_constant_when_the_units_cannot_make_the_output():
    units, out = CASES["gas"]
    d = analyse(_inputs({"P": "Pa", "T": "K"}), Output("E", out, 0.0, 0.01, _vec(out)))
    assert d is not None and not d.determined and d.prefactor is None


def test_inputs_left_out_of_the_analysis():
    """Angles, inputs of either sign, constants and inputs without a
    dimension vector are not in the monomials; no dimension at all: None."""
    inputs = [Input("x", "m", "range", 1.0, 2.0, [], _vec("m")), Input("th", "rad", "range", 0.1, 1.0, [], _vec("rad"),
                                                                     1.0, True),
              Input("u", "m", "range", -1.0, 1.0, [], _vec("m")), Input("c", "m", "range", 2.0, 2.0, [], _vec("m")),
              Input("n", "", "range", 1.0, 2.0, [])]
    d = analyse(inputs, Output("y", "m", 0.0, 0.01, _vec("m")))
    assert d.names == ("x",)
    assert analyse(inputs, Output("y", "m", 0.0, 0.01)) is None


def test_constants_have_the_units_pint_gives_them():
    units = {"G": "m^3/(kg*s^2)", "g": "m/s^2", "c": "m/s", "R": "J/(mol*K)", "k_B": "J/K",
             "sigma": "W/(m^2*K^4)", "h": "J*s", "e": "C"}
    for sym, value, dim in CONSTANTS:
        assert list(constant_vector(dim)) == list(_vec(units[sym])), sym
        assert value == pytest.approx(UREG.Quantity(1.0, {"G": "gravitational_constant", "g": "g0",
                                                          "c": "speed_of_light", "R": "molar_gas_constant",
                                                          "k_B": "boltzmann_constant",
                                                          "sigma": "stefan_boltzmann_constant",
                                                          "h": "planck_constant", "e": "elementary_charge"}[sym]).to(units[sym]).magnitude,
                                      rel=2e-3), sym
