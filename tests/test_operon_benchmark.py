"""The conversion of operon's infix models into predictor trees
(benchmarks/operon_vs_search.py), checked against hand-computed values;
it needs no pyoperon."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from scigame.predictor import evaluate_predictor, validate_predictor

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "operon_vs_search.py"
_spec = importlib.util.spec_from_file_location("operon_vs_search", PATH)
bench = importlib.util.module_from_spec(_spec)
sys.modules.setdefault(_spec.name, bench)  # its dataclasses look their module up
_spec.loader.exec_module(bench)

NAMES = {"x0": "lambda", "x1": "E"}  # card names that sympy would misread: operon gets x0, x1


def _value(text: str, **point: float) -> float:
    tree = bench.infix_to_tree(text, NAMES)
    clean = validate_predictor({"y": tree}, ["lambda", "E"], ["y"])
    out = evaluate_predictor(clean, {k: np.array([v]) for k, v in point.items()})
    return float(out["y"][0])


def test_operon_style_model_matches_hand_value():
    # the shape operon prints: an intercept, a scale, `^` for powers, negative constants in parentheses
    text = "(0.5 + (2.0 * ((((-1.5) * x0) ^ 2) * exp((0.25 * x1)))))"
    # by hand at lambda = 2, E = 4: 0.5 + 2·(−3)²·e¹ = 0.5 + 18e
    assert _value(text, **{"lambda": 2.0, "E": 4.0}) == pytest.approx(0.5 + 18 * math.e, rel=1e-12)


def test_functions_and_roots_of_the_language():
    text = "(sqrt((4.0 * x0)) / (1.0 + tanh(x1))) - log(x0) + sin(x1) * cos(x1) - tan(x0)"
    lam, e = 0.7, 0.3
    hand = math.sqrt(4 * lam) / (1 + math.tanh(e)) - math.log(lam) + math.sin(e) * math.cos(e) - math.tan(lam)
    assert _value(text, **{"lambda": lam, "E": e}) == pytest.approx(hand, rel=1e-12)


def test_square_root_becomes_the_sqrt_op_and_names_the_card_inputs():
    tree = bench.infix_to_tree("sqrt(x0)", NAMES)
    assert tree == {"op": "sqrt", "args": [{"var": "lambda"}]}


@pytest.mark.parametrize("text, reason", [
    ("floor(x0)", "floor"),           # an op operon has and the language does not
    ("x0 + (", "cannot read"),        # a garbled model
    ("x0 + x7", "unknown variable"),  # a variable that is no input
    ("log(-1.0) * x0", "not a finite real"),
])
def test_models_outside_the_language_are_refused_with_a_reason(text, reason):
    with pytest.raises(bench.Unconvertible, match=reason):
        bench.infix_to_tree(text, NAMES)


def test_unary_ops_come_from_the_op_table():
    import sympy
    ops = bench._function_ops()
    assert ops[sympy.exp] == "exp" and ops[sympy.Abs] == "abs" and ops[sympy.asin] == "asin"
    assert "sqrt" not in ops.values()  # sympy's sqrt is a power, handled as one


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    import scigame
    return scigame.load_card(Path(__file__).resolve().parent.parent / "cards" / "historical" / "pendulum.sci",
                             cache_dir=tmp_path_factory.mktemp("cache"))


def test_a_negligible_intercept_is_dropped_and_a_real_one_kept(pendulum):
    # T's tolerance is 0.002 s + 0.5 % of T: at L = 0.5 m (T = 1.42 s) half of it is 0.0045 s
    xs = {"L": np.array([0.5, 1.0, 2.0])}
    tiny = bench.read_infix("(0.0004 + (2.006 * sqrt(x0)))", ["x0"])
    kept = bench.without_intercept(pendulum, "T", tiny, {"x0": "L"}, xs)
    assert bench.sympy_to_tree(kept, {s: "L" for s in tiny.free_symbols}) == {
        "op": "mul", "args": [2.006, {"op": "sqrt", "args": [{"var": "L"}]}]}
    real = bench.read_infix("(0.01 + (2.006 * sqrt(x0)))", ["x0"])
    assert bench.without_intercept(pendulum, "T", real, {"x0": "L"}, xs) is None


def test_decade_is_the_power_of_ten_nearest_the_median_magnitude():
    assert bench.decade(np.array([3e-34, -5e-34, 7e-34])) == pytest.approx(1e-33)  # median 5e-34: 10^-33.3
    assert bench.decade(np.array([250.0, 300.0, 400.0])) == pytest.approx(1e2)     # 10^2.48
    assert bench.decade(np.zeros(3)) == 1.0
