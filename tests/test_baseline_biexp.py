"""The baseline's two exponentials in one input (scigame/players/baseline/biexp.py):
a decay chain's daughter, a drug absorbed and eliminated (with a dose
exponent), two populations decaying at two rates, recovered from exact
readings and checked against the closed forms (numpy) at new points; the
screen of rate pairs against one scipy least-squares solve per pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from scigame.players.baseline import biexp
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


T_IN = Input("t", "h", "range", 0.5, 24.0, [], _dim(s=1))


def _data(law, second: Input, out: Output, n=14, seed=4) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {"t": rng.uniform(T_IN.lo, T_IN.hi, n), second.name: rng.uniform(second.lo, second.hi, n)}
    return OutputData([T_IN, second], out, X, np.round(law(**X), 4), analyse([T_IN, second], out))


def _misses(law_found, law, data) -> float:
    """A found law's largest error against the closed form on a fresh grid, in tolerances."""
    rng = np.random.default_rng(12)
    P = {k: rng.uniform(np.min(v), np.max(v), 300) for k, v in data.X.items()}
    truth = law(**P)
    return float(np.max(np.abs(evaluate(law_found.tree, P) - truth)
                        / (data.output.tol_abs + data.output.tol_rel * np.abs(truth))))


def _best(laws):
    """The law the model choice would weigh first among equal fits: fewest constants."""
    return min(laws, key=lambda f: (round(f.fit_max, 1) > 1.0, f.k, f.fit_error))


DOSE = Input("D", "mg", "range", 100.0, 500.0, [], _dim(kg=1))
CONC = Output("C", "mg/L", 1e-4, 0.01, _dim(kg=1, m=-3))


def test_a_drug_absorbed_and_eliminated_is_found_with_opposite_coefficients():
    """C = D/V·k_a/(k_a − k_e)·(e^(−k_e·t) − e^(−k_a·t)): the volume is hidden, so the
    dose is a base of other units; the transient starts from 0 (c₂ = −c₁)."""
    def law(t, D):
        return D / 40.0 * 1.2 / 1.05 * (np.exp(-0.15 * t) - np.exp(-1.2 * t))
    data = _data(law, DOSE, CONC)
    best = _best(biexp.two_exponentials(data))
    assert _misses(best, law, data) < 0.2, best.text
    assert "opposite" in best.kind and "exp(-0.15·t)" in best.text and "exp(-1.2·t)" in best.text, best.text


def test_a_dose_exponent_is_a_fitted_power_of_the_base():
    """The same with the dose to the power 1.3 (its effect grows faster than the dose)."""
    def law(t, D):
        return D / 40.0 * (D / 300.0) ** 0.3 * 1.2 / 1.05 * (np.exp(-0.15 * t) - np.exp(-1.2 * t))
    data = _data(law, DOSE, CONC)
    found = [f for f in biexp.two_exponentials(data) if f.fit_max <= 1.0]
    assert found and any("D^1.3" in f.text and _misses(f, law, data) < 0.2 for f in found), \
        [f.text for f in biexp.two_exponentials(data)]


ATOMS = Input("N0", "1", "range", 1000.0, 5000.0, [], _dim())
LEFT = Output("N", "1", 1e-4, 0.01, _dim())


@settings(max_examples=6, deadline=None)
@given(fast=st.sampled_from([0.2, 0.3, 0.4]), slow=st.sampled_from([0.02, 0.05, 0.1]),
       share=st.sampled_from([0.25, 0.39, 0.6]))
def test_two_populations_decaying_at_two_rates_come_back(fast, slow, share):
    """N = N0·((1 − s)·e^(−f·t) + s·e^(−w·t)): the rates and the share come
    back to the readings' precision everywhere in the domain. (A fast
    component gone by the first few readings of 0.5..24 h, a rate of 0.9/h
    say, leaves look-alikes that fit every reading: not asked here.)"""
    def law(t, N0):
        return N0 * ((1 - share) * np.exp(-fast * t) + share * np.exp(-slow * t))
    data = _data(law, ATOMS, LEFT, n=16)
    fits = [f for f in biexp.two_exponentials(data) if f.fit_max <= 1.0]
    assert fits and min(_misses(f, law, data) for f in fits) < 0.3, [f.text for f in fits]


def _one_by_one(data, base, q, level):
    """The screen written pair by pair with scipy's lstsq (an independent solver)."""
    rates = biexp.RATES / (float(np.median(np.abs(q))) or 1.0)
    sw = 1.0 / data.sw
    best = (math.inf, 0.0, 0.0)
    for i in range(len(rates)):
        for j in range(i + 1, len(rates)):
            cols = [base * np.exp(rates[i] * q), base * np.exp(rates[j] * q)] + ([base] if level else [])
            A = np.column_stack(cols)
            if not np.all(np.isfinite(A)) or np.max(np.abs(A)) > 1e150:
                continue
            coef, *_ = scipy.linalg.lstsq(A * sw[:, None], data.y * sw)
            chi2 = float(np.sum(((A @ coef - data.y) * sw) ** 2))
            if chi2 < best[0]:
                best = (chi2, rates[i], rates[j])
    return best


@pytest.mark.parametrize("level", [False, True])
def test_the_screen_picks_the_pair_one_solve_per_pair_picks(level):
    def law(t, N0):
        return N0 * (0.7 * np.exp(-0.4 * t) + 0.3 * np.exp(-0.03 * t)) + (50.0 if level else 0.0)
    data = _data(law, ATOMS, LEFT, n=16)
    q, base = data.X["t"], data.X["N0"]
    chi2, a, b = biexp._screen(data, base, q, level)
    want = _one_by_one(data, base, q, level)
    assert (a, b) == want[1:]
    assert chi2 == pytest.approx(want[0], rel=1e-6, abs=1e-6)
