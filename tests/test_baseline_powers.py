"""The baseline's powers of sums with two real exponents (powers.py):
C·M·g(b·Q^a)^p found from exact readings of hand-written laws, its statement
and its values checked against the law itself, and the family left out
when a simple law already reproduces the readings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scigame.players.baseline.dims import analyse
from scigame.players.baseline.powers import powers
from scigame.players.baseline.search import OutputData, search_found
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


def _best(laws):
    """The best fitting law, by largest error then description length."""
    return min(laws, key=lambda f: (round(f.fit_max, 2), f.complexity))


def test_a_power_of_a_sum_of_an_angle_with_both_exponents_moved():
    """T = 2·√L·(1 + θ₀²)^0.7 (the pendulum's amplitude factor raised to 0.7):
    the outer exponent 0.7 is none of monomials.py's (1 + ·)^b, and θ₀ is an
    angle; from 8 exact readings the family writes the law's own numbers."""
    inp = [Input("L", "m", "range", 0.2, 2.0, [], _dim(m=1)),
           Input("theta0", "rad", "range", 0.1, 1.2, [], _dim(), is_angle=True)]
    out = Output("T", "s", 0.0, 0.01, _dim(s=1))
    rng = np.random.default_rng(3)
    X = {"L": rng.uniform(0.2, 2.0, 8), "theta0": rng.uniform(0.1, 1.2, 8)}

    def law(X):
        return 2.0 * np.sqrt(X["L"]) * (1.0 + X["theta0"] ** 2) ** 0.7
    data = OutputData(inp, out, X, law(X), analyse(inp, out))
    best = _best(powers(data))
    assert best.text == "T = 2·sqrt(L)·(1 + theta0^2)^0.7"
    grid = {"L": np.linspace(0.2, 2.0, 40), "theta0": np.linspace(0.1, 1.2, 40)}
    assert evaluate(best.tree, grid) == pytest.approx(law(grid), rel=1e-12)


def test_a_lorentz_factor_to_another_power_with_the_constant_hidden():
    """E = 9e16·m·(1 − 1e−17·v²)^−1.5 with c hidden (inputs m and v only):
    the argument is v² with a hidden scale b = −1e−17 (a refit would not move
    b and the exponent together without Q taken in units of 1e8)."""
    inp = [Input("m", "kg", "range", 1.0, 5.0, [], _dim(kg=1)),
           Input("v", "m/s", "range", 1e7, 2.4e8, [], _dim(m=1, s=-1))]
    out = Output("E", "J", 0.0, 0.01, _dim(kg=1, m=2, s=-2))
    rng = np.random.default_rng(5)
    X = {"m": rng.uniform(1.0, 5.0, 8), "v": rng.uniform(1e7, 2.4e8, 8)}

    def law(X):
        return 9e16 * X["m"] * (1.0 - 1e-17 * X["v"] ** 2) ** -1.5
    data = OutputData(inp, out, X, law(X), analyse(inp, out))
    best = _best(powers(data))
    assert best.fit_max < 0.05
    assert "^-1.5" in best.text and "v^2" in best.text
    grid = {"m": np.linspace(1.0, 5.0, 40), "v": np.linspace(1e7, 2.4e8, 40)}
    assert evaluate(best.tree, grid) == pytest.approx(law(grid), rel=1e-6)


def test_powers_are_not_tried_when_a_simple_law_reproduces_the_readings():
    """y = 3·x² (a monomial reproduces it): the family is not run at all."""
    inp = [Input("x", "m", "range", 1.0, 4.0, [], _dim(m=1))]
    out = Output("y", "m^2", 0.0, 0.01, _dim(m=2))
    x = np.linspace(1.0, 4.0, 8)
    found = search_found(OutputData(inp, out, {"x": x}, 3.0 * x ** 2, analyse(inp, out)))
    assert found.reproduces() and "powers" not in found.by_family
    assert math.isfinite(min(f.fit_max for f in found.laws))
