"""Corrections composed onto a found law (scigame/players/baseline/corrections.py):
a factor (1 + c·Z) or a term c·O·Z switched on, screened linearly over the parents
the search found and refined with them. Laws are written here by hand and the
recovered law is checked against the closed form at new points."""

from __future__ import annotations

import numpy as np

from scigame.players.baseline.corrections import FACTOR, TERM, _sensitivities, corrected_tree, corrections
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.fitting import Law, scaled_errors
from scigame.players.baseline.monomials import monomial_laws
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate, op, var


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


T_IN = Input("t", "s", "range", 0.5, 6.0, [], _dim(s=1))
Y0_IN = Input("y0", "m", "range", 1.0, 3.0, [], _dim(m=1))
U_IN = Input("u", "m", "range", 0.5, 6.0, [], _dim(m=1))
OUT = Output("y", "m", 0.0, 0.001, _dim(m=1))  # readings to 0.1%: a look-alike misses


def _data(law, inputs=(T_IN, Y0_IN), n=10, seed=3) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {i.name: rng.uniform(i.lo, i.hi, n) for i in inputs}
    return OutputData(list(inputs), OUT, X, law(**X), analyse(list(inputs), OUT))


def _error(tree, law, domain) -> float:
    rng = np.random.default_rng(9)
    P = {name: rng.uniform(lo, hi, 60) for name, (lo, hi) in domain.items()}
    return float(np.max(np.abs(evaluate(tree, P) / law(**P) - 1.0)))


def test_the_corrected_trees_put_c_where_the_paths_say():
    parent = op("mul", 2.0, var("y0"), op("exp", op("mul", -0.5, var("t"))))
    tree, path = corrected_tree(parent, FACTOR, var("t"), 0.1)
    assert tree["args"][1] == op("add", 1.0, op("mul", 0.1, var("t")))
    assert tree["args"][1]["args"][1]["args"][0] == 0.1 and path == (1, 1, 0)
    tree, path = corrected_tree(parent, TERM, var("t"), 0.3)  # c·y0·t: the parent's units carried
    assert tree["args"][1] == op("mul", 0.3, var("y0"), var("t")) and path == (1, 0)
    tree, path = corrected_tree(parent, TERM, None, 0.3)  # a background c·y0
    assert tree["args"][1] == op("mul", 0.3, var("y0"))


def _parent(data, tree, k=2, complexity=3.0) -> Law:
    """A found law, as a family of the search would hand it over (its fit recorded)."""
    law = Law("a parent", "y = parent", tree, k, complexity, lambda idx: None)
    law.set_fit(scaled_errors(evaluate(tree, data.X), data.y, data.sw))
    return law


def test_a_correction_factor_on_a_saturation_is_recovered():
    """y = u·(1 + 0.3·u)/(1 + 0.8·u), a thin lens's image distance moved by a
    thickness: the parent 0.6·u·(1 + 0.5·u)^−1 (a saturation the search found,
    its numbers off), times the correction factor (1 + c·u): refined with the
    parent's numbers, the law itself at new points."""
    def law(u):
        return u * (1.0 + 0.3 * u) / (1.0 + 0.8 * u)
    data = _data(law, inputs=(U_IN,))
    parent = _parent(data, op("mul", 0.6, var("u"), op("pow", op("add", 1.0, op("mul", 0.5, var("u"))), -1.0)))
    found = corrections(data, [parent])
    assert found, "no correction fits"
    best = min(found, key=lambda f: f.fit_error)
    assert best.fit_max < 1e-3 and _error(best.tree, law, {"u": (0.5, 6.0)}) < 1e-6, best.text
    assert "correction" in best.kind and best.k == 3  # or 0.375·u + 0.625·u/(1 + 0.8·u): the same law


def test_the_parents_sensitivities_are_its_derivatives():
    """For 2.5·e^(−0.7·t), the columns the screen adds beside the parent are
    ∂/∂2.5 = e^(−0.7·t) and ∂/∂(−0.7) = 2.5·t·e^(−0.7·t) (by hand), to the
    forward difference's accuracy."""
    t = np.linspace(0.5, 6.0, 12)
    tree = op("mul", 2.5, op("exp", op("mul", -0.7, var("t"))))
    scale, rate = _sensitivities(tree, {"t": t}, 2.5 * np.exp(-0.7 * t))
    assert np.allclose(scale, np.exp(-0.7 * t), rtol=1e-5)
    assert np.allclose(rate, 2.5 * t * np.exp(-0.7 * t), rtol=1e-5)


def test_a_background_term_is_recovered():
    """y = y0·(e^(−0.8·t) + 0.28): the parent y0·e^(−0.7·t) plus c·y0 (the parent's
    units carried by its outer input), c = 0.28."""
    def law(t, y0):
        return y0 * (np.exp(-0.8 * t) + 0.28)
    data = _data(law)
    parent = _parent(data, op("mul", 1.0, var("y0"), op("exp", op("mul", -0.7, var("t")))))
    best = min(corrections(data, [parent]), key=lambda f: f.fit_error)
    assert _error(best.tree, law, {"t": (0.5, 6.0), "y0": (1.0, 3.0)}) < 1e-6, best.text
    assert "correction term relaxed to 0.28" in best.kind


def test_a_law_that_fits_needs_no_correction():
    """y = 2·y0·e^(−0.5·t) is found by the monomial family itself: no parent misses."""
    def law(t, y0):
        return 2.0 * y0 * np.exp(-0.5 * t)
    data = _data(law)
    assert corrections(data, monomial_laws(data, False)) == []
