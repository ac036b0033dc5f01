"""Units: `resolve_unit` against pint, and the SI factors the checker stores
in every bundled card.

Expected factors come from a separate pint registry (`Quantity(1, unit)
.to_base_units().magnitude`) or are written out by hand; expected dimensions
are written by hand as base-dimension exponent maps.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pint
import pytest

from scigame.compiler import check_file, parse_source
from scigame.compiler import ast as A
from scigame.compiler.units import DIMENSIONLESS, Dim, UnitError, resolve_unit

UREG = pint.UnitRegistry()
HISTORICAL = sorted((Path(__file__).resolve().parent.parent / "cards" / "historical").glob("*.sci"))

L, M, T, N, TH, I = "[length]", "[mass]", "[time]", "[substance]", "[temperature]", "[current]"


def dim(**powers) -> Dim:
    names = {"L": L, "M": M, "T": T, "N": N, "TH": TH, "I": I}
    return Dim.of({names[k]: Fraction(v) for k, v in powers.items()})


def pint_factor(text: str) -> float:
    return float(UREG.Quantity(1.0, text).to_base_units().magnitude)


FORCE = dim(M=1, L=1, T=-2)
ENERGY = dim(M=1, L=2, T=-2)
PRESSURE = dim(M=1, L=-1, T=-2)
CONC = dim(N=1, L=-3)

#: (unit text, hand-written SI factor, hand-written dimension)
TABLE = [
    ("m", 1.0, dim(L=1)),
    ("cm", 1e-2, dim(L=1)),
    ("mm", 1e-3, dim(L=1)),
    ("km", 1e3, dim(L=1)),
    ("nm", 1e-9, dim(L=1)),
    ("angstrom", 1e-10, dim(L=1)),
    ("g", 1e-3, dim(M=1)),
    ("mg", 1e-6, dim(M=1)),
    ("kg", 1.0, dim(M=1)),
    ("s", 1.0, dim(T=1)),
    ("min", 60.0, dim(T=1)),
    ("h", 3600.0, dim(T=1)),
    ("day", 86400.0, dim(T=1)),
    ("N", 1.0, FORCE),
    ("mN", 1e-3, FORCE),
    ("kN", 1e3, FORCE),
    ("Pa", 1.0, PRESSURE),
    ("kPa", 1e3, PRESSURE),
    ("bar", 1e5, PRESSURE),
    ("atm", 101325.0, PRESSURE),
    ("J", 1.0, ENERGY),
    ("eV", 1.602176634e-19, ENERGY),
    ("kWh", 3.6e6, ENERGY),
    ("cal", 4.184, ENERGY),
    ("W", 1.0, dim(M=1, L=2, T=-3)),
    ("mW", 1e-3, dim(M=1, L=2, T=-3)),
    ("L", 1e-3, dim(L=3)),
    ("mL", 1e-6, dim(L=3)),
    ("deg", math.pi / 180, DIMENSIONLESS),
    ("rad", 1.0, DIMENSIONLESS),
    ("percent", 0.01, DIMENSIONLESS),
    ("1", 1.0, DIMENSIONLESS),
    ("Hz", 1.0, dim(T=-1)),
    ("rpm", 2 * math.pi / 60, dim(T=-1)),
    ("1/min", 1 / 60, dim(T=-1)),
    ("kJ/mol", 1e3, dim(M=1, L=2, T=-2, N=-1)),
    ("J/(mol*K)", 1.0, dim(M=1, L=2, T=-2, N=-1, TH=-1)),
    ("m^3/(kg*s^2)", 1.0, dim(L=3, M=-1, T=-2)),
    ("m^3 kg^-1 s^-2", 1.0, dim(L=3, M=-1, T=-2)),
    ("W m^-2 K^-4", 1.0, dim(M=1, T=-3, TH=-4)),
    ("mol/L", 1e3, CONC),
    ("mM", 1.0, CONC),
    ("uM", 1e-3, CONC),
    ("cm^2", 1e-4, dim(L=2)),
    ("mL/min", 1e-6 / 60, dim(L=3, T=-1)),
    ("uM/s", 1e-3, dim(N=1, L=-3, T=-1)),
    ("K", 1.0, dim(TH=1)),
    ("delta_degC", 1.0, dim(TH=1)),
    ("delta_degF", 5 / 9, dim(TH=1)),
    ("T", 1.0, dim(M=1, T=-2, I=-1)),
    # pint's `gauss` is the Gaussian-CGS unit, not 1e-4 T: its dimension is
    # M^(1/2) L^(-1/2) T^-1 with factor sqrt(0.1) in base units.
    ("gauss", math.sqrt(0.1), Dim.of({M: Fraction(1, 2), L: Fraction(-1, 2), T: -1})),
    ("m^(1/3)", 1.0, Dim.of({L: Fraction(1, 3)})),
]


@pytest.mark.parametrize("text,factor,expected_dim", TABLE, ids=[t[0] for t in TABLE])
def test_resolve_unit_table(text, factor, expected_dim):
    unit = resolve_unit(text)
    assert unit.dim == expected_dim
    assert unit.si_factor == pytest.approx(factor, rel=1e-12)
    # and the same as an independent pint registry says
    assert unit.si_factor == pytest.approx(pint_factor(text), rel=1e-12)
    assert unit.dim == Dim.of(dict(UREG.Quantity(1.0, text).dimensionality))


@pytest.mark.parametrize("text", ["degC", "degF", "celsius", "fahrenheit"])
def test_offset_units_rejected(text):
    with pytest.raises(UnitError) as info:
        resolve_unit(text)
    assert info.value.kind == "offset"


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_unit(text):
    with pytest.raises(UnitError) as info:
        resolve_unit(text)
    assert info.value.kind == "empty"


@pytest.mark.parametrize("text", ["foo", "meterz", "2 m", "m/0", "(", "m^", "()", "m^1e400"])
def test_unknown_units(text):
    with pytest.raises(UnitError) as info:
        resolve_unit(text)
    assert info.value.kind == "unknown"


def test_offset_unit_in_card_is_e401_and_suggests_kelvin():
    text = (Path(HISTORICAL[0]).parent / "arrhenius.sci").read_text()
    bad = text.replace("input  T [K]", "input  T [degC]")
    assert bad != text
    from scigame.compiler import check_source
    result = check_source(bad, "arrhenius.sci")
    assert result.card is None
    codes = [d.code for d in result.errors]
    assert "E401" in codes
    e401 = next(d for d in result.errors if d.code == "E401")
    assert any("K" in h for h in e401.hints)


# ---- every bundled card: stored SI factors agree with pint -------------------------

def _card_ids():
    return [p.stem for p in HISTORICAL]


@pytest.mark.parametrize("path", HISTORICAL, ids=_card_ids())
def test_card_si_factors_match_pint(path):
    result = check_file(path)
    if not result.ok:
        pytest.skip(f"{path.name} currently has errors: "
                    + "; ".join(f"{d.code} {d.message}" for d in result.errors))
    card = result.card
    ast, _ = parse_source(path.read_text(), str(path))
    declared = {st.name: st for st in ast.statements if isinstance(st, (A.Input, A.Output, A.Param))}

    for spec in card.inputs + card.outputs:
        text = declared[spec.name].unit.text if declared[spec.name].unit else "1"
        assert spec.unit.si_factor == pytest.approx(pint_factor(text), rel=1e-12), spec.name
        assert spec.unit.dim == Dim.of(dict(UREG.Quantity(1.0, text).dimensionality)), spec.name

    for name, p in card.original.params.items():
        st = declared[name]
        text = st.unit.text if st.unit else "1"
        expected = UREG.Quantity(st.value.value, text).to_base_units()
        assert p.value == pytest.approx(float(expected.magnitude), rel=1e-12, abs=0.0), name
        assert p.dim == Dim.of(dict(expected.dimensionality)), name
        assert p.unit_text == text


def _q(value, unit):
    return UREG.Quantity(value, unit)


#: The original law of each bundled card, written independently with pint
#: quantities: inputs (in their declared units) -> {output: Quantity}.
PINT_LAWS = {
    "arrhenius": lambda x: {"k": _q(1e10, "1/s") * np.exp(
        (-_q(80, "kJ/mol") / (_q(8.314, "J/(mol*K)") * _q(x["T"], "K"))).to("")),},
    "darcy": lambda x: {"Q": _q(1e-4, "m/s") * _q(x["A"], "cm^2") * _q(x["dh"], "cm") / _q(x["L"], "cm")},
    "gravitation": lambda x: {"F": _q(6.674e-11, "m^3 kg^-1 s^-2") * _q(x["m1"], "kg") * _q(x["m2"], "kg")
                              / _q(x["r"], "m") ** 2},
    "ideal_gas": lambda x: {"P": _q(x["n"], "mol") * _q(8.314, "J/(mol*K)") * _q(x["T"], "K") / _q(x["V"], "L")},
    "malus": lambda x: {"P": 0.9 * _q(x["P0"], "mW") * np.cos(_q(x["theta"], "deg")) ** 2},
    "michaelis_menten": lambda x: {"v": _q(20, "uM/s") * _q(x["S"], "mM") / (_q(17, "mM") + _q(x["S"], "mM"))},
    "pendulum": lambda x: {"T": 2 * np.pi * np.sqrt(_q(x["L"], "m") / _q(9.81, "m/s^2"))},
    "radioactive_decay": lambda x: {"R": _q(500, "1/s") * 2 ** (-(_q(x["t"], "s") / _q(55.6, "s")).to("").magnitude)},
    # glass into air; past the critical angle (the card's `where`) arcsin has no value, like the law
    "snell": lambda x: {"theta2": _q(np.arcsin(1.5 * np.sin(_q(x["theta1"], "deg").to("rad").magnitude) / 1.0), "rad")},
    "stefan_boltzmann": lambda x: {"P": 0.95 * _q(5.670e-8, "W m^-2 K^-4") * _q(x["A"], "cm^2") * _q(x["T"], "K") ** 4},
}


@pytest.mark.parametrize("path", HISTORICAL, ids=_card_ids())
def test_card_original_law_matches_pint(path):
    """Numeric meaning: inputs read in their declared units, the law in SI,
    the result in the output's declared unit -- compared with pint."""
    if path.stem not in PINT_LAWS:
        pytest.skip(f"no independent formula for {path.stem}")
    result = check_file(path)
    if not result.ok:
        pytest.skip(f"{path.name} has errors")
    card = result.card
    rng = np.random.default_rng(len(path.stem))
    compared = 0
    for _ in range(100):
        if compared == 5:
            break
        point = {}
        for i in card.inputs:
            if i.kind == "set":
                point[i.name] = float(rng.choice(i.values))
            else:
                point[i.name] = float(rng.uniform(i.lo, i.hi))
        if not all(bool(ok) for ok in card.original.defined(card, point).values()):
            continue  # the card's `where` says the law has no value here (snell: past the critical angle)
        compared += 1
        got = card.original.evaluate(card, point)
        want = PINT_LAWS[path.stem](point)
        for spec in card.outputs:
            text = next(st.unit.text for st in parse_source(path.read_text())[0].statements
                        if isinstance(st, A.Output) and st.name == spec.name)
            expected = float(want[spec.name].to(text).magnitude)
            assert float(got[spec.name]) == pytest.approx(expected, rel=1e-9), (spec.name, point)
