"""The baseline's relaxation with a quadratic rate
(scigame/players/baseline/bernoulli.py): its closed form against scipy's
integration of dx/dq = a·x + a·k·x², the two ways of writing one law, the
closed-form k against a least-squares ratio written here, and laws
recovered from exact readings."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from scigame.players.baseline import bernoulli as bernoulli_module
from scigame.players.baseline.bernoulli import _fit, _model, bernoulli
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.monomials import exact_fit
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


T_IN = Input("t", "s", "range", 0.2, 5.0, [], _dim(s=1))
Y0_IN = Input("T0", "K", "range", 60.0, 90.0, [], _dim(K=1))
OUT = Output("T", "K", 0.0, 0.001, _dim(K=1))


def _integrated(y_inf, k, a, x0, q, sign):
    """y∞ + x(q) with dx/dq = a·x + sign·a·k·x², x(0) = x₀, by scipy."""
    sol = solve_ivp(lambda _, x: a * x + sign * a * k * x * x, (0.0, float(q[-1])), [x0], t_eval=q,
                    rtol=1e-11, atol=1e-12)
    return y_inf + sol.y[0]


@settings(max_examples=25, deadline=None)
@given(st.floats(-5.0, 5.0), st.floats(-0.05, 0.05), st.floats(-1.0, 1.0), st.floats(1.0, 10.0))
def test_closed_form_solves_the_rate_equation(y_inf, k, a, x0):
    """y∞ + x₀E/(1 + k·x₀·(1 − E)), E = e^(aq), differentiated by hand, solves
    dx/dq = a·x + a·k·x²: checked against scipy's integral."""
    assert "dx/dq = a·x + a·k·x²" in bernoulli_module.__doc__  # the module says the equation it solves
    blow = 1.0 + k * x0 * (1.0 - np.exp(a * np.linspace(0.0, 2.0, 50)))
    if np.min(np.abs(blow)) < 0.2:  # near the pole of the solution: nothing to compare
        return
    q = np.linspace(0.0, 2.0, 9)
    got = _model(np.full(len(q), y_inf + x0), q, np.array([y_inf, k, a]))
    assert got == pytest.approx(_integrated(y_inf, k, a, x0, q, +1.0), rel=1e-7, abs=1e-8)


def test_closed_form_solves_the_documented_equation():
    """The rate equation bernoulli.py's docstring states is the one its closed
    form solves (the docstring once had the sign of k the other way round)."""
    import scigame.players.baseline.bernoulli as module
    found = re.search(r"dx/dq = a·x ([+−]) a·k·x²", module.__doc__)
    assert found, "bernoulli.py's docstring no longer states its rate equation"
    sign = 1.0 if found.group(1) == "+" else -1.0
    q = np.linspace(0.0, 2.0, 9)
    got = _model(np.full(len(q), 1.0), q, np.array([0.0, 0.03, 1.0]))
    assert got == pytest.approx(_integrated(0.0, 0.03, 1.0, 1.0, q, sign), rel=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.floats(-5.0, 5.0), st.floats(0.01, 0.5), st.floats(-1.0, 1.0))
def test_the_two_equilibria_write_one_law(y_inf, k, a):
    """(y∞, k, a) and (y∞ − 1/k, −k, −a) give the same values (bernoulli._both)."""
    x0 = np.linspace(-3.0, 3.0, 7) + y_inf
    q = np.linspace(0.0, 1.0, 7)
    one = _model(x0, q, np.array([y_inf, k, a]))
    other = _model(x0, q, np.array([y_inf - 1.0 / k, -k, -a]))
    ok = np.isfinite(one) & (np.abs(one) < 1e6)
    assert other[ok] == pytest.approx(one[ok], rel=1e-8, abs=1e-8)


def test_k_is_the_weighted_ratio_of_the_reciprocal_excess():
    """For given y∞ and a: 1/(y − y∞) − e^(−aq)/x₀ = k·(e^(−aq) − 1), k by
    weighted least squares with weights (y − y∞)⁴/sw²."""
    rng = np.random.default_rng(3)
    n = 9
    x0, q = rng.uniform(60.0, 90.0, n), rng.uniform(0.2, 5.0, n)
    y = _model(x0, q, np.array([20.0, 0.004, -0.5])) * rng.uniform(0.999, 1.001, n)
    data = OutputData([T_IN, Y0_IN], OUT, {"t": q, "T0": x0}, y, None)
    _, k = _fit(data, x0, q, np.array([20.0]), np.array([[-0.5]]))
    inv = np.exp(0.5 * q)
    lhs, basis = 1.0 / (y - 20.0) - inv / (x0 - 20.0), inv - 1.0
    w = (y - 20.0) ** 4 / data.sw ** 2
    assert k[0, 0] == pytest.approx(np.sum(w * basis * lhs) / np.sum(w * basis ** 2), rel=1e-10)


def _data(law, n=12, seed=4) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {"t": rng.uniform(T_IN.lo, T_IN.hi, n), "T0": rng.uniform(Y0_IN.lo, Y0_IN.hi, n)}
    return OutputData([T_IN, Y0_IN], OUT, X, law(**X), analyse([T_IN, Y0_IN], OUT))


@pytest.mark.parametrize(("y_inf", "k", "a"), [(20.0, 0.004, -0.5), (0.0, 0.02, 0.3)])
def test_a_law_is_recovered_with_its_constants(y_inf, k, a):
    """Cooling that speeds up when hot (y∞ = 20), and logistic growth
    (y∞ = 0, set exactly): one of the two writings has the law's own constants."""
    def law(t, T0):
        return _model(T0, t, np.array([y_inf, k, a]))
    data = _data(law)
    # the laws that reproduce the exact readings within their rounding (a look-alike,
    # y∞ = −230.5 with a = +0.5001, fits within 0.034 tolerances)
    laws = [f for f in bernoulli(data) if f.fit_max <= exact_fit(data)]
    assert laws
    assert any(f.theta == pytest.approx((y_inf, k, a), rel=1e-6, abs=1e-12) for f in laws)
    grid = {"t": np.linspace(0.2, 5.0, 20), "T0": np.linspace(60.0, 90.0, 20)}
    for f in laws:
        assert evaluate(f.tree, grid) == pytest.approx(law(**grid), rel=1e-5)


def test_a_logistic_equilibrium_is_set_to_zero():
    """Logistic growth read to 3 decimals: the fitted equilibrium is a small
    number the rounding left, and is written as exactly 0."""
    data = _data(lambda t, T0: _model(T0, t, np.array([0.0, 0.02, 0.3])))
    data.y = np.round(data.y, 3)
    laws = [f for f in bernoulli(data) if f.fit_max < 0.5]
    assert any(f.theta[0] == 0.0 and f.theta[1:] == pytest.approx((0.02, 0.3), rel=1e-3) for f in laws)
    assert any(f.text.startswith("T = T0·exp(0.3·t)/(1 + 0.02·T0·(1 - exp(0.3·t)))") for f in laws)


def test_the_logistic_writing_is_the_shorter_when_both_round_short():
    """Logistic growth (y∞ = 0, k = 0.02, a = 0.3) is also the law
    y∞ = −1/k = −50, k = −0.02, a = −0.3 around its other equilibrium: both
    writings round to one-digit decimals; the zero is folded away (T0, not
    T0 − 0), so it costs no digits and the logistic writing is the shorter."""
    data = _data(lambda t, T0: _model(T0, t, np.array([0.0, 0.02, 0.3])))
    laws = {f.theta: f for f in bernoulli(data) if f.fit_max <= exact_fit(data)}
    logistic, other = laws[(0.0, 0.02, 0.3)], laws[(-50.0, -0.02, -0.3)]
    assert logistic.complexity < other.complexity
    assert logistic.text.startswith("T = T0·exp(0.3·t)/(1 + 0.02·T0·(1 - exp(0.3·t)))")


def test_needs_an_initial_value_and_six_points():
    def law(t, T0):
        return T0 + t
    assert bernoulli(_data(law, n=5)) == []
    data = _data(law)
    data.positive = [i for i in data.positive if i.name != "T0"]  # no input with the output's units
    assert bernoulli(data) == []
