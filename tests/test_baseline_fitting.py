"""The baseline's fitting primitives (scigame/players/baseline/fitting.py):
weighted least squares against numpy, the nonlinear refinement against
scipy's curve_fit, rational and decimal snapping, and the rounding of
constants to the digits the data support."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import curve_fit

from scigame.players.baseline.fitting import (ERROR_CAP, Law, best_scale, exponent_penalty, refine, rounding_bound,
                                              scaled_errors, snap_decimals, snap_options, wls, worst_error)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_wls_is_numpy_weighted_lstsq(seed):
    rng = np.random.default_rng(seed)
    A, y, w = rng.normal(size=(8, 3)), rng.normal(size=8), rng.uniform(0.1, 3.0, 8)
    want = np.linalg.solve(A.T @ np.diag(w) @ A, A.T @ np.diag(w) @ y)  # the normal equations
    assert wls(A, y, w) == pytest.approx(want, rel=1e-8, abs=1e-10)


def test_wls_refuses_underdetermined_and_empty():
    assert wls(np.ones((2, 3)), np.ones(2), np.ones(2)) is None
    assert wls(np.ones((3, 0)), np.ones(3), np.ones(3)) is None


def test_best_scale():
    f, y, w = np.array([1.0, 2.0, 3.0]), np.array([2.1, 3.9, 6.2]), np.array([1.0, 0.5, 2.0])
    assert best_scale(f, y, w) == pytest.approx(np.sum(w * f * y) / np.sum(w * f * f))
    assert best_scale(np.zeros(3), y, w) is None and best_scale(f, np.zeros(3), w) is None


def test_refine_matches_curve_fit():
    """y = a·exp(b·x) on noisy readings: the same constants as scipy's curve_fit
    with sigma = the error scale."""
    rng = np.random.default_rng(5)
    x = np.linspace(0.0, 2.0, 15)
    y = 1.7 * np.exp(0.8 * x) * (1 + rng.normal(0, 0.01, 15))
    sw = 0.01 * np.abs(y)

    def model(t, X):
        return t[0] * np.exp(t[1] * X["x"])
    got = refine(model, np.array([1.0, 1.0]), {"x": x}, y, sw, nfev=200)
    want, _ = curve_fit(lambda x_, a, b: a * np.exp(b * x_), x, y, p0=[1.0, 1.0], sigma=sw)
    assert got == pytest.approx(want, rel=1e-5)
    sub = refine(model, got, {"x": x}, y, sw, idx=np.arange(0, 15, 2), nfev=200)  # on every other point
    want_sub, _ = curve_fit(lambda x_, a, b: a * np.exp(b * x_), x[::2], y[::2], p0=got, sigma=sw[::2])
    assert sub == pytest.approx(want_sub, rel=1e-5)
    assert refine(model, np.array([1.0, 1.0, 1.0]), {"x": x[:2]}, y[:2], sw[:2]) is None


def test_scaled_errors_are_capped():
    e = scaled_errors(np.array([1.0, 2.0, np.nan, 1e9]), np.array([1.5, 2.0, 1.0, 0.0]), np.array([0.5, 1.0, 1.0, 1.0]))
    assert list(e) == [1.0, 0.0, ERROR_CAP, ERROR_CAP]
    assert list(scaled_errors(None, np.zeros(2), np.ones(2))) == [ERROR_CAP, ERROR_CAP]


def test_snap_options_and_penalties():
    assert snap_options(1.98) == [Fraction(2)]
    assert snap_options(0.52) == [Fraction(1), Fraction(1, 2)]  # the nearest integer first, then the nearest fraction
    assert snap_options(0.34) == [Fraction(0), Fraction(1, 3)]
    assert exponent_penalty(Fraction(0)) == 0.0
    assert exponent_penalty(Fraction(2)) == pytest.approx(0.5 * math.log(3))
    assert exponent_penalty(Fraction(1, 3)) == pytest.approx(0.5 * math.log(2) + 1.2 * math.log(4))
    assert exponent_penalty(Fraction(6)) == pytest.approx(0.5 * math.log(7) + 2.0)


def test_snap_decimals_rounds_as_far_as_the_data_allow():
    """y = c·x with c = 2.30004 fitted on readings of 2.3·x: rounded to 2.3
    (the largest error stays within max(0.3, 1.5 × the fitted one)); a
    constant the data pin down finer is kept."""
    x = np.linspace(1.0, 2.0, 6)
    y = 2.3 * x
    sw = 0.01 * y

    def model(t, X):
        return t[0] * X["x"]
    assert snap_decimals(model, np.array([2.30004]), {"x": x}, y, sw, rel=0.005)[0] == 2.3
    tight = 1e-6 * y  # a tolerance of a millionth: 2.30004 is 17 tolerances off 2.3 is kept from 2.3
    assert snap_decimals(model, np.array([2.30004]), {"x": x}, 2.30004 * x, tight, rel=0.005)[0] == 2.30004
    assert rounding_bound(0.1) == 0.3 and rounding_bound(1.0) == 1.5
    assert worst_error(model, np.array([2.0]), {"x": x}, y, sw) == pytest.approx(np.max(0.3 * x / (0.01 * y)))


def test_snap_decimals_drops_residue_no_reading_sees():
    """y = a·x + b·cos(x) fitted to readings of 2·x with b = 3e-16 (least
    squares' residue): b·cos(x) moves no prediction by a millionth of the
    1% tolerance, so b becomes exactly 0; b = 0.05 moves the predictions by
    up to 0.05/(0.01·2) = 2.5 tolerances at x = 1 and is kept."""
    x = np.linspace(1.0, 2.0, 6)
    y = 2.0 * x
    sw = 0.01 * y

    def model(t, X):
        return t[0] * X["x"] + t[1] * np.cos(X["x"])
    out = snap_decimals(model, np.array([2.0, 3e-16]), {"x": x}, y, sw, rel=0.005)
    assert out[0] == 2.0 and out[1] == 0.0
    y2 = 2.0 * x + 0.05 * np.cos(x)
    kept = snap_decimals(model, np.array([2.0, 0.05]), {"x": x}, y2, 0.01 * y2, rel=0.005)
    assert kept[1] == 0.05


#: Twelve readings of newton_cooling's counterfactual law (T∞ = 293 K,
#: k = 0.01 1/K, a = 0.04 1/s), each rounded to the card's 0.01 K: the
#: readings of its Adaptive episode, repetition 1, at seed 0 (t, T0, T).
COOLING = [(30.0, 350.0, 305.28), (9.0, 350.0, 326.92), (51.0, 350.0, 297.95), (30.0, 336.0, 302.96),
           (30.0, 364.0, 307.29), (51.0, 364.0, 298.71), (1.115, 369.5, 363.8), (1.178, 358.0, 353.21),
           (0.3146, 352.5, 351.32), (15.78, 370.0, 323.11), (8.531, 369.6, 337.58), (7.681, 369.5, 339.79)]


def _cooling(t, X):
    x, e = X["T0"] - t[0], np.exp(-t[2] * X["t"])
    return t[0] + x * e / (1 + t[1] * x * (1 - e))


def test_snap_decimals_rounds_constants_fitted_together_together():
    """Least squares on readings rounded to ±0.005 K lands beside the law
    (k 0.2% and a 0.1% off it, at a tolerance of 0.1%). Rounded alone with
    the others held, no constant reproduces the readings; rounded together
    they give the law, which reproduces them within their rounding. Noisy
    readings (exact=None) keep the fit; so do exact readings the rounded
    law misses."""
    t, T0, T = (np.array(c) for c in zip(*COOLING))
    X = {"t": t, "T0": T0}
    sw = 1e-3 * T  # the card's 0.1%
    fit, _ = curve_fit(lambda _, *th: _cooling(th, X), np.zeros(len(T)), T, p0=[290.0, 0.012, 0.035], sigma=sw)
    assert abs(fit[1] / 0.01 - 1) > 1e-3  # the fit is off the law by more than the check allows
    exact = 0.02 + 0.5 * 0.01 / float(np.min(sw))  # monomials.exact_fit: half the 0.01 K step, plus 0.02
    law = [293.0, 0.01, 0.04]
    assert list(snap_decimals(_cooling, fit, X, T, sw, rel=5e-4, exact=exact)) == law
    assert list(snap_decimals(_cooling, fit, X, T, sw, rel=5e-4)) != law
    moved = T + np.where(t > 20, 0.05, 0.0)  # 0.05 K at three points: one sixth of a tolerance
    fit2, _ = curve_fit(lambda _, *th: _cooling(th, X), np.zeros(len(T)), moved, p0=[290.0, 0.012, 0.035], sigma=sw)
    assert list(snap_decimals(_cooling, fit2, X, moved, sw, rel=5e-4, exact=exact)) != law


def test_law_set_fit():
    law = Law("k", "t", 1.0, 0, 0.0, lambda idx: None)
    law.set_fit(np.array([0.5, 2.0]))
    assert (law.fit_error, law.fit_max) == (4.25, 2.0)


def test_wls_of_a_non_finite_design_is_no_fit_and_prints_nothing():
    """A column that overflowed (a candidate's power at a far reading) is no
    fit; LAPACK, handed it, writes 'On entry to DLASCL ...' to the terminal."""
    import subprocess
    import sys
    code = ("import numpy as np\n"
            "from scigame.players.baseline.fitting import wls\n"
            "A = np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]])\n"
            "assert wls(A, np.ones(3), np.ones(3)) is None\n"
            "assert wls(np.ones((3, 1)), np.array([1.0, np.inf, 2.0]), np.ones(3)) is None\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_refine_matches_least_squares_on_the_clipped_residuals():
    """fitting.refine clips the scaled errors to ±1e8 and puts 1e8 where they are
    not finite (with np.minimum/np.maximum instead of np.clip): the same x, bit
    for bit, as scipy's least_squares on the residuals written with np.clip, on
    a model that overflows at some readings."""
    from scipy.optimize import least_squares

    from scigame.players.baseline.fitting import refine
    x = np.linspace(0.5, 30.0, 15)
    X, y, sw = {"x": x}, 3.0 * np.exp(0.4 * x) + 1e7 * (x > 25), np.full(15, 0.5)

    def model(t, X):
        with np.errstate(all="ignore"):
            return t[0] * np.exp(t[1] * X["x"] ** 3)

    def resid(t):
        with np.errstate(all="ignore"):
            r = (model(t, X) - y) / sw
            return np.where(np.isfinite(r), np.clip(r, -1e8, 1e8), 1e8)
    for t0 in ([3.0, 0.01], [1.0, 0.02], [2.0, -0.001]):
        want = least_squares(resid, np.array(t0), method="lm", x_scale="jac", max_nfev=25).x
        got = refine(model, np.array(t0), X, y, sw)
        assert got is not None and got.tobytes() == want.tobytes()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(1e-4, 0.3))
def test_snap_decimals_through_the_models_at_x_gives_the_same_constants(seed, rel):
    """snap_decimals evaluates a model with an at(X) (relax._model: the parts
    without a constant worked out once) through it: the same rounded constants,
    bit for bit, as through the plain model, residue set to 0 included."""
    from scigame.players.baseline.fitting import snap_decimals
    from scigame.players.baseline.relax import _model
    from scigame.players.baseline.trees import op, var
    rng = np.random.default_rng(seed)
    X = {"x": rng.uniform(0.5, 3.0, 12), "t": rng.uniform(0.0, 2.0, 12)}
    tree = op("add", op("mul", 1.0, op("pow", var("x"), 1.0), op("exp", op("mul", 1.0, var("t")))),
              op("mul", 1.0, op("cos", op("mul", 3.0, var("t")))), 1.0)
    paths = [(0, 0), (0, 1, 1), (0, 2, 0, 0), (1, 0), (2,)]
    model = _model(tree, paths)
    truth = np.array([2.0, 1.5, -0.7, 1e-14 if seed % 2 else 0.3, 0.25])
    theta = truth * (1 + rng.normal(0, 1e-3, 5))
    y = model(truth, X) + rng.normal(0, 1e-3, 12)
    sw = np.full(12, 0.01)
    got = snap_decimals(model, theta, X, y, sw, rel)
    want = snap_decimals(lambda t, X_: model(t, X_), theta, X, y, sw, rel)
    assert got.tobytes() == want.tobytes()
