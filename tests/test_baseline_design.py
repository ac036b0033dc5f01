"""The baseline's experiment design (players/baseline/design.py), checked
against points and counts worked out by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from scigame.players.baseline.design import (RIVAL_FLOOR, choose, findings, interactions, plan_size, planned,
                                             slopes)
from scigame.players.baseline.identify import Hyp
from scigame.players.baseline.task import Input, Output, Sampler

LENGTH = np.eye(7)[1]  # dims.BASE_NAMES: current, length, ...


def _linear(name, lo, hi, dim=None, unit="m"):
    return Input(name, unit, "linear", lo, hi, [], dim=dim)


def test_plan_of_two_like_inputs_by_hand():
    a, b = _linear("a", 0.0, 10.0, LENGTH), _linear("b", 0.0, 10.0, LENGTH)
    plan = planned([a, b])
    # base at 0.5, low at 0.15, high at 0.85 of [0, 10]; pair: both high; swap: a low↔b high
    assert [p for p, _ in plan] == [{"a": 5.0, "b": 5.0}, {"a": 1.5, "b": 5.0}, {"a": 8.5, "b": 5.0},
                                    {"a": 5.0, "b": 1.5}, {"a": 5.0, "b": 8.5}, {"a": 8.5, "b": 8.5},
                                    {"a": 8.5, "b": 1.5}]
    assert [why for _, why in plan][-2:] == ["separability of a and b", "symmetry of a and b"]


def test_plan_skips_what_the_constraint_forbids_and_inputs_that_do_not_vary():
    a, fixed = _linear("a", 0.0, 10.0), _linear("c", 2.0, 2.0)
    plan = planned([a, fixed], allowed=lambda pt: pt["a"] < 8.0)
    assert [p for p, _ in plan] == [{"a": 5.0, "c": 2.0}, {"a": 1.5, "c": 2.0}]  # the high point is refused


@pytest.mark.parametrize(("n", "budget", "expected"), [
    (7, None, 7),  # Adaptive without a budget: the whole design
    (7, 20, 7),  # half of 20 is 10 >= 7
    (7, 8, 4),  # half of 8 is 4
    (7, 3, 3),  # a small budget: min(4, B)
    (2, 10, 4),  # at least min(4, B), even past a plan of 2 (the caller's slice keeps it whole)
])
def test_plan_size(n, budget, expected):
    assert plan_size(n, budget) == expected


def _observations(inputs, law):
    return [SimpleNamespace(inputs=p, outputs={"y": law(p["a"], p["b"])}) for p, _ in planned(inputs)]


def _separability(found):
    return [f for f in found if "separable" in f]


def test_findings_tell_multiplicative_from_additive_separability():
    a, b = _linear("a", 1.0, 10.0), _linear("b", 1.0, 10.0, unit="s")
    out = Output("y", "1", tol_abs=1e-9, tol_rel=1e-6)
    assert _separability(findings([a, b], [out], _observations([a, b], lambda x, y: 3 * x * y ** 2))) == [
        "y is multiplicatively separable in a and b"]
    assert _separability(findings([a, b], [out], _observations([a, b], lambda x, y: x + 2 * y))) == [
        "y is additively separable in a and b"]
    assert _separability(findings([a, b], [out], _observations([a, b], lambda x, y: np.sin(x * y) + 2))) == []
    # the pair point missing
    assert _separability(findings([a, b], [out], _observations([a, b], lambda x, y: x * y)[:3])) == []


def test_slopes_of_a_power_law_are_its_exponents_on_both_sides():
    a, b = _linear("a", 1.0, 10.0), _linear("b", 1.0, 10.0, unit="s")
    out = Output("y", "1", tol_abs=1e-9, tol_rel=1e-6)
    got = slopes([a, b], [out], _observations([a, b], lambda x, y: 3 * x ** 1.5 * y ** -2))
    assert [(o, i) for o, i, *_ in got] == [("y", "a"), ("y", "b")]
    for (_, _, below, above, allowed), p in zip(got, (1.5, -2.0)):
        assert below == pytest.approx(p, abs=1e-9) and above == pytest.approx(p, abs=1e-9)
        assert 0 < allowed < 1e-4  # 1e-6 relative tolerances over logs of ratios near 2
    found = findings([a, b], [out], _observations([a, b], lambda x, y: 3 * x ** 1.5 * y ** -2))
    assert found[:2] == ["y scales as a power of a: one log–log slope, 1.5, on both sides of the base point",
                         "y scales as a power of b: one log–log slope, -2, on both sides of the base point"]


def test_slope_of_a_shifted_law_drifts_by_hand():
    # y = a + 11 at b = 5.5: a at 2.35, 5.5, 8.65 (15%, 50%, 85% of 1..10)
    a, b = _linear("a", 1.0, 10.0), _linear("b", 1.0, 10.0, unit="s")
    out = Output("y", "1", tol_abs=1e-9, tol_rel=1e-3)
    got = slopes([a, b], [out], _observations([a, b], lambda x, y: x + 2 * y))
    _, name, below, above, allowed = got[0]
    assert name == "a"
    assert below == pytest.approx(math.log(16.5 / 13.35) / math.log(5.5 / 2.35), rel=1e-12)
    assert above == pytest.approx(math.log(19.65 / 16.5) / math.log(8.65 / 5.5), rel=1e-12)
    assert abs(above - below) > allowed
    assert findings([a, b], [out], _observations([a, b], lambda x, y: x + 2 * y))[0].startswith(
        "the log–log slope of y in a drifts from 0.249 to 0.386")


def test_slopes_at_two_base_points_by_hand():
    """The slope in a above the base, with b at the base and with b high:
    a power law's is its exponent at both; for y = a·b + a² it is
    ln(y(8.65, b)/y(5.5, b))/ln(8.65/5.5) at b = 5.5 and at b = 8.65."""
    a, b = _linear("a", 1.0, 10.0), _linear("b", 1.0, 10.0, unit="s")
    out = Output("y", "1", tol_abs=1e-9, tol_rel=1e-6)
    (o, na, nb, at_base, b_high, allowed), = interactions([a, b], [out], _observations(
        [a, b], lambda x, y: 3 * x ** 1.5 * y ** -2))
    assert (o, na, nb) == ("y", "a", "b") and at_base == pytest.approx(1.5, abs=1e-9)
    assert b_high == pytest.approx(1.5, abs=1e-9) and 0 < allowed < 1e-4
    law = lambda x, y: x * y + x ** 2  # noqa: E731
    (_, _, _, at_base, b_high, allowed), = interactions([a, b], [out], _observations([a, b], law))
    for slope, bv in ((at_base, 5.5), (b_high, 8.65)):
        assert slope == pytest.approx(math.log(law(8.65, bv) / law(5.5, bv)) / math.log(8.65 / 5.5), rel=1e-12)
    assert abs(b_high - at_base) > allowed
    said = findings([a, b], [out], _observations([a, b], law))
    assert "the log–log slope of y in a is 1.56 with b at the base point and 1.44 with b high: a and b interact" in said
    said = findings([a, b], [out], _observations([a, b], lambda x, y: 3 * x ** 1.5 * y ** -2))
    assert ("the log–log slope of y in a is 1.5 with b at the base point and 1.5 with b high: the power of a does "
            "not depend on b") in said
    # b of either sign: no slopes
    c = _linear("b", -1.0, 1.0, unit="s")
    assert interactions([a, c], [out], _observations([a, c], lambda x, y: x * (y + 2))) == []


def test_slopes_skip_inputs_of_either_sign_and_readings_that_cross_zero():
    a, b = _linear("a", 1.0, 10.0), _linear("b", -1.0, 1.0, unit="s")
    out = Output("y", "1", tol_abs=1e-9, tol_rel=1e-6)
    assert slopes([a, b], [out], _observations([a, b], lambda x, y: (x - 5) * (y + 2))) == []  # y < 0 at a low


def test_choose_goes_where_the_rival_disagrees_most():
    x = _linear("x", 0.0, 10.0)
    out = Output("y", "1", tol_abs=1.0, tol_rel=0.0)
    hyps = [Hyp("y = 0", 0.6, {"y": 0.0}), Hyp("y = x", 0.4, {"y": {"var": "x"}})]
    point, why, spread = choose([x], [out], hyps, Sampler([x]), [], [], seed=1, turn=0)
    # they differ by x tolerances: every x >= 5 is decisive (DECISIVE = 5), and the spread is the
    # largest difference among the 512 candidates, close to 10
    assert point["x"] >= 5.0 and 9.9 < spread <= 10.0
    assert why.startswith("hypotheses 1 and 2 differ here by")
    alike = [Hyp("y = x", 0.6, {"y": {"var": "x"}}), Hyp("y = x too", 0.4, {"y": {"var": "x"}})]
    assert choose([x], [out], alike, Sampler([x]), [], [], seed=1, turn=0)[2] == 0.0
    faint = [hyps[0], Hyp("y = x", RIVAL_FLOOR / 2, {"y": {"var": "x"}})]
    assert choose([x], [out], faint, Sampler([x]), [], [], seed=1, turn=0)[2] == 0.0  # below the floor


def test_choose_keeps_away_from_the_refused_region():
    x = _linear("x", 0.0, 10.0)
    out = Output("y", "1", tol_abs=1.0, tol_rel=0.0)
    hyps = [Hyp("y = 0", 0.6, {"y": 0.0}), Hyp("y = x", 0.4, {"y": {"var": "x"}})]
    point, _, _ = choose([x], [out], hyps, Sampler([x]), [{"x": 1.0}], [{"x": 9.0}], seed=1, turn=0)
    assert abs(point["x"] - 1.0) < abs(point["x"] - 9.0)  # nearer the measured point than the refused one
