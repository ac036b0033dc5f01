"""The baseline's search (players/baseline/search.py): its families in
order and laws that reproduce data made from known formulas (numpy)."""

from __future__ import annotations

import numpy as np

from scigame.players.baseline.dims import BASE_NAMES, analyse
from scigame.players.baseline.monomials import OutputData
from scigame.players.baseline.search import FAMILIES, Found, search
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate

#: SI exponents in the order of dims.BASE_NAMES (current, length, luminosity, mass, substance, temperature, time).
M, S = np.eye(7)[1], np.eye(7)[6]


def _data(law, dims=True, n=12, seed=0):
    rng = np.random.default_rng(seed)
    inputs = [Input("L", "m", "linear", 0.5, 2.0, [], dim=M if dims else None),
              Input("g", "m/s^2", "linear", 5.0, 15.0, [], dim=(M - 2 * S) if dims else None)]
    out = Output("T", "s", tol_abs=0.0, tol_rel=1e-3, dim=S if dims else None)
    X = {"L": rng.uniform(0.5, 2.0, n), "g": rng.uniform(5.0, 15.0, n)}
    return OutputData(inputs, out, X, law(X["L"], X["g"]), analyse(inputs, out)), X


def test_the_units_here_are_the_ones_the_search_reads():
    assert (BASE_NAMES[1], BASE_NAMES[6]) == ("length", "time")


def test_the_families_run_in_their_order():
    assert [f.name for f in FAMILIES] == ["monomials", "sums", "kinetics", "two exponentials", "differences",
                                          "bernoulli", "saturations", "oscillations", "waves", "powers", "relaxed",
                                          "composed", "derived"]
    assert [f.name for f in FAMILIES if f.simple] == ["monomials", "sums"]


def test_a_pendulum_is_found_among_the_monomials():
    data, X = _data(lambda L, g: 2 * np.pi * np.sqrt(L / g))
    laws = search(data, quick=True)  # monomials only
    assert laws and all(law.kind.split(",")[0] in ("dimensional analysis", "free exponents") for law in laws)
    best = min(laws, key=lambda law: law.fit_max)
    assert best.fit_max <= 1.0
    predicted = evaluate(best.tree, X)
    np.testing.assert_allclose(predicted, 2 * np.pi * np.sqrt(X["L"] / X["g"]), rtol=1e-3)


def test_quick_runs_the_monomials_alone_and_fits_decides_the_costly_families():
    data, _ = _data(lambda L, g: 2 * np.pi * np.sqrt(L / g))
    found = Found(data, quick=True, nested=False)
    tried = [f.name for f in FAMILIES if f.tried(found)]
    assert tried == ["monomials"]
    full = Found(data, quick=False, nested=False)
    full.by_family["monomials"] = FAMILIES[0].laws(full)
    assert full.fits()  # a simple law fits: kinetics and the other costly families are skipped
    assert not any(f.tried(full) for f in FAMILIES if f.name in ("kinetics", "saturations", "oscillations"))
    assert not Found(data, quick=False, nested=True).full


def test_nothing_fits_an_empty_search():
    data, _ = _data(lambda L, g: L * g)
    found = Found(data, quick=False, nested=False)
    assert found.laws == [] and not found.fits() and not found.reproduces()
