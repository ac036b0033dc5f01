"""scigame/players/baseline/lm.py: Levenberg–Marquardt without
least_squares' set-up must take MINPACK through the same steps, so every
fit ends on the same bits as scipy's own least_squares(method="lm")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import least_squares

from scigame.players.baseline import fitting
from scigame.players.baseline.lm import solve_lm


def _clipped(model, x, y, sw):
    """The baseline's residual (fitting.refine): scaled, clipped, non-finite to 1e8."""
    def resid(t):
        r = (model(t, x) - y) / sw
        return np.where(np.isfinite(r), np.clip(r, -1e8, 1e8), 1e8)
    return resid


MODELS = {
    "power": lambda t, x: t[0] * x ** t[1],
    "exp_offset": lambda t, x: t[0] * np.exp(t[1] * x) + t[2],
    "sine": lambda t, x: t[0] * np.sin(t[1] * x + t[2]),
    "tied": lambda t, x: (t[0] + t[1]) * x,  # rank deficient: two constants, one direction
    "negative_base": lambda t, x: t[0] * (x - 2.0) ** t[1],  # NaN at some readings
    "saturation": lambda t, x: t[0] * x / (t[1] + x),
    "four": lambda t, x: t[0] + t[1] * x + t[2] * np.log(x) + t[3] * x ** 2,
}


def _cases():
    rng = np.random.default_rng(20261206)
    for name, model in MODELS.items():
        k = {"power": 2, "exp_offset": 3, "sine": 3, "tied": 2, "negative_base": 2, "saturation": 2, "four": 4}[name]
        for trial in range(6):
            n = int(rng.integers(k + 1, 40))
            x = np.sort(rng.uniform(0.5, 5.0, n))
            truth = rng.uniform(-2.0, 2.0, k)
            with np.errstate(all="ignore"):
                y = np.round(model(truth, x) + 0.01 * rng.normal(size=n), 4)
            y = np.where(np.isfinite(y), y, 0.0)
            sw = 1e-3 + 0.01 * np.abs(y)
            theta0 = truth + rng.normal(scale=0.5, size=k)
            if trial == 0:
                theta0[0] = 0.0  # a zero constant: scipy's step is then 1·√eps
            if trial == 1:
                theta0[-1] = -0.0
            nfev = (1, 2, 5, 15, 40, 300)[trial]
            yield pytest.param(model, x, y, sw, theta0, nfev, id=f"{name}-{trial}")


@pytest.mark.parametrize(("model", "x", "y", "sw", "theta0", "nfev"), list(_cases()))
def test_the_same_bits_as_least_squares(model, x, y, sw, theta0, nfev):
    resid = _clipped(model, x, y, sw)
    with np.errstate(all="ignore"):
        want = least_squares(resid, theta0, method="lm", x_scale="jac", max_nfev=nfev).x
        got = solve_lm(resid, theta0, nfev)
    assert got.tobytes() == want.tobytes(), (got, want)


def test_refine_is_least_squares_to_the_bit():
    """fitting.refine, on both of its methods (lm with more readings than
    constants, trf otherwise), ends where a direct least_squares call ends."""
    x = {"q": np.linspace(1.0, 3.0, 9)}
    y = 2.5 * x["q"] ** 1.7
    sw = np.full(9, 0.01)

    def model(t, X):
        return t[0] * X["q"] ** t[1]
    for theta0, idx in ((np.array([1.0, 1.0]), None), (np.array([1.0, 1.0]), np.array([0, 4])),
                        (np.array([3.0, 0.5]), np.arange(9))):
        xs = x if idx is None else {"q": x["q"][idx]}
        ys, sws = (y, sw) if idx is None else (y[idx], sw[idx])
        method = "lm" if len(ys) > len(theta0) else "trf"
        with np.errstate(all="ignore"):
            want = least_squares(_clipped(model, xs, ys, sws), theta0, method=method, x_scale="jac", max_nfev=25).x
        assert fitting.refine(lambda t, X: model(t, X), theta0, x, y, sw, idx).tobytes() == want.tobytes()


def test_what_least_squares_refuses_is_refused():
    with pytest.raises(ValueError):
        solve_lm(lambda t: np.zeros(3), np.array([np.nan, 1.0]), 10)
    with pytest.raises(ValueError), np.errstate(all="ignore"):
        solve_lm(lambda t: np.array([np.inf, 1.0, 2.0]), np.array([1.0]), 10)


def test_a_scipy_without_the_private_routines_falls_back_to_least_squares(monkeypatch):
    """lm.py reaches into scipy's private MINPACK binding; a scipy release that
    moves it must cost speed, not the baseline's every fit."""
    import sys

    x = np.linspace(1.0, 4.0, 12)
    y = 2.5 * x ** 1.3
    resid = _clipped(MODELS["power"], x, y, np.ones_like(x))
    want = least_squares(resid, np.array([1.0, 1.0]), method="lm", x_scale="jac", max_nfev=40).x
    monkeypatch.setitem(sys.modules, "scipy.optimize._minpack", None)
    got = solve_lm(resid, np.array([1.0, 1.0]), 40)
    assert np.array_equal(got, want)
    assert np.allclose(got, [2.5, 1.3], rtol=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, -0.0, 1e-300, -1e300]),
                min_size=1, max_size=6), st.sampled_from([np.float64, np.float32]))
def test_step_is_scipys_absolute_step_bit_for_bit(x, f_dtype):
    """lm._step (scipy's relative step looked up once) against scipy's
    _compute_absolute_step for the forward difference, signed zeros and
    extremes included; a float32 residual takes scipy's own path."""
    from scipy.optimize._numdiff import _compute_absolute_step

    from scigame.players.baseline.lm import _step
    solve_lm(lambda t: np.array([t[0], t[0] + 1.0]), np.array([1.0]), 5)  # finds scipy's functions
    x0, f0 = np.array(x, dtype=float), np.zeros(3, dtype=f_dtype)
    want = _compute_absolute_step(None, x0, f0, "2-point")
    got = _step(x0, f0)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
