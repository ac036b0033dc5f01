"""The baseline's predictor-tree helpers (scigame/players/baseline/trees.py):
constructors, constant folding and evaluation, against numpy written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
import sympy
from hypothesis import strategies as st
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

from scigame.players.baseline.task import fmt
from scigame.players.baseline.trees import (evaluate, fold, is_num, op, power, product, scaled, substitute, tree_text,
                                            var)

X = {"x": np.array([0.5, 1.0, 4.0]), "s": np.array([2.0, 2.0, 2.0])}


def test_constructors():
    assert var("x") == {"var": "x"} and op("add", 1.0, var("x")) == {"op": "add", "args": [1.0, {"var": "x"}]}
    assert product([1.0, var("x"), 1.0]) == var("x") and product([1.0]) == 1.0
    assert evaluate(product([2.0, var("x"), var("s")]), X) == pytest.approx(2.0 * X["x"] * X["s"])
    assert power(var("x"), 1) == var("x") and power(var("x"), 0.5) == op("sqrt", var("x"))
    assert evaluate(power(var("x"), -1.5), X) == pytest.approx(X["x"] ** -1.5)
    assert scaled(3.0, 2.0) == 6.0 and scaled(1.0, var("x")) == var("x")
    assert evaluate(scaled(-2.0, var("x")), X) == pytest.approx(-2.0 * X["x"])
    assert is_num(2) and is_num(2.5) and not is_num(True) and not is_num(var("x"))


def test_substitute_folds_the_unused_member():
    """G = (1 − s)·x + s·x² at s = 0 is x, at s = 1 is x², at s = 2 numerically 2x² − x."""
    tree = op("add", op("mul", op("sub", 1.0, var("s")), var("x")), op("mul", var("s"), op("pow", var("x"), 2.0)))
    assert substitute(tree, "s", 0.0) == var("x")
    assert substitute(tree, "s", 1.0) == op("pow", var("x"), 2.0)
    assert evaluate(substitute(tree, "s", 2.0), X) == pytest.approx(2 * X["x"] ** 2 - X["x"])
    assert substitute(tree, "s", var("x")) == substitute(tree, "s", var("x"))  # a tree in place of a name
    assert evaluate(substitute(tree, "s", var("x")), X) == pytest.approx((1 - X["x"]) * X["x"] + X["x"] ** 3)


def test_fold_rules():
    x = var("x")
    assert fold("mul", [0.0, x]) == 0.0 and fold("mul", [1.0, x]) == x and fold("mul", [1.0, 1.0]) == 1.0
    assert fold("add", [0.0, x]) == x and fold("sub", [x, 0.0]) == x and fold("div", [x, 1.0]) == x
    assert fold("div", [x, 2.0]) == op("div", x, 2.0)
    assert fold("log", [-1.0]) == op("log", -1.0)  # outside the domain: left as it is, not folded to nan
    assert fold("div", [1.0, 0.0]) == op("div", 1.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["add", "sub", "mul", "div", "pow"]), st.floats(0.1, 10.0), st.floats(-3.0, 3.0))
def test_fold_of_numbers_is_numpy(name, a, b):
    want = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b if b else math.inf, "pow": a ** b}[name]
    got = fold(name, [a, b])
    if math.isfinite(want) and b != 0:
        assert got == pytest.approx(want, rel=1e-12)


def test_evaluate_returns_none_outside_the_domain():
    assert evaluate(op("log", op("sub", var("x"), 1.0)), X) is None  # log(−0.5)
    assert evaluate(op("div", 1.0, op("sub", var("x"), 1.0)), X) is None  # 1/0
    assert evaluate(op("exp", op("mul", 1000.0, var("x"))), X) is None  # overflows at x = 1 and 4
    assert evaluate(var("missing"), X) is None
    assert evaluate({"op": "nope", "args": []}, X) is None
    assert evaluate(2.0, X) == pytest.approx([2.0, 2.0, 2.0])  # a number, broadcast to the points
    assert evaluate(op("exp", var("x")), X) == pytest.approx(np.exp(X["x"]))


# -- statements written from trees (tree_text): read back by sympy as ordinary arithmetic ------------

_LEAVES = st.one_of(st.sampled_from([var("x"), var("s")]),
                    st.sampled_from([1.0, 2.0, -1.0, -3.0, 0.5, 7 / 3, -1 / 3, 2.6, 1e-3, 6.022e11]))


def _trees(children):
    binary = st.tuples(st.sampled_from(["add", "sub", "mul", "div"]), children, children).map(
        lambda t: op(t[0], t[1], t[2]))
    powers = st.tuples(children, st.sampled_from([2.0, -2.0, 0.5, 7 / 3, -1 / 2, 2.6, -0.7])).map(
        lambda t: op("pow", op("add", 3.0, op("mul", t[0], t[0])), t[1]))  # a positive base
    calls = st.tuples(st.sampled_from(["exp", "sin", "cos", "neg", "tanh"]), children).map(lambda t: op(t[0], t[1]))
    return st.one_of(binary, powers, calls, st.lists(children, min_size=3, max_size=3).map(lambda a: op("mul", *a)))


def _largest(tree) -> float:
    """The largest magnitude any part of the tree takes at X."""
    values = evaluate(tree, X)
    own = math.inf if values is None else float(np.max(np.abs(values)))
    return max([own] + [_largest(a) for a in tree.get("args", [])] if isinstance(tree, dict) else [own])


def _as_stated(tree):
    """The tree with its constants as the statement writes them: 4
    significant digits (task.fmt), a power's exponent as it is (written
    exactly, as a decimal or a fraction such as (7/3))."""
    if is_num(tree):
        return float(fmt(tree))
    if not isinstance(tree, dict) or "args" not in tree:
        return tree
    args = [_as_stated(a) for a in tree["args"]]
    if tree["op"] == "pow" and is_num(tree["args"][1]):
        args[1] = tree["args"][1]
    return {**tree, "args": args}


@settings(max_examples=150, deadline=None)
@given(st.recursive(_LEAVES, _trees, max_leaves=7))
@example(op("sin", op("add", var("x"), op("pow", op("add", 3.0, op("mul", 7 / 3, 7 / 3)), 2.0))))
def test_a_statement_reads_as_its_tree(tree):
    """Whatever the tree, its statement parsed by sympy (· as *, ^ as **)
    computes what the tree computes with its constants as written (4
    significant digits): precedence and signs included. (Against the tree's
    own constants, a rounded 7/3 inside sin((3 + x·x)²) moves the value by
    0.02 where it is near 0: the rounding, not the layout.)"""
    got = evaluate(_as_stated(tree), X)
    if got is None or _largest(tree) > 1e8:  # sin(1e15) is not a function of 4 digits
        return
    said = parse_expr(tree_text(tree).replace("·", "*"), local_dict={"x": sympy.Symbol("x"), "s": sympy.Symbol("s")},
                      transformations=standard_transformations + (convert_xor,))
    values = sympy.lambdify([sympy.Symbol("x"), sympy.Symbol("s")], said, "numpy")(X["x"], X["s"])
    assert np.broadcast_to(values, got.shape) == pytest.approx(got, rel=1e-6, abs=1e-9), tree_text(tree)


@pytest.mark.parametrize(("tree", "text"), [
    (op("mul", 2.0, op("pow", var("x"), 7 / 3)), "2·x^(7/3)"),  # not x^7/3, which reads as x⁷/3
    (op("mul", 2.0, op("sub", 1.0, op("cos", op("mul", 0.5, var("x"))))), "2·(1 - cos(0.5·x))"),
    (op("div", var("x"), op("mul", var("s"), var("x"))), "x/(s·x)"),
    (op("sub", var("x"), op("add", var("s"), -3.0)), "x - (s - 3)"),
    (op("pow", op("pow", var("x"), 2.0), 3.0), "(x^2)^3"),
    (op("mul", 3.0, op("div", 1.0, op("add", 1.0, var("x")))), "3/(1 + x)"),
    (op("mul", -1.0, var("x"), var("s")), "-x·s"),
    (op("mul", var("x"), -2.0), "x·(-2)"),
    (op("add", 1.0, op("mul", -2.5, var("x"))), "1 - 2.5·x"),  # not 1 + -2.5·x
    (op("sub", var("x"), -0.765), "x + 0.765"),  # not x - (-0.765)
    (op("mul", 2.0, op("sub", var("x"), -3.0, var("s"))), "2·(x + 3 - s)"),
    (op("div", 1.0, op("mul", 1.0, op("add", var("x"), var("s")))), "1/(x + s)"),
])
def test_statement_layout(tree, text):
    assert tree_text(tree) == text


def test_zero_constants_drop_their_terms_and_keep_the_values():
    """A fit that set constants to 0 (snap_decimals) leaves 0·… terms; they
    drop out, and the law's values at random points are the same."""
    from scigame.players.baseline.trees import drop_zero_terms
    t, h0 = var("t"), var("h0")
    tree = op("add", 0.0, h0, op("mul", 1.5, op("cos", op("mul", 0.506, t))),
              op("mul", 0.0, op("sin", op("mul", 0.0, t))))
    out = drop_zero_terms(tree)
    assert tree_text(out) == "h0 + 1.5·cos(0.506·t)"
    rng = np.random.default_rng(3)
    X = {"t": rng.uniform(0, 20, 50), "h0": rng.uniform(-2, 2, 50)}
    np.testing.assert_allclose(evaluate(out, X), X["h0"] + 1.5 * np.cos(0.506 * X["t"]), rtol=1e-15)
    kept = op("add", h0, op("mul", 2.0, t))  # no zero constant: the very same tree back
    assert drop_zero_terms(kept) is kept
