"""The task as the baseline reads it (scigame/players/baseline/task.py):
domains mapped from [0, 1) (uniform, log-uniform, integer, set), tolerance
scales with noise, the public view parsed, readable constraints, and the
Halton check sample against scipy's own radical inverse."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import qmc

from scigame.players.baseline.task import (CHECK_POINTS, NOISE_SDS, Input, Output, Sampler, _radical_inverse,
                                           constraint_test, fmt, parse_inputs, parse_outputs)

LIN = Input("x", "m", "range", 2.0, 6.0, [])
LOG = Input("c", "mol", "log", 0.01, 100.0, [])
INT = Input("n", "1", "integer", 0.5, 4.2, [])
SET = Input("k", "1", "set", 0.0, 0.0, [3.0, 1.0, 2.0])


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 1.0))
def test_domains_map_and_invert(u):
    assert float(LIN.from_unit(np.array([u]))[0]) == pytest.approx(2.0 + 4.0 * u)
    c = float(LOG.from_unit(np.array([u]))[0])
    assert c == pytest.approx(0.01 * 10_000.0 ** u)
    assert float(LOG.to_unit(np.array([c]))[0]) == pytest.approx(u, abs=1e-12)
    assert float(LIN.to_unit(LIN.from_unit(np.array([u])))[0]) == pytest.approx(u, abs=1e-12)
    n = float(INT.from_unit(np.array([u]))[0])
    assert n in (1.0, 2.0, 3.0, 4.0) and n == min(1 + math.floor(u * 4), 4)
    assert float(SET.from_unit(np.array([u]))[0]) == [1.0, 2.0, 3.0][min(int(u * 3), 2)]


def test_input_properties_and_tidy_values():
    assert LIN.positive and LOG.positive and not Input("u", "", "range", -1.0, 1.0, []).positive
    assert SET.positive and SET.varies and not Input("k", "", "set", 0, 0, [2.0, 2.0]).varies
    assert Input("a", "deg", "range", 0, 90, [], None, math.pi / 180, True).angle == pytest.approx(math.pi / 180)
    assert LIN.angle is None
    assert LIN.tidy(3.1415926) == 3.142 and LIN.tidy(9.0) == 6.0 and INT.tidy(2.6) == 3.0 and SET.tidy(2.4) == 2.0
    assert LIN.describe_range() == "x 2..6 m" and SET.describe_range() == "k in {3, 1, 2}"
    assert fmt(1234567.0) == "1.235e+06"


def test_scale_is_the_tolerance_widened_by_noise():
    y = np.array([-2.0, 0.0, 10.0])
    exact = Output("y", "", 0.1, 0.02)
    assert exact.scale(y) == pytest.approx(0.1 + 0.02 * np.abs(y))
    noisy = Output("y", "", 0.1, 0.02, noise_rel=0.01, noise_abs=0.05)
    assert noisy.noisy and not exact.noisy
    want = np.sqrt((0.1 + 0.02 * np.abs(y)) ** 2 + (NOISE_SDS * (0.05 + 0.01 * np.abs(y))) ** 2)
    assert noisy.scale(y) == pytest.approx(want)
    assert Output("y", "", 0.0, 0.01).scale(np.zeros(1))[0] == 1e-150  # never zero


def test_parse_the_public_view():
    task = {"inputs": [{"name": "x", "unit": "cm", "domain": {"kind": "log", "lo": 1, "hi": 10},
                        "dimension": {"time": 0, "length": 1}, "si_factor": 0.01},
                       {"name": "k", "domain": {"kind": "set", "values": [2, 5]}, "angle": False}],
            "outputs": [{"name": "y", "unit": "s", "tolerance": {"abs": 0.5}, "noise": {"rel": 0.1},
                         "dimension": {"length": 0, "time": 1}, "resolution": 0.01},
                        {"name": "z", "tolerance": {}}]}
    x, k = parse_inputs(task)
    assert (x.kind, x.lo, x.hi, x.si_factor, list(x.dim)) == ("log", 1.0, 10.0, 0.01, [1.0, 0.0])  # sorted names
    assert (k.kind, k.lo, k.hi, k.values, k.dim) == ("set", 2.0, 5.0, [2.0, 5.0], None)
    y, z = parse_outputs(task)
    assert (y.tol_abs, y.tol_rel, y.noise_rel, y.resolution, list(y.dim)) == (0.5, 0.0, 0.1, 0.01, [0.0, 1.0])
    assert (z.tol_abs, z.tol_rel) == (0.0, 0.01)  # no tolerance stated: 1 %


def test_constraints_readable_and_not():
    inputs = [Input("a", "", "range", 0, 10, []), Input("b", "", "range", 0, 10, [])]
    test = constraint_test({"constraints": [{"text": "a > 1.5 * b"}, {"text": "a + b <= 12"}]}, inputs)
    got = test({"a": np.array([4.0, 2.0, 9.0]), "b": np.array([2.0, 2.0, 5.0])})
    assert list(got) == [True, False, False]
    for text in ("a > 2 m", "a > hidden", "a.__class__ > 1", "a + b", "__import__('os') > 1"):
        assert constraint_test({"constraints": [{"text": text}]}, inputs) is None, text


def test_radical_inverse_mirrors_the_digits():
    """i written in the base, its digits mirrored behind the point (numpy's base_repr)."""
    idx = np.arange(1, 40)
    for base in (2, 3, 5, 7):
        want = [sum(int(d) * base ** -(j + 1) for j, d in enumerate(reversed(np.base_repr(i, base)))) for i in idx]
        assert _radical_inverse(idx, base) == pytest.approx(want, abs=1e-15)


def test_halton_points_are_scipy_halton_up_to_the_shift():
    """Unscrambled Halton (scipy's qmc) plus a seeded shift, modulo 1."""
    sampler = Sampler([LIN, LOG])
    U = sampler.halton(20, seed=3)
    ref = qmc.Halton(d=2, scramble=False).random(21)[1:]
    shift = np.random.default_rng(3).random(2)
    assert U == pytest.approx((ref + shift) % 1.0, abs=1e-12)


def test_check_sample_has_the_corners_the_middle_and_every_set_value():
    sampler = Sampler([LIN, LOG, SET])
    X = sampler.check_sample()
    n = 8 + 1 + CHECK_POINTS
    assert all(len(v) == n for v in X.values())
    corners = {(x, c) for x, c in zip(X["x"][:8], X["c"][:8])}
    assert corners == {(2.0, 0.01), (2.0, 100.0), (6.0, 0.01), (6.0, 100.0)}
    assert (X["x"][8], X["c"][8]) == pytest.approx((4.0, 1.0))
    assert set(X["k"][:3]) == {1.0, 2.0, 3.0}
    assert np.all((X["x"] >= 2.0) & (X["x"] <= 6.0)) and np.all((X["c"] >= 0.01) & (X["c"] <= 100.0))
    assert Sampler([LIN, LOG, SET]).check_sample()["x"] == pytest.approx(X["x"])  # fixed seed
    kept = Sampler([LIN], lambda P: P["x"] > 3.0).check_sample()
    assert np.all(kept["x"] > 3.0) and len(kept["x"]) >= 16
