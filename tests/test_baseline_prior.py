"""The baseline's no-data guess (scigame/players/baseline/prior.py): the
product of powers with the output's units, at most one universal constant
(the one the task's words hint at), coefficient 1 with the unit factors
folded in. Dimensions and unit factors come from pint, the expected laws
are written by hand."""

from __future__ import annotations

import math

import numpy as np
import pint
import pytest

from scigame.players.baseline.dims import BASE_NAMES
from scigame.players.baseline.prior import prior_laws
from scigame.players.baseline.select import rank
from scigame.players.baseline.task import parse_inputs, parse_outputs
from scigame.players.baseline.trees import evaluate

UREG = pint.UnitRegistry()


def _spec(name: str, unit: str, lo: float = 1.0, hi: float = 2.0) -> dict:
    """A public view's variable, its dimension and SI factor computed by pint."""
    dims = UREG.get_dimensionality(unit)
    return {"name": name, "unit": unit, "domain": {"kind": "range", "lo": lo, "hi": hi},
            "dimension": {b: int(dims.get(f"[{b}]", 0)) for b in BASE_NAMES},
            "si_factor": float(UREG.Quantity(1.0, unit).to_base_units().magnitude)}


def _task(inputs: list[dict], output: dict) -> tuple:
    task = {"inputs": inputs, "outputs": [dict(output, tolerance={"rel": 0.01})]}
    return parse_inputs(task), parse_outputs(task)[0]


def test_a_pendulum_hint_picks_g_and_folds_the_unit_factors():
    """A period in ms from a length in cm, the text mentions a pendulum:
    T = √(L/g), and T[ms] at L[cm] is pint's √(L·cm/g) in ms."""
    inputs, out = _task([_spec("L", "cm")], _spec("T", "ms"))
    law = prior_laws(inputs, out, "A pendulum swings")[0]
    assert law.kind == "dimensional analysis" and law.k == 0
    assert law.text.startswith("T = g^-0.5·sqrt(L) = ")
    L = np.array([5.0, 20.0, 80.0])
    want = [(UREG.Quantity(v, "cm") / UREG.Quantity(9.81, "m/s^2")) ** 0.5 for v in L]
    assert evaluate(law.tree, {"L": L}) == pytest.approx([w.to("ms").magnitude for w in want], rel=1e-9)


def test_without_a_hint_the_cheapest_constant_wins():
    """The same task with no words: of the constants that make a time from a
    length, L/c costs 0.3·1 + 0.01 + 2 nats and √(L/g) 0.3·½ + 0.5 + 0.0025
    + 2.5: the speed of light it is."""
    inputs, out = _task([_spec("L", "m")], _spec("T", "s"))
    law = prior_laws(inputs, out, "")[0]
    assert "c·" in law.text or "c^-1" in law.text
    L = np.array([1.0, 3.0])
    assert evaluate(law.tree, {"L": L}) == pytest.approx(L / 2.998e8, rel=1e-12)


def test_gravitation_needs_G():
    """A force from two masses and a distance, 'bodies attract': G·m1·m2/r²."""
    inputs, out = _task([_spec("m1", "kg"), _spec("m2", "kg"), _spec("r", "m")], _spec("F", "N"))
    law = prior_laws(inputs, out, "Two bodies attract each other")[0]
    P = {"m1": np.array([1.0, 5.0]), "m2": np.array([2.0, 3.0]), "r": np.array([1.0, 4.0])}
    assert evaluate(law.tree, P) == pytest.approx(6.674e-11 * P["m1"] * P["m2"] / P["r"] ** 2, rel=1e-12)


def test_no_constant_when_the_inputs_suffice():
    """A speed from a length and a time: v = L/t, coefficient 1, no constant."""
    inputs, out = _task([_spec("L", "km"), _spec("t", "h")], _spec("v", "m/s"))
    law = prior_laws(inputs, out, "a car drives")[0]
    assert law.text.startswith("v = L·t^-1 = ")
    want = (UREG.Quantity(7.0, "km") / UREG.Quantity(2.0, "h")).to("m/s").magnitude
    assert float(evaluate(law.tree, {"L": np.array([7.0]), "t": np.array([2.0])})[0]) == pytest.approx(want)


def test_the_guess_has_the_output_dimension():
    """Whatever the guess, pint agrees its units are the output's: the
    exponents in the text, applied to the units, give the output's dimension."""
    inputs, out = _task([_spec("m", "kg"), _spec("T", "K")], _spec("E", "J"))
    law = prior_laws(inputs, out, "thermal energy of a molecule")[0]
    assert "k_B" in law.text  # E = k_B·T (times a power of m is impossible: no other mass)
    assert evaluate(law.tree, {"m": np.array([1.0]), "T": np.array([300.0])}) == pytest.approx([1.381e-23 * 300.0])


def test_alternatives_are_ordered_by_description_length():
    """The units' guess (0 nats), the plain sum (1), the constant 1 (2); with
    no data the model choice keeps that order."""
    inputs, out = _task([_spec("L", "m"), _spec("t", "s")], _spec("v", "m/s"))
    laws = prior_laws(inputs, out)
    assert [f.kind for f in laws] == ["dimensional analysis", "linear", "constant"]
    assert [f.complexity for f in laws] == sorted(f.complexity for f in laws)
    check = {"L": np.linspace(1.0, 2.0, 5), "t": np.linspace(1.0, 2.0, 5)}
    ranked = rank(laws, {"L": np.zeros(0), "t": np.zeros(0)}, np.zeros(0), out, check)
    assert [f.kind for f in ranked] == ["dimensional analysis", "linear", "constant"]
    assert evaluate(ranked[1].tree, check) == pytest.approx(check["L"] + check["t"])


def test_without_the_output_dimension_a_proportionality():
    """The output carries no dimension vector: the product of the positive inputs."""
    inputs, _ = _task([_spec("a", "m"), _spec("b", "s", 3.0, 4.0)], _spec("y", "m"))
    out = parse_outputs({"outputs": [{"name": "y"}]})[0]
    laws = prior_laws(inputs, out)
    assert [f.kind for f in laws] == ["proportionality", "linear", "constant"]
    assert float(evaluate(laws[0].tree, {"a": np.array([1.5]), "b": np.array([3.0])})[0]) == pytest.approx(4.5)
    assert math.isclose(laws[-1].tree, 1.0)


def test_a_task_without_inputs_is_a_constant():
    laws = prior_laws([], parse_outputs({"outputs": [{"name": "y"}]})[0])
    assert [(f.kind, f.tree) for f in laws] == [("constant", 1.0)]


def _plain_guess(pos, output, context: str):
    """The guess by a plain loop over every exponent choice: the cheapest
    (cost, exponents, constant, power), the first of equal ones in the order
    prior.py tries them (no constant, then each constant and power)."""
    import itertools

    from scigame.players.baseline.dims import CONSTANTS, constant_vector
    from scigame.players.baseline.prior import _CUES, _EXPONENTS
    options = [(None, 0.0, np.zeros(len(output.dim)))] + [
        (sym, cp, constant_vector(dim) * cp) for sym, _, dim in CONSTANTS for cp in (1.0, -1.0, 0.5, -0.5)]
    best = None
    for sym, cp, cdim in options:
        cue = sym is not None and any(w in context for w in _CUES.get(sym, ()))
        extra = 0 if sym is None else 2.0 + abs(cp) % 1 - (1.5 if cue else 0.0)
        found = None
        for g in itertools.product(_EXPONENTS, repeat=len(pos)):
            d = sum(e * i.dim for e, i in zip(g, pos)) + cdim - output.dim
            if np.abs(d).sum() >= 1e-9:
                continue
            cost = (0.3 * sum(abs(e) for e in g) + 0.5 * sum(e % 1 != 0 for e in g) + sum(e == 0 for e in g)
                    + 0.01 * sum(e * e for e in g) + extra)
            if found is None or cost < found[0]:
                found = (cost, g)
        if found and (best is None or found[0] < best[0] - 1e-12):
            best = (found[0], found[1], sym, cp)
    return best


@pytest.mark.parametrize(("units", "out_unit", "context"), [
    (("cm",), "ms", "A pendulum swings"),
    (("m", "kg", "s"), "N", ""),
    (("m", "kg", "s"), "N", "two bodies attract"),
    (("K", "m"), "W/m^2", "a black body glows"),
    (("mol", "K", "m^3"), "Pa", "an ideal gas"),
])
def test_the_remembered_guess_is_the_plain_one(units, out_unit, context):
    """prior.py keeps its guesses (the search asks again at every turn that no
    law fits): asked twice, and between tasks that differ only in their text,
    it gives what a plain loop over every exponent choice gives."""
    from scigame.players.baseline.prior import _guess
    inputs, out = _task([_spec(f"x{k}", u) for k, u in enumerate(units)], _spec("y", out_unit))
    for text in (context, "", context):
        want = _plain_guess(inputs, out, text)
        for _ in range(2):
            got = _guess(inputs, out, text)
            assert (got is None) == (want is None)
            if want is not None:
                assert got[0] == pytest.approx(want[0], abs=1e-12)
                assert tuple(got[1]) == want[1] and got[2] == want[2] and got[4] == want[3]
