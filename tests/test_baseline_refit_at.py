"""The families' models at one X (`model.at(X)`, which fitting.refine uses for
a fit's many calls: what does not depend on the fitted numbers worked out once)
give the model's own bits: every fit the monomial, kinetics, Bernoulli and
power-of-a-sum families run, their held-out refits on subsets of the readings
included, is checked at its starting numbers and nearby before it runs."""

from __future__ import annotations

import numpy as np
import pytest

from scigame.players.baseline import bernoulli, kinetics, monomials, powers
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


def _cooling():
    inp = [Input("t", "s", "range", 0.2, 5.0, [], _dim(s=1)), Input("T0", "K", "range", 60.0, 90.0, [], _dim(K=1))]
    out = Output("T", "K", 0.0, 0.001, _dim(K=1))
    rng = np.random.default_rng(4)
    X = {"t": rng.uniform(0.2, 5.0, 11), "T0": rng.uniform(60.0, 90.0, 11)}
    y = bernoulli._model(X["T0"], X["t"], np.array([20.0, 0.004, -0.6]))
    return OutputData(inp, out, X, y + 0.01 * np.sin(7 * X["t"]), analyse(inp, out))


def _relaxation():
    inp = [Input("t", "s", "range", 0.2, 6.0, [], _dim(s=1)), Input("y0", "m", "range", 1.0, 3.0, [], _dim(m=1))]
    out = Output("y", "m", 0.0, 0.01, _dim(m=1))
    rng = np.random.default_rng(2)
    X = {"t": rng.uniform(0.2, 6.0, 12), "y0": rng.uniform(1.0, 3.0, 12)}
    y = 1.5 + (X["y0"] - 1.5) * np.exp(-0.45 * X["t"]) + 0.02 * np.cos(5 * X["t"])
    return OutputData(inp, out, X, y, analyse(inp, out))


def _lorentz():
    inp = [Input("m", "kg", "range", 1.0, 5.0, [], _dim(kg=1)),
           Input("v", "m/s", "range", 1e7, 2.4e8, [], _dim(m=1, s=-1))]
    out = Output("E", "J", 0.0, 0.01, _dim(kg=1, m=2, s=-2))
    rng = np.random.default_rng(5)
    X = {"m": rng.uniform(1.0, 5.0, 9), "v": rng.uniform(1e7, 2.4e8, 9)}
    return OutputData(inp, out, X, 9e16 * X["m"] * (1.0 - 1e-17 * X["v"] ** 2) ** -1.4, analyse(inp, out))


@pytest.mark.parametrize("module, family, make", [
    (monomials, monomials.monomial_laws, _relaxation),
    (kinetics, kinetics.kinetics, _relaxation),
    (bernoulli, bernoulli.bernoulli, _cooling),
    (powers, powers.powers, _lorentz),
    (monomials, monomials.monomial_laws, _lorentz),
])
def test_a_model_at_one_x_gives_the_models_bits(monkeypatch, module, family, make):
    plain = module.refine
    checked = []

    def refine(model, theta0, X, y, sw, idx=None, nfev=25):
        at = getattr(model, "at", None)
        if at is not None:
            Xi = X if idx is None else {k: v[idx] for k, v in X.items()}
            with np.errstate(all="ignore"):  # as refine calls it
                fit = at(Xi)
                for theta in (np.array(theta0, float), np.array(theta0, float) * 1.01 + 1e-3):
                    want = np.asarray(model(theta, Xi), dtype=float)
                    assert np.asarray(fit(theta), dtype=float).tobytes() == want.tobytes()
            checked.append(idx is not None)
        return plain(model, theta0, X, y, sw, idx, nfev)
    monkeypatch.setattr(module, "refine", refine)
    data = make()
    laws = family(data)
    assert laws
    for law in laws:
        for i in (0, data.n // 2, data.n - 1):
            law.refit(np.delete(np.arange(data.n), i))
    assert any(checked) and not all(checked)  # fits at the readings and held-out refits
