"""The baseline's saturations with a fitted exponent
(scigame/players/baseline/saturation.py): Michaelis–Menten, Hill and a
stretched exponential recovered from exact readings, constants checked
against the ones the readings were made with."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scigame.players.baseline.saturation import EXPONENTS, SCALES, _screen, _SHAPES, saturations
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate

S_IN = Input("S", "mM", "range", 0.1, 10.0, [])
OUT = Output("v", "1", 0.0, 0.01)


def _data(law, n=12, seed=1) -> OutputData:
    S = np.geomspace(S_IN.lo, S_IN.hi, n) * np.random.default_rng(seed).uniform(0.97, 1.03, n)
    return OutputData([S_IN], OUT, {"S": S}, law(S), None)


def _found(data, label):
    (law,) = [f for f in saturations(data) if label in f.kind]
    return law


@settings(max_examples=8, deadline=None)
@given(st.integers(5, 99), st.integers(3, 40))
def test_michaelis_menten_constants_are_recovered(vmax10, km10):
    """v = Vmax·S/(Km + S) = Vmax/(1 + (S/Km)^−1): the fit finds Vmax, Km
    (short decimals, as the readings were made) and the exponent −1."""
    vmax, km = vmax10 / 10, km10 / 10

    def law(S):
        return vmax * S / (km + S)
    law_ = _found(_data(law), "1/(1+·)")
    grid = np.geomspace(0.1, 10.0, 50)
    assert evaluate(law_.tree, {"S": grid}) == pytest.approx(law(grid), rel=1e-6)
    c, ratio = law_.tree["args"]  # C·1/(1 + (S/b)^e)
    z = ratio["args"][1]["args"][1]
    b, e = z["args"][0]["args"][1], z["args"][1]
    assert (c, e) == pytest.approx((vmax, -1.0), rel=1e-6) and b == pytest.approx(km, rel=1e-6)
    assert law_.fit_max < 0.01 and law_.k == 3


def test_hill_with_a_fractional_exponent():
    """v = 3/(1 + (S/1.3)^2.7) read to 5 decimals: the exponent is no small
    rational, and is found; the fitted constants (off by the rounding) are
    snapped to the decimals the law was written with."""
    data = _data(lambda S: 3.0 / (1.0 + (S / 1.3) ** 2.7))
    data.y = np.round(data.y, 5)
    law_ = _found(data, "1/(1+·)")
    assert law_.text == "v = 3/(1 + (S/1.3)^2.7)"
    c, ratio = law_.tree["args"]
    z = ratio["args"][1]["args"][1]
    assert (c, z["args"][0]["args"][1], z["args"][1]) == (3.0, 1.3, 2.7)


def test_stretched_exponential():
    """v = 2·exp(−(S/4)^0.6) (Weibull)."""
    law_ = _found(_data(lambda S: 2.0 * np.exp(-(S / 4.0) ** 0.6)), "exp(-·)")
    assert law_.text == "v = 2·exp(-(S/4)^0.6)"
    grid = np.geomspace(0.1, 10.0, 30)
    assert evaluate(law_.tree, {"S": grid}) == pytest.approx(2.0 * np.exp(-(grid / 4.0) ** 0.6), rel=1e-9)


def test_screen_is_the_grid_minimum():
    """The screen's (C, b, e) is the grid point of least weighted error,
    C by least squares: checked against a brute-force loop written here."""
    data = _data(lambda S: 3.0 / (1.0 + (S / 1.3) ** 2.7))
    fn = _SHAPES[0][1]
    x, med = data.X["S"], float(np.median(data.X["S"]))
    best = None
    for e in EXPONENTS:
        for s in SCALES:
            h = fn((x / (s * med)) ** e)
            c = np.sum(data.w * h * data.y) / np.sum(data.w * h * h)
            err = np.sum(((c * h - data.y) / data.sw) ** 2)
            if best is None or err < best[0]:
                best = (err, c, s * med, e)
    assert _screen(data, x, fn) == pytest.approx(best[1:], rel=1e-9)


def test_too_few_points():
    assert saturations(_data(lambda S: S, n=4)) == []


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 9), st.integers(110, 400), st.integers(5, 60), st.sampled_from([-1, 1]))
def test_a_linear_fractional_law_is_recovered(b10, f0, a, sign):
    """Hill's muscle law v = b·(F0 − F)/(F + a), F0 beyond the range (and
    the same turned over, sign −1) over F in 0.1..10: the linear-fractional law of S fits every
    exact reading within the 0.3 tolerances its constants' rounding to
    short decimals may cost (fitting.snap_decimals: each moved by at most
    half the 1% relative tolerance), has no pole among them, and predicts
    the law within half a tolerance over the range."""
    b, F0, a = b10 / 10, f0 / 10, a / 10

    def law(F):
        return sign * b * (F0 - F) / (F + a)
    data = _data(law)
    found = _found(data, "linear-fractional")
    assert found.fit_max <= 0.3
    grid = {"S": np.geomspace(0.1, 10.0, 60)}
    truth = law(grid["S"])
    assert np.max(np.abs(evaluate(found.tree, grid) - truth) / OUT.scale(truth)) < 0.5


def test_no_linear_fractional_law_with_a_pole_among_the_readings():
    """1/(S − 3) changes sign across S = 3, inside the readings' range: the
    linear-fractional fit that follows it has its pole there, and is dropped."""
    data = _data(lambda S: 1.0 / (S - 3.0))
    assert not [f for f in saturations(data) if "linear-fractional" in f.kind]
