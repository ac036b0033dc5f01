"""The canonical form of a law about to be submitted
(scigame/players/baseline/canonical.py, issue #29): each rewrite against
the identity it stands for, evaluated here with numpy and with sympy, and
the step as a whole on the dev cases it was written for."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

from scigame.players.baseline.canonical import (canonical, canonical_tree, distribute, half_angle, halved, length,
                                                phase_amplitude, reciprocal)
from scigame.players.baseline.task import Output
from scigame.players.baseline.trees import evaluate, op, tree_text, var
from scigame.symbolic import tree_to_sympy

RNG = np.random.default_rng(3)
X = {"I0": RNG.uniform(1, 10, 40), "theta": RNG.uniform(0, 1.2, 40), "x": RNG.uniform(-2, 2, 40),
     "t": RNG.uniform(0, 20, 40), "N0": RNG.uniform(10, 50, 40)}
OUT = Output("I", "W/m^2", 1e-3, 0.01)
SYMBOLS = {k: sympy.Symbol(k, real=True) for k in X}


def _sym(tree):
    return tree_to_sympy(tree, SYMBOLS)


def _same(a, b):
    """a and b are one function: by the trees' evaluation, and by sympy's
    own (lambdify of tree_to_sympy), an evaluation independent of it."""
    assert evaluate(a, X) == pytest.approx(evaluate(b, X), rel=1e-12, abs=1e-12)
    names = sorted(SYMBOLS)
    f, g = (sympy.lambdify([SYMBOLS[k] for k in names], _sym(t), "numpy") for t in (a, b))
    args = [X[k] for k in names]
    assert np.broadcast_to(f(*args), (40,)) == pytest.approx(np.broadcast_to(g(*args), (40,)), rel=1e-12, abs=1e-12)


#: ½·I0·(1 + 0.53·sin 2θ + 0.847·cos 2θ), the found form of malus_phase_48's law I0·cos²(θ − 0.28).
TWO_THETA = op("mul", 2.0, var("theta"))
MALUS = op("mul", 0.5, op("add", var("I0"), op("mul", 0.53, op("mul", var("I0"), op("sin", TWO_THETA))),
                          op("mul", 0.847, op("mul", var("I0"), op("cos", TWO_THETA)))))


def test_distribute_is_the_same_function_as_a_sum():
    new = distribute(MALUS)
    assert new["op"] == "add" and len(new["args"]) == 3
    _same(new, MALUS)


def test_phase_amplitude_is_r_cos_u_minus_phi():
    a, b = 0.53, 0.847
    tree = op("add", op("mul", a, op("sin", var("x"))), op("mul", b, op("cos", var("x"))))
    new = phase_amplitude(tree)
    R, phi = math.hypot(a, b), math.atan2(a, b)  # by hand: a sin u + b cos u = R cos(u − φ)
    assert evaluate(new, X) == pytest.approx(R * np.cos(X["x"] - phi), rel=1e-12)
    _same(new, tree)


def test_phase_amplitude_needs_one_argument_and_one_factor():
    other = op("add", op("mul", 2.0, op("sin", var("x"))), op("mul", 3.0, var("I0"), op("cos", var("x"))))
    assert phase_amplitude(other) == other  # the factors differ: no pair
    shifted = op("add", op("sin", var("x")), op("cos", op("mul", 2.0, var("x"))))
    assert phase_amplitude(shifted) == shifted  # the arguments differ


def test_half_angle_is_a_squared_cosine():
    wave = op("cos", op("add", op("mul", 2.0, var("x")), -0.6))
    tree = op("add", op("mul", 1.5, var("I0")), op("mul", 0.5, var("I0"), wave))
    new = half_angle(tree)
    # by hand: c + R cos w = (c − R) + 2R cos²(w/2)
    assert evaluate(new, X) == pytest.approx(X["I0"] + X["I0"] * np.cos(X["x"] - 0.3) ** 2, rel=1e-12)
    _same(new, tree)


def test_halved_carries_the_half_into_coefficients():
    assert tree_text(halved(op("add", op("mul", 2.0, var("x")), -0.6))) == "x - 0.3"
    assert halved(4.0) == 2.0


def test_length_counts_fitted_constants_not_integers_or_exponents():
    assert length(op("mul", var("I0"), op("pow", op("cos", op("add", var("theta"), -0.28)), 2.0))) == (1, 2)
    assert length(MALUS)[0] == 3


def test_malus_found_form_is_written_as_the_law():
    y = np.round(X["I0"] * np.cos(X["theta"] - 0.28) ** 2, 4)
    new = canonical_tree(MALUS, OUT, X, y, X)
    assert tree_text(new) == "I0·cos(theta - 0.28)^2"
    law = SYMBOLS["I0"] * sympy.cos(SYMBOLS["theta"] - sympy.Rational(7, 25)) ** 2
    assert sympy.simplify(tree_to_sympy(new, SYMBOLS, exact=True) - law) == 0


def test_never_predicts_worse():
    """Readings the found form fits better than any simpler rewrite: the
    tree is kept as it is."""
    y = 0.5 * X["I0"] * (1 + 0.3 * np.sin(2 * X["theta"]) + 0.6 * np.cos(2 * X["theta"]))
    tree = op("mul", 0.5, op("add", var("I0"), op("mul", 0.3, var("I0"), op("sin", op("mul", 2.0, var("theta")))),
                             op("mul", 0.6, var("I0"), op("cos", op("mul", 2.0, var("theta"))))))
    assert canonical_tree(tree, OUT, X, y, X) is tree
    assert canonical({"I": tree}, [OUT], X, {"I": y}, X) == {"I": tree}


def test_a_law_without_rewrites_is_kept():
    tree = op("mul", 2.0, var("I0"))
    predictor = {"I": tree}
    assert canonical(predictor, [OUT], X, {"I": 2.0 * X["I0"]}, X) is predictor


def _logistic_found(rate: float, power: float):
    """1/(0.001 − 0.0015·exp(rate·t)^power + 1.51·e^(−t/2)/N0), the found
    form of logistic_scale_36's law K/(1 + (K/N0 − 1)·e^(−t/2 + 0.41))."""
    wave = op("exp", op("mul", -0.5, var("t")))
    return op("div", 1.0, op("add", op("mul", -0.0015, op("pow", op("exp", op("mul", rate, var("t"))), power)),
                             op("mul", 1.51, op("pow", var("N0"), -1.0), wave), 0.001))


def test_reciprocal_pulls_the_constant_term_out():
    tree = _logistic_found(-0.455, 1.1)
    new = reciprocal(tree)
    # by hand: 1/(c0 + s) = (1/c0)/(1 + s/c0)
    t, n0 = X["t"], X["N0"]
    hand = 1000.0 / (1 - 1.5 * np.exp(-0.455 * t) ** 1.1 + 1510.0 / n0 * np.exp(-0.5 * t))
    assert evaluate(new, X) == pytest.approx(hand, rel=1e-12)
    _same(new, tree)
    assert reciprocal(op("div", 1.0, op("add", 1.0, var("x")))) == op("div", 1.0, op("add", 1.0, var("x")))


def test_logistic_found_form_is_written_in_saturating_form():
    K = 1000.0
    y = np.round(K / (1 + (K / X["N0"] - 1) * np.exp(-0.5 * X["t"] + 0.41)), 3)
    new = canonical_tree(_logistic_found(-0.455, 1.1), Output("N", "1", 1e-3, 0.01), X, y, X)
    assert tree_text(new) == "1000/(1 - 1.5·exp(-0.455·t)^1.1 + 1510·N0^-1·exp(-0.5·t))"

