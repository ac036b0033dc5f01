"""The baseline's sparse sums (scigame/players/baseline/sums.py): every
pair and triple of a small dictionary, monomials times an angle feature,
and all coefficients of a sum tied. Numbers are compared with hand-derived
values, numpy's own least squares, and the game's strict judge."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

import scigame
from scigame.players.baseline import BaselinePlayer
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.monomials import OutputData, square_transforms, transforms
from scigame.players.baseline.sums import _residuals, dictionary, full_tie, subsets, sums
from scigame.players.baseline.task import Input, Output
from scigame.protocols import play_episode
from scigame.records import EpisodeKey

FEYNMAN = Path(__file__).resolve().parent.parent / "benchmarks" / "feynman"


def _dim(**exps: int) -> np.ndarray:
    """An SI dimension vector over (A, K, kg, m, s), as the task carries it."""
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


def _data(inputs: list[Input], output: Output, law, n: int = 8, seed: int = 3) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {i.name: rng.uniform(i.lo, i.hi, n) for i in inputs}
    return OutputData(inputs, output, X, law(**X), analyse(inputs, output))


def test_full_tie_maps_every_coefficient_to_the_largest():
    """c = (0.5, 0.51, 1.0): ratios to the largest 0.5, 0.51 → 1/2, 1/2, 1;
    c = (−2, 2.02, 1): to 2.02, −0.990, 0.495 → −1, 1, 1/2; a ratio 0.8
    near no simple one gives no tie."""
    (T,) = full_tie(np.array([0.5, 0.51, 1.0]))
    assert T.shape == (3, 1) and np.allclose(T[:, 0], [0.5, 0.5, 1.0])
    (T,) = full_tie(np.array([-2.0, 2.02, 1.0]))
    assert np.allclose(T[:, 0], [-1.0, 1.0, 0.5])
    assert full_tie(np.array([1.0, 0.8, 0.5])) == []
    assert full_tie(np.array([1.0, 1.0])) == []  # two terms: tie_maps ties them


def test_residuals_match_numpy_least_squares():
    """The stacked-QR residuals equal np.linalg.lstsq's, one subset at a
    time; dependent columns give inf."""
    rng = np.random.default_rng(0)
    U = rng.normal(size=(9, 6))
    U[:, 5] = 2.0 * U[:, 1] - U[:, 2]
    zw = rng.normal(size=9)
    cands = np.array([[0, 1, 2], [1, 3, 4], [0, 4, 5], [1, 2, 5]])
    got = _residuals(U, zw, cands)
    for s, r in zip(cands[:3], got[:3]):
        want = np.linalg.lstsq(U[:, s], zw, rcond=None)[1][0]
        assert r == pytest.approx(want, rel=1e-9)
    assert got[3] == np.inf


def test_every_triple_is_tried_where_greedy_misses():
    """K = ½·m·(v² + u² + w²) on 8 points: the three squares come out as the
    best triple (best-pair-then-one-more picked m·u·w, m·v², u⁻²·w²), with
    one tied coefficient 0.5."""
    speed = _dim(m=1, s=-1)
    inputs = [Input("m", "kg", "range", 1.0, 5.0, [], _dim(kg=1))] + [
        Input(nm, "m/s", "range", 1.0, 5.0, [], speed) for nm in ("v", "u", "w")]
    out = Output("K", "J", 0.0, 0.01, _dim(kg=1, m=2, s=-2))
    data = _data(inputs, out, lambda m, v, u, w: 0.5 * m * (v ** 2 + u ** 2 + w ** 2))
    ident = transforms(out)[0]
    terms = dictionary(data, ident)
    A = np.column_stack([t.values for t in terms])
    wz = 1.0 / data.sw ** 2
    texts = [sorted(terms[i].text for i in s) for s in subsets(A, data.y, wz, lambda i: 0.0)]
    assert ["m·u^2", "m·v^2", "m·w^2"] in texts
    tied = [law for law in sums(data, ident) if law.k == 1]
    assert tied and min(law.fit_max for law in tied) < 1e-6
    best = min(tied, key=lambda law: law.fit_max)
    assert "tied" in best.kind and "0.5·(" in best.text


def test_a_sum_under_a_square_root():
    """A tank filled through an inlet that speeds up with depth (Torricelli
    reversed): h = (√h0 + 0.004·t)², so √h is a sum of two terms, which the
    √y transform finds with both constants (1 and 0.004 m^0.5/s)."""
    inputs = [Input("h0", "m", "range", 0.5, 3.0, [], _dim(m=1)), Input("t", "s", "range", 0.0, 300.0, [], _dim(s=1))]
    out = Output("h", "m", 0.0, 0.01, _dim(m=1))
    data = _data(inputs, out, lambda h0, t: (np.sqrt(h0) + 0.004 * t) ** 2)
    root = next(tr for tr in square_transforms(data.y) if tr.name == "√y")
    laws = [law for law in sums(data, root, dimensional=False) if law.fit_max < 1e-6]
    assert any(law.text == "h = (sqrt(h0) + 0.004·t)^2" for law in laws), [law.text for law in laws]


def test_monomials_times_an_angle_feature():
    """F = q·(E + B·v·sin θ): the dictionary holds q·B·v·sin θ with the
    hand-computed values, and the best sum is exactly the law."""
    inputs = [Input("q", "C", "range", 1e-6, 1e-5, [], _dim(A=1, s=1)),
              Input("E", "V/m", "range", 100.0, 1000.0, [], _dim(kg=1, m=1, s=-3, A=-1)),
              Input("B", "T", "range", 0.1, 1.0, [], _dim(kg=1, s=-2, A=-1)),
              Input("v", "m/s", "range", 100.0, 1000.0, [], _dim(m=1, s=-1)),
              Input("theta", "rad", "range", 0.2, 1.4, [], _dim(), 1.0, True)]
    out = Output("F", "N", 0.0, 0.01, _dim(kg=1, m=1, s=-2))
    data = _data(inputs, out, lambda q, E, B, v, theta: q * (E + B * v * np.sin(theta)))
    terms = {t.text: t for t in dictionary(data, transforms(out)[0])}
    X = data.X
    assert np.allclose(terms["B·q·v·sin(1·theta)"].values, X["B"] * X["q"] * X["v"] * np.sin(X["theta"]))
    assert np.allclose(terms["E·q·cos(1·theta)^2"].values, X["E"] * X["q"] * np.cos(X["theta"]) ** 2)
    laws = sums(data, transforms(out)[0])
    best = min(laws, key=lambda law: (law.fit_max > 1e-6, law.k))
    assert best.fit_max < 1e-6 and best.k == 1, best.text


@pytest.mark.parametrize(("card", "env"), [
    ("kinetic_energy", "original"), ("lorentz_force", "counterfactual"),
    ("interference", "original"), ("dipole_angle", "counterfactual")])
def test_textbook_sums_pass_the_strict_check(card, env, tmp_path):
    """Four laws the greedy sum search missed, played through the real
    runner at Fixed B=8 and judged strictly by the game: ½·m·(v² + u² + w²),
    q·(E + 1.5·B·v·sin θ), I₁ + I₂ + √(I₁·I₂)·cos δ, β·(1 + α·cos² θ)."""
    c = scigame.load_card(FEYNMAN / f"{card}.sci", cache_dir=tmp_path)
    key = EpisodeKey(card_hash=c.data.source_sha256, card=c.name, environment=env, setting="discovery",
                     protocol="fixed", budget=8, repetition=0, player="baseline")
    ep = asyncio.run(play_episode(c, key, BaselinePlayer, seed=1, max_steps=c.data.max_steps))
    assert ep.outcome.strict_success
