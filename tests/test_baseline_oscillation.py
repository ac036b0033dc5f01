"""The oscillation family's frequency scan (oscillation._scan): every grid
point's weighted least squares solved at once must pick the grid point and
the χ² that one scipy least-squares solve per point picks; its waves'
columns, worked out once for every choice of bases, must be the ones each
scan used to work out for itself."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg

from scigame.players.baseline import oscillation


def _one_by_one(data, base, q, trig, harmonic, damping, span):
    """The scan written point by point with scipy's lstsq (an independent solver)."""
    best = (math.inf, 0.0, 0.0)
    sw = 1.0 / data.sw
    for b in damping:
        for cyc in oscillation.CYCLES:
            a = 2 * math.pi * cyc / span
            env = np.exp(-b / span * q)
            cols = list(base) + [env * getattr(np, fn)(a * q) for fn in trig]
            if harmonic:
                cols += [env * np.cos(2 * a * q), env * np.sin(2 * a * q)]
            A = np.column_stack(cols)
            coef, *_ = scipy.linalg.lstsq(A * sw[:, None], data.y * sw)
            chi2 = float(np.sum(((A @ coef - data.y) * sw) ** 2))
            if chi2 < best[0]:
                best = (chi2, a, b / span)
    return best


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("trig", "harmonic", "damping"), [
    (("cos",), False, (0.0,)), (("cos", "sin"), False, oscillation.DAMPING[1:]), (("sin",), True, (0.0,))])
def test_scan_matches_one_solve_per_grid_point(seed, trig, harmonic, damping):
    rng = np.random.default_rng(seed)
    n = 14
    q = np.sort(rng.uniform(0.0, 40.0, n))
    span = float(np.ptp(q))
    y = np.round(1.5 + 0.8 * np.cos(2 * math.pi * 2.3 * q / span + 0.7) * np.exp(-0.3 * q / span)
                 + 0.01 * rng.normal(size=n), 3)
    data = SimpleNamespace(n=n, y=y, sw=0.01 + 0.01 * np.abs(y))
    base = [np.ones(n)] if seed % 2 else []
    chi2, a, b = oscillation._scan(data, base, oscillation._waves(q, trig, harmonic, damping, span))
    want = _one_by_one(data, base, q, trig, harmonic, damping, span)
    assert (a, b) == want[1:]
    assert chi2 == pytest.approx(want[0], rel=1e-9, abs=1e-12)


def test_scan_with_as_many_columns_as_points_finds_nothing():
    q = np.linspace(0.0, 1.0, 3)
    data = SimpleNamespace(n=3, y=np.cos(q), sw=np.full(3, 0.01))
    waves = oscillation._waves(q, ("cos", "sin"), False, (0.0,), 1.0)
    assert oscillation._scan(data, [np.ones(3)], waves) == (math.inf, 0.0, 0.0)


def test_waves_shared_between_scans_leave_every_scan_as_it_was():
    """One _waves for several scans with different bases: each scan gives, to
    the bit, what it gives on waves worked out for it alone (the scan must not
    change the columns it is handed)."""
    rng = np.random.default_rng(7)
    n = 20
    q = np.sort(rng.uniform(0.0, 10.0, n))
    y = np.round(2.0 + np.sin(1.3 * q) + 0.05 * q, 3)
    data = SimpleNamespace(n=n, y=y, sw=np.full(n, 0.01))
    shared = oscillation._waves(q, ("cos", "sin"), False, (0.0,), float(np.ptp(q)))
    before = [c.copy() for c in shared[1]]
    for base in ([], [np.ones(n)], [np.ones(n), q], [q]):
        alone = oscillation._scan(data, base, oscillation._waves(q, ("cos", "sin"), False, (0.0,), float(np.ptp(q))))
        assert oscillation._scan(data, base, shared) == alone
    assert all(np.array_equal(b, c) for b, c in zip(before, shared[1]))


# --- waves in two inputs (oscillation.waves) ---------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from scigame.players.baseline.dims import analyse  # noqa: E402
from scigame.players.baseline.search import OutputData  # noqa: E402
from scigame.players.baseline.task import Input, Output  # noqa: E402
from scigame.players.baseline.trees import evaluate  # noqa: E402


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


X_IN = Input("x", "m", "range", 0.0, 2.0, [], _dim(m=1))
T_IN = Input("t", "s", "range", 0.0, 2.0, [], _dim(s=1))
Y_OUT = Output("y", "mm", 1e-4, 0.01, _dim(m=1))


def _wave_data(law, n=16, seed=3) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {"x": rng.uniform(0.0, 2.0, n), "t": rng.uniform(0.0, 2.0, n)}
    return OutputData([X_IN, T_IN], Y_OUT, X, np.round(law(**X), 4), analyse([X_IN, T_IN], Y_OUT))


def _misses(found, law) -> float:
    """A found wave's largest error against the closed form on a fresh grid
    of the domain, in tolerances."""
    rng = np.random.default_rng(11)
    P = {"x": rng.uniform(0.0, 2.0, 200), "t": rng.uniform(0.0, 2.0, 200)}
    truth = law(**P)
    return float(np.max(np.abs(evaluate(found.tree, P) - truth) / (1e-4 + 0.01 * np.abs(truth))))


@settings(max_examples=8, deadline=None)
@given(k=st.sampled_from([0.9, 1.3, 2.2, 3.1]), w=st.sampled_from([1.1, 2.1, 3.4]),
       phase=st.sampled_from([0.0, 0.46, -0.8]), travelling=st.booleans())
def test_standing_and_travelling_waves_come_back_from_sixteen_readings(k, w, phase, travelling):
    """y = 5 + 2·sin(k·x + φ)·cos(w·t), or 5 + 2·cos(k·x − w·t + φ): the
    found wave is the law to within the readings' rounding everywhere in the
    domain, its frequencies are k and w, and a standing wave uses two of the
    four products (a travelling one with φ = 0 too, cos·cos and sin·sin)."""
    def law(x, t):
        return 5 + 2 * (np.cos(k * x - w * t + phase) if travelling else np.sin(k * x + phase) * np.cos(w * t))
    found = oscillation.waves(_wave_data(law))
    best = min(found, key=lambda f: (f.fit_error, f.k))
    assert _misses(best, law) < 0.2, best.text
    assert f"{k:g}·x)" in best.text and f"{w:g}·t)" in best.text, best.text
    if phase == 0.0:  # the law's own two products, among the structures found
        assert any(f.text.count("·cos(") + f.text.count("·sin(") == 4 and _misses(f, law) < 0.2
                   for f in found), [f.text for f in found]


def test_waves_need_their_readings_and_two_inputs_that_are_not_angles():
    def law(x, t):
        return 5 + 2 * np.sin(1.3 * x) * np.cos(2.1 * t)
    assert oscillation.waves(_wave_data(law, n=oscillation.WAVE_READINGS - 1)) == []
    data = _wave_data(law)
    angle = Input("x", "rad", "range", 0.0, 2.0, [], _dim(), 1.0, True)
    no_pair = OutputData([angle, T_IN], Y_OUT, data.X, data.y, analyse([angle, T_IN], Y_OUT))
    assert oscillation.waves(no_pair) == []
