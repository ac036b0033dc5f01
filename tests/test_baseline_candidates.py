"""Each candidate law of the baseline's search is written three times: its
statement text, its predictor tree and the numpy model its refits use
(issue #23). For every law the search produces on representative inputs
(monomials, functions of a group, sums, kinetics, two exponentials, a
quadratic-rate relaxation, saturations, oscillations, waves in two inputs,
differences of powers of two temperatures,
an angle, derived variables) the
three are evaluated at random points of the observed box and must agree.

The text is read by sympy's parser as ordinary arithmetic (`·` for `*`,
`^` for `**`), not by the module's code: since the statement is written
from the tree (trees.tree_text), it must say the law the tree computes."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

from scigame.players.baseline import (bernoulli, biexp, derived, differences, kinetics, monomials, oscillation, powers, relax,
                                      saturation, search, sums)
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.fitting import rounding_bound, scaled_errors
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate


def _dim(**exps: int) -> np.ndarray:
    """An SI dimension vector over (A, K, kg, m, s), as the task carries it."""
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


#: name: (inputs, output, law over the inputs, points)
CASES = {
    "monomial": ([Input("x", "m", "range", 1.0, 4.0, [], _dim(m=1)), Input("z", "s", "range", 0.5, 2.0, [], _dim(s=1))],
                 Output("y", "m^2/s", 0.0, 0.01, _dim(m=2, s=-1)), lambda x, z: 3.0 * x ** 2 / z, 10),
    "kinetics": ([Input("t", "s", "range", 0.1, 5.0, [], _dim(s=1)), Input("y0", "m", "range", 1.0, 3.0, [], _dim(m=1))],
                 Output("y", "m", 0.0, 0.01, _dim(m=1)), lambda t, y0: 2.0 + (y0 - 2.0) * np.exp(-0.7 * t), 12),
    "saturation": ([Input("x", "m", "range", 0.1, 5.0, [], _dim(m=1))], Output("y", "m", 0.0, 0.01, None),
                   lambda x: 3.0 / (1.0 + (x / 1.3) ** 2.7), 12),
    "oscillation": ([Input("t", "s", "range", 0.0, 10.0, [], _dim(s=1))], Output("h", "m", 0.0, 0.01, _dim(m=1)),
                    lambda t: 1.5 + 0.8 * np.cos(1.3 * t), 16),
    "angle": ([Input("theta", "rad", "range", 0.1, 1.4, [], _dim(), 1.0, True)],
              Output("phi", "rad", 0.0, 0.01, _dim(), 1.0, True), lambda theta: np.arcsin(np.sin(theta) / 1.5), 10),
    "difference": ([Input("a", "m", "range", 3.0, 5.0, [], _dim(m=1)), Input("b", "m", "range", 0.5, 2.0, [], _dim(m=1))],
                   Output("y", "m^2", 0.0, 0.01, _dim(m=2)), lambda a, b: 2.0 * (a - b) ** 2 + 0.5 * a * b, 12),
    "two exponentials": ([Input("t", "s", "range", 0.5, 20.0, [], _dim(s=1)),
                          Input("N0", "1", "range", 1000.0, 5000.0, [], _dim())], Output("N", "1", 0.0, 0.01, _dim()),
                         lambda t, N0: N0 * (0.6 * np.exp(-0.5 * t) + 0.4 * np.exp(-0.05 * t)), 14),
    "differences of powers": ([Input("A", "m^2", "range", 0.5, 5.0, [], _dim(m=2)),
                               Input("T", "K", "range", 330.0, 450.0, [], _dim(K=1)),
                               Input("Ta", "K", "range", 250.0, 300.0, [], _dim(K=1))],
                              Output("P", "W", 1e-3, 0.01, _dim(kg=1, m=2, s=-3)),
                              lambda A, T, Ta: 10.0 * A * (T - Ta) + 5.4e-8 * A * (T ** 4 - Ta ** 4), 10),
    "wave": ([Input("x", "m", "range", 0.0, 2.0, [], _dim(m=1)), Input("t", "s", "range", 0.0, 2.0, [], _dim(s=1))],
             Output("y", "m", 1e-4, 0.01, _dim(m=1)), lambda x, t: 5.0 + 2.0 * np.sin(1.3 * x) * np.cos(2.1 * t), 16),
}

def read_statement(text: str, names: list[str], output: Output) -> sympy.Expr:
    """A law statement `y = …` of the baseline as a sympy expression of the
    inputs: ordinary arithmetic (`·` times, `^` power), nothing rewritten."""
    lhs, _, rhs = text.partition(" = ")
    assert lhs == output.name, text
    return parse_expr(rhs.replace("·", "*"), local_dict={n: sympy.Symbol(n) for n in names},
                      transformations=standard_transformations + (convert_xor,))


@pytest.fixture(scope="module")
def found():
    """Every case's laws, and its data (the searches take a few seconds)."""
    out = {}
    rng = np.random.default_rng(7)
    for name, (inputs, output, law, n) in CASES.items():
        X = {i.name: rng.uniform(i.lo, i.hi, n) for i in inputs}
        data = OutputData(inputs, output, X, law(**X), analyse(inputs, output))
        out[name] = (data, search.search(data))
    return out


@pytest.fixture
def frozen(monkeypatch):
    """refine() returning its start: a law's refit on every point is then its
    numpy model at exactly the law's own constants (the lambda of the three)."""
    def start(model, theta0, *args, **kwargs):
        return np.asarray(theta0, float)
    for module in (search, monomials, kinetics, biexp, differences, bernoulli, saturation, oscillation, powers, relax, sums, derived):
        if hasattr(module, "refine"):
            monkeypatch.setattr(module, "refine", start)


def _points(data: OutputData, n: int = 40, seed: int = 11) -> dict:
    rng = np.random.default_rng(seed)
    return {k: rng.uniform(np.min(v), np.max(v), n) for k, v in data.X.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_tree_and_model_agree(found, frozen, case):
    data, laws = found[case]
    assert len(laws) >= 5
    P = _points(data)
    names = list(data.X)
    checked = 0
    for law in laws:
        tree = evaluate(law.tree, P)
        if tree is None:  # outside its domain somewhere in the box: the model choice drops it (select._valid)
            continue
        expr = read_statement(law.text, names, data.output)
        assert expr.free_symbols <= {sympy.Symbol(n) for n in names}, law.text
        with np.errstate(all="ignore"):
            said = np.broadcast_to(sympy.lambdify([sympy.Symbol(n) for n in names], expr, "numpy")(
                *[P[n] for n in names]), tree.shape).astype(float)
        scale = data.output.scale(tree)
        # the text's constants have 4 significant digits
        assert np.max(np.abs(said - tree) / (scale + 0.01 * np.max(np.abs(tree)))) < 1.0, (law.kind, law.text)
        fn = law.refit(np.arange(data.n))
        assert fn is not None, law.kind
        with np.errstate(all="ignore"):
            model = np.asarray(fn(P), float)
        # a sum's model keeps the unfactored constants (sums._factored rounds the
        # ratios as far as the data allow: rounding_bound); every other family's
        # model is the tree's own arithmetic
        allowed = 2 * rounding_bound(law.fit_max) if law.kind.startswith("sum") else 1e-6
        assert np.max(np.abs(model - tree) / scale) < allowed, (law.kind, law.text)
        observed = evaluate(law.tree, data.X)
        assert observed is not None and float(np.max(scaled_errors(observed, data.y, data.sw))) == pytest.approx(
            law.fit_max, rel=1e-6, abs=1e-9), (law.kind, law.text)
        checked += 1
    assert checked >= len(laws) // 2


def test_statement_reads_as_written():
    """y = 2·x^(7/3), exact: the search's monomial is the law, and its
    statement read as ordinary arithmetic (· times, ^ power) is the law too."""
    inputs = [Input("x", "m", "range", 1.0, 4.0, [], _dim(m=1))]
    output = Output("y", "1", 0.0, 0.01, None)
    x = np.linspace(1.0, 4.0, 9)
    data = OutputData(inputs, output, {"x": x}, 2.0 * x ** (7 / 3), analyse(inputs, output))
    law = min((f for f in search.search(data) if f.kind == "free exponents"), key=lambda f: f.fit_max)
    assert law.fit_max < 0.05 and law.text.startswith("y = 2·x^(7/3)")
    said = parse_expr(law.text.partition(" = ")[2].replace("·", "*"), local_dict={"x": sympy.Symbol("x")},
                      transformations=standard_transformations + (convert_xor,))
    grid = np.linspace(1.0, 4.0, 7)
    assert sympy.lambdify(sympy.Symbol("x"), said)(grid) == pytest.approx(evaluate(law.tree, {"x": grid}), rel=1e-3)
