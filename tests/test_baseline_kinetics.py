"""The baseline's shared-exponential sums (scigame/players/baseline/kinetics.py):
first-order relaxation, charging and logistic growth recovered from exact
readings, the law checked against the closed forms at new points, and the
variable projection's screen against numpy's own least squares."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scigame.players.baseline.dims import analyse
from scigame.players.baseline.kinetics import _screen, _subsets, kinetic_transforms, kinetics
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


T_IN = Input("t", "s", "range", 0.2, 6.0, [], _dim(s=1))
Y0_IN = Input("y0", "m", "range", 1.0, 3.0, [], _dim(m=1))
OUT = Output("y", "m", 0.0, 0.01, _dim(m=1))


def _data(law, inputs=(T_IN, Y0_IN), n=12, seed=2) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {i.name: rng.uniform(i.lo, i.hi, n) for i in inputs}
    return OutputData(list(inputs), OUT, X, law(**X), analyse(list(inputs), OUT))


def _best(laws, data, law):
    """The law among those found that fits best (of equal fits, the one
    with fewer constants, as the search's score prefers), and its largest
    relative error against the closed form on a fresh grid of the domain."""
    best = min(laws, key=lambda f: (f.fit_error, f.k))
    rng = np.random.default_rng(9)
    P = {k: rng.uniform(np.min(v), np.max(v), 60) for k, v in data.X.items()}
    return best, float(np.max(np.abs(evaluate(best.tree, P) / law(**P) - 1.0)))


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([0.5, 1.5, 2.0, 4.0, 6.0]), st.sampled_from([0.3, 0.45, 0.7, 1.2]))
def test_relaxation_toward_an_equilibrium_is_recovered(y_inf, rate):
    """y = y∞ + (y0 − y∞)·e^(−r·t): the rate and equilibrium come back exactly."""
    def law(t, y0):
        return y_inf + (y0 - y_inf) * np.exp(-rate * t)
    data = _data(law)
    best, err = _best(kinetics(data), data, law)
    assert best.fit_max < 0.05 and err < 1e-4, best.text
    assert f"exp({-rate:.4g}·t)" in best.text and best.kind.startswith("shared exponential")


def test_charging_has_the_transient_that_vanishes_at_zero():
    """y = 2.5·(1 − e^(−0.8·t)): ±2.5 tied (one constant) or snapped."""
    def law(t, y0):
        return 2.5 * (1.0 - np.exp(-0.8 * t))
    data = _data(law)
    best, err = _best(kinetics(data), data, law)
    assert err < 1e-4 and "exp(-0.8·t)" in best.text
    assert best.k <= 3  # two coefficients tied by c₂ = −c₁ (or snapped), one rate


def test_logistic_growth_in_the_reciprocal():
    """1/y = (1 − e^(−r·t))/K + e^(−r·t)/y0, K = 5, r = 0.9: found with T = 1/y."""
    def law(t, y0):
        e = np.exp(-0.9 * t)
        return 1.0 / ((1.0 - e) / 5.0 + e / y0)
    data = _data(law)
    laws = [f for f in kinetics(data) if "1/y" in f.kind]
    best, err = _best(laws, data, law)
    assert err < 1e-4 and "exp(-0.9·t)" in best.text


def test_too_few_points_and_the_transforms():
    assert kinetics(_data(lambda t, y0: y0 + t, n=5)) == []
    data = _data(lambda t, y0: y0 + t)
    assert [tr.name for tr in kinetic_transforms(data)] == ["y", "1/y", "log y"]
    data.y = data.y - 3.0  # of both signs: no logarithm
    assert [tr.name for tr in kinetic_transforms(data)] == ["y", "1/y"]


def test_subsets_mix_terms_with_and_without_the_exponential():
    """For two bases the subsets of (E·B₀, E·B₁, B₀, B₁) with at least one of
    each kind, of two and three columns."""
    got = _subsets(2)
    assert len(got) == 4 + 4 and all(any(c < 2 for c in s) and any(c >= 2 for c in s) for s in got)
    assert (0, 1) not in got and (2, 3) not in got and (0, 2, 3) in got


def test_screen_residuals_match_numpy_lstsq():
    """The screen's residual of a subset at a grid rate is numpy's weighted
    least-squares residual of the same columns."""
    rng = np.random.default_rng(0)
    n = 10
    q = rng.uniform(0.1, 3.0, n)
    B = np.column_stack([np.ones(n), rng.uniform(1.0, 2.0, n)])
    z = 1.0 + 0.5 * np.exp(-0.6 * q) + rng.normal(0.0, 0.01, n)
    w = rng.uniform(0.5, 2.0, n)
    grid = np.array([-0.6])
    (r, s, a), = _screen(z, w, B, q, grid, keep=1)
    full = np.column_stack([np.exp(a * q)[:, None] * B, B])[:, list(s)]
    coef, *_ = np.linalg.lstsq(full * np.sqrt(w)[:, None], z * np.sqrt(w), rcond=None)
    assert r == pytest.approx(float(np.sum(w * (full @ coef - z) ** 2)), rel=1e-6)
    for s2 in _subsets(2):  # and it is the least of them all
        A = np.column_stack([np.exp(a * q)[:, None] * B, B])[:, list(s2)]
        c2, *_ = np.linalg.lstsq(A * np.sqrt(w)[:, None], z * np.sqrt(w), rcond=None)
        assert r <= float(np.sum(w * (A @ c2 - z) ** 2)) * (1 + 1e-6)


def test_a_rate_between_grid_values_is_screened_at_its_own_value():
    """y = y0·(e^(−0.8·t) + 0.28), a background under a decay: −0.8 lies between two
    values of the rate grid (×1.47 apart), where a coarse screen lets another
    argument's subset win; the screen's refinement between the neighbours finds
    the law itself (checked against the closed form at new points)."""
    def law(t, y0):
        return y0 * (np.exp(-0.8 * t) + 0.28)
    data = _data(law, n=8)
    best, err = _best(kinetics(data), data, law)
    assert best.fit_max < 1e-6 and err < 1e-8, best.text
    assert "exp(-0.8·t)" in best.text and "0.28·y0" in best.text


def _screen_one_subset_at_a_time(z, wz, B, q, grid, keep=2):
    """The screen as first written: every subset's columns built from scratch at
    every value of a (the grid's and the FINE values after its best)."""
    import math

    from scigame.players.baseline.kinetics import FINE

    sw = np.sqrt(wz)
    zw = z * sw

    def residuals(a_values, s):
        E = np.exp(np.outer(a_values, q))
        full = np.concatenate([E[:, :, None] * B[None], np.broadcast_to(B, (len(a_values),) + B.shape)], axis=2)
        A = full[:, :, list(s)] * sw[None, :, None]
        AtA = np.einsum("gni,gnj->gij", A, A) + 1e-12 * np.eye(len(s))
        Atz = np.einsum("gni,n->gi", A, zw)
        c = np.linalg.solve(AtA, Atz[..., None])[..., 0]
        r = np.sum((np.einsum("gni,gi->gn", A, c) - zw) ** 2, axis=1)
        return np.where(np.isfinite(r), r, math.inf)

    found = []
    for s in _subsets(B.shape[1]):
        try:
            with np.errstate(all="ignore"):
                r = residuals(grid, s)
                g = int(np.argmin(r))
                if not math.isfinite(r[g]):
                    continue
                fine = np.linspace(grid[max(g - 1, 0)], grid[min(g + 1, len(grid) - 1)], FINE)
                rf = residuals(fine, s)
        except np.linalg.LinAlgError:
            continue
        f = int(np.argmin(rf))
        found.append((float(rf[f]), s, float(fine[f])) if rf[f] < r[g] else (float(r[g]), s, float(grid[g])))
    return sorted(found, key=lambda f: f[0])[:keep]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(1, 4), duplicate=st.booleans())
def test_screen_shares_columns_and_gives_every_bit_of_the_plain_screen(seed, m, duplicate):
    """_screen builds the grid's columns once and the FINE values' once per best
    grid value; its answers are those of building them per subset, to the bit
    (a duplicated base makes some subsets singular: skipped alike)."""
    rng = np.random.default_rng(seed)
    n = 10
    q = rng.uniform(0.1, 5.0, n)
    B = np.column_stack([np.ones(n)] + [rng.uniform(1.0, 3.0, n) for _ in range(m - 1)])
    if duplicate and m > 1:
        B[:, -1] = B[:, 0]
    z = 2.0 - 1.3 * np.exp(-0.7 * q) + 0.01 * rng.standard_normal(n)
    wz = rng.uniform(0.5, 2.0, n)
    grid = np.concatenate([-np.geomspace(0.01, 10, 20), np.geomspace(0.01, 10, 20)])
    assert _screen(z, wz, B, q, grid, keep=50) == _screen_one_subset_at_a_time(z, wz, B, q, grid, keep=50)
