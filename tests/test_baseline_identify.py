"""The baseline's Identification (scigame/players/baseline/identify.py):
which member of a family G(x; s) = g + s·(g′ − g) the data follow. Every
confidence is recomputed here from the rule (likelihood at the tolerance
scale times the textbook prior 0.6 / 0.4) with numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scigame.players.baseline.identify import TEXTBOOK_PRIOR, fit_s, identify, softmax
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import op, var

INPUTS = [Input("x", "m", "range", 1.0, 3.0, [])]
OUTPUTS = [Output("y", "1", 0.0, 0.01)]
CHECK = {"x": np.linspace(1.0, 3.0, 40)}


def family(b: float) -> dict:
    """y = 2x + s·b·x²: s = 0 the textbook law, s = 1 its alternative."""
    return {"y": {"tree": op("add", op("mul", 2.0, var("x")), op("mul", var("s"), b, op("pow", var("x"), 2.0)))}}


def member(x, s, b):
    return 2.0 * x + s * b * x ** 2


def loglik(p, y):
    return -0.5 * float(np.sum(np.minimum(np.abs(p - y) / (0.01 * np.abs(y)), 1e3) ** 2))


def confidences(x, y, b):
    """The two members' confidences by hand: prior × likelihood, normalised."""
    s0 = math.log(TEXTBOOK_PRIOR) + loglik(member(x, 0, b), y)
    s1 = math.log(1 - TEXTBOOK_PRIOR) + loglik(member(x, 1, b), y)
    top = max(s0, s1)
    w0, w1 = math.exp(s0 - top), math.exp(s1 - top)
    return w0 / (w0 + w1), w1 / (w0 + w1)


@pytest.mark.parametrize("true_s", [0.0, 1.0])
def test_a_near_miss_loses_by_the_evidence(true_s):
    """The two members differ by 1.5 % of y at x = 1 (1.5 tolerances) and more
    beyond: six readings pick the true one, with the hand-computed confidences."""
    b = 0.03
    x = np.linspace(1.0, 3.0, 6)
    y = member(x, true_s, b)
    hyps = identify({"candidates": family(b)}, INPUTS, OUTPUTS, {"x": x}, {"y": y}, CHECK)
    assert [h.detail["s"] for h in hyps] == [0.0, 1.0]
    want = confidences(x, y, b)
    assert [h.confidence for h in hyps] == pytest.approx(want, rel=1e-9)
    assert max(hyps, key=lambda h: h.confidence).detail["s"] == true_s
    assert "textbook" in hyps[0].statement and "alternative" in hyps[1].statement


def test_one_reading_near_both_leaves_the_prior_in_charge():
    """One reading halfway between the members, 0.015 tolerances from each:
    the likelihoods nearly cancel and the textbook prior decides."""
    b = 0.0003
    x = np.array([1.0])
    y = member(x, 0.5, b)
    hyps = identify({"candidates": family(b)}, INPUTS, OUTPUTS, {"x": x}, {"y": y}, CHECK)
    assert hyps[0].confidence == pytest.approx(confidences(x, y, b)[0], rel=1e-12)
    assert hyps[0].confidence == pytest.approx(TEXTBOOK_PRIOR, abs=1e-3)


def test_without_data_the_prior():
    hyps = identify({"candidates": family(0.5)}, INPUTS, OUTPUTS, {"x": np.zeros(0)}, {"y": np.zeros(0)}, CHECK)
    assert [h.confidence for h in hyps] == pytest.approx([0.6, 0.4])  # the module's stated prior
    # the s = 0 member drops the alternative's term (trees.fold): 2·x alone
    assert hyps[0].predictor["y"] == op("mul", 2.0, var("x"))


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.2, 2.0))
def test_fit_s_recovers_a_blend(s, b):
    """G is linear in s: on exact readings of any blend, the weighted least
    squares s is the blend's."""
    x = np.linspace(1.0, 3.0, 7)
    assert fit_s(family(b), OUTPUTS, {"x": x}, {"y": member(x, s, b)}) == pytest.approx(s, abs=1e-9)


def test_fit_s_weighs_readings_by_their_tolerance():
    """Off-family readings: s is the weighted least-squares ratio with weights
    1/(0.01·|y|)², written here with numpy."""
    x = np.array([1.0, 2.0, 3.0, 1.5])
    y = member(x, 0.4, 0.5) * np.array([1.02, 0.97, 1.01, 1.0])
    d = 0.5 * x ** 2
    w = 1.0 / (0.01 * np.abs(y)) ** 2
    want = np.sum(w * (y - 2.0 * x) * d) / np.sum(w * d * d)
    assert fit_s(family(0.5), OUTPUTS, {"x": x}, {"y": y}) == pytest.approx(want, rel=1e-12)
    assert abs(want - np.sum((y - 2.0 * x) * d) / np.sum(d * d)) > 1e-3  # the weights matter here


def test_fit_s_is_clipped_and_needs_a_difference():
    x = np.linspace(1.0, 3.0, 5)
    assert fit_s(family(0.5), OUTPUTS, {"x": x}, {"y": member(x, 1.7, 0.5)}) == 1.0
    assert fit_s(family(0.5), OUTPUTS, {"x": x}, {"y": member(x, -0.4, 0.5)}) == 0.0
    assert fit_s(family(0.0), OUTPUTS, {"x": x}, {"y": member(x, 0.0, 0.5)}) is None  # g′ = g


def test_an_interpolating_family_adds_the_blend_that_wins():
    """With intermediate s allowed, readings of s = 0.3 give a third member
    s = 0.3, distinguishable from both ends and far more likely."""
    x = np.linspace(1.0, 3.0, 8)
    hyps = identify({"candidates": family(0.5), "interpolate": True}, INPUTS, OUTPUTS, {"x": x},
                    {"y": member(x, 0.3, 0.5)}, CHECK)
    assert [h.detail["s"] for h in hyps] == [0.0, 1.0, pytest.approx(0.3)]
    assert hyps[2].confidence > 0.999 and "blend with s = 0.3" in hyps[2].statement


def test_a_blend_that_predicts_like_an_end_is_not_added():
    """s = 0.01 of a small alternative is within half a tolerance of s = 0 everywhere."""
    x = np.linspace(1.0, 3.0, 8)
    hyps = identify({"candidates": family(0.05), "interpolate": True}, INPUTS, OUTPUTS, {"x": x},
                    {"y": member(x, 0.01, 0.05)}, CHECK)
    assert [h.detail["s"] for h in hyps] == [0.0, 1.0]


def test_no_family_no_hypotheses():
    assert identify({}, INPUTS, OUTPUTS, {"x": np.ones(2)}, {"y": np.ones(2)}, CHECK) == []
    assert identify({"candidates": {"y": {}}}, INPUTS, OUTPUTS, {"x": np.ones(2)}, {"y": np.ones(2)}, CHECK) == []


def test_softmax():
    assert softmax([0.0, math.log(3.0)]) == pytest.approx([0.25, 0.75])
    assert softmax([-math.inf, 0.0]) == [0.0, 1.0]
    assert softmax([-math.inf, -math.inf]) == [0.5, 0.5]
    assert softmax([0.0, -1000.0])[1] == pytest.approx(math.exp(-700.0) / (1 + math.exp(-700.0)))
