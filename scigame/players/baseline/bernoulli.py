"""Relaxation with a quadratic rate toward an equilibrium (Bernoulli kinetics).

When the excess x = y − y∞ over an equilibrium obeys dx/dq = a·x + a·k·x²
(a rate that grows with the excess: cooling that speeds up when hot; the
logistic law when y∞ = 0, with k < 0: growth toward −1/k), its solution from the initial value y₀ (an
input with the output's units) is

    y = y∞ + x₀·E / (1 + k·x₀·(1 − E)),   x₀ = y₀ − y∞,  E = exp(a·q),

Newton's relaxation at k = 0. For fixed (y∞, a) the reciprocal of the
excess is linear in k,

    1/(y − y∞) − 1/(x₀·E) = k·(1/E − 1),

so k is one weighted least-squares ratio for every (y∞, a) of a grid at
once; the best few are refined together by nonlinear least squares and
their constants rounded to the shortest decimals the data support.
Searched only when nothing simpler fits (search.py).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .fitting import Law, refine, rounding_bound, scaled_errors, worst_error
from .monomials import ARGUMENT_GRID, Argument, OutputData, arguments
from .trees import fold, op, tree_text, var

#: Arguments q tried (the simplest first, as kinetics.py).
MAX_ARGUMENTS = 6
#: Equilibria y∞ screened: 0 (the logistic law), and beyond the observed
#: range by these multiples of its span.
OFFSETS = np.concatenate([[0.0], np.geomspace(0.02, 50.0, 24)])
#: Screened (y∞, a) refined per initial-value input and argument.
KEEP = 2
#: Rounds of zooming in on each equilibrium's best rate.
ZOOMS = 5
#: Description length in nats: three constants in two nested operations.
COST = 7.5


#: Nats per significant digit of a constant: of the two ways to write the
#: law (see _both), the one with the shorter constants.
DIGIT = 0.1


def _digits(theta: np.ndarray) -> int:
    """Significant digits of the constants as rounded (the shortest decimal
    that reads back as each); none for a 0, which the law folds away
    (y∞ = 0: the logistic law N0·e^(at)/(1 − k·N0·(1 − e^(at))))."""
    return sum(len(repr(float(t)).split("e")[0].replace("-", "").replace(".", "").strip("0")) for t in theta)


def _model(x0: np.ndarray, q: np.ndarray, theta: np.ndarray) -> np.ndarray:
    y_inf, k, a = theta
    with np.errstate(all="ignore"):
        e = np.exp(a * q)
        x = x0 - y_inf
        return y_inf + x * e / (1.0 + k * x * (1.0 - e))


def _fit(data: OutputData, x0: np.ndarray, q: np.ndarray, y_inf: np.ndarray,
         rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(residual in tolerances² on y, k) for every equilibrium y_inf[i] and
    rate rates[i, j]: k in closed form from the reciprocal of the excess."""
    y, sw = data.y, data.sw
    with np.errstate(all="ignore"):
        inv_e = np.exp(-rates[:, :, None] * q[None, None, :])                  # (Y, A, n)
        x0e = (x0[None, :] - y_inf[:, None])[:, None, :]                       # (Y, 1, n)
        excess = (y[None, :] - y_inf[:, None])[:, None, :]
        lhs = 1.0 / excess - inv_e / x0e
        basis = inv_e - 1.0
        w = excess ** 4 / sw[None, None, :] ** 2                               # 1/(y − y∞) varies as dy/x²
        k = np.sum(w * basis * lhs, axis=2) / np.sum(w * basis * basis, axis=2)
        pred = y_inf[:, None, None] + 1.0 / (inv_e / x0e + k[:, :, None] * basis)
        r = np.sum(((pred - y[None, None, :]) / sw[None, None, :]) ** 2, axis=2)  # judged on y itself
    return np.where(np.isfinite(r) & np.isfinite(k), r, np.inf), k


def _screen(data: OutputData, x0: np.ndarray, q: np.ndarray) -> list[tuple[float, np.ndarray]]:
    """(residual in tolerances², (y∞, k, a)) of the KEEP best equilibria of
    the grid, each at its best rate zoomed in ZOOMS times (the fit is
    sharp in the rate: a grid step off, it misses by hundreds of tolerances)."""
    y = data.y
    span = max(float(np.ptp(y)), 1e-12 * max(float(np.max(np.abs(y))), 1e-300))
    y_inf = np.concatenate([[0.0], np.min(y) - span * OFFSETS, np.max(y) + span * OFFSETS[1:]])  # 0: logistic
    med = float(np.median(np.abs(q))) or 1.0
    rates = np.broadcast_to(np.concatenate([-ARGUMENT_GRID, ARGUMENT_GRID]) / med, (len(y_inf), 2 * len(ARGUMENT_GRID)))
    step = float(ARGUMENT_GRID[1] / ARGUMENT_GRID[0])
    for _ in range(ZOOMS):
        r, k = _fit(data, x0, q, y_inf, rates)
        best = rates[np.arange(len(y_inf)), np.argmin(r, axis=1)]
        rates = best[:, None] * np.geomspace(1 / step, step, 9)[None, :]
        step = step ** 0.4
    r, k = _fit(data, x0, q, y_inf, rates)
    j = np.argmin(r, axis=1)
    rows = np.arange(len(y_inf))
    order = [i for i in np.argsort(r[rows, j]) if np.isfinite(r[i, j[i]])][:KEEP]
    return [(float(r[i, j[i]]), np.array([y_inf[i], k[i, j[i]], rates[i, j[i]]])) for i in order]


def bernoulli(data: OutputData) -> list[Law]:
    """The refined laws of the best screened (y∞, k, a) for every
    initial-value input and argument."""
    if data.n < 6 or data.output.dim is None:
        return []
    laws = []
    starts = [i for i in data.positive if i.dim is not None and np.allclose(i.dim, data.output.dim)]
    for init in starts:
        for arg in arguments(data)[:MAX_ARGUMENTS]:
            if init.name in arg.text:
                continue
            q = arg.values(data.X)
            if q is None or not np.all(np.isfinite(q)):
                continue
            for _, theta in _screen(data, data.X[init.name], q):
                for law in _both(data, init.name, arg, theta):
                    laws.append(law)
    return laws


def _both(data: OutputData, init: str, arg: Argument, theta0: np.ndarray) -> list[Law]:
    """The law written around each of its two equilibria: the excess over
    y∞ − 1/k obeys the same equation with −k and −a, so (y∞, k, a) and
    (y∞ − 1/k, −k, −a) are one law; the one whose constants round to the
    shorter decimals is the one its author wrote (model choice decides)."""
    out = []
    law = _law(data, init, arg, theta0)
    if law is not None:
        out.append(law)
        y_inf, k, a = law.theta
        if k != 0 and np.isfinite(1.0 / k):
            other = _law(data, init, arg, np.array([y_inf - 1.0 / k, -k, -a]))
            if other is not None:
                out.append(other)
    return out


def _zero_equilibrium(model, theta: np.ndarray, data: OutputData) -> np.ndarray:
    """The equilibrium set to exactly 0 (the logistic law) when the data
    allow it (the largest error stays at most max(0.3, 1.5 × the fitted
    one), as for rounded decimals): a y∞ of 0.0076 against outputs of
    10⁴ is zero that the fit did not reach, and no decimal rounding of it is."""
    if theta[0] == 0:
        return theta

    sub = refine(lambda t, X: model(np.array([0.0, t[0], t[1]]), X), theta[1:], data.X, data.y, data.sw, nfev=30)
    if sub is None:
        return theta
    trial = np.array([0.0, sub[0], sub[1]])
    worst = worst_error(model, trial, data.X, data.y, data.sw)
    return trial if worst <= rounding_bound(worst_error(model, theta, data.X, data.y, data.sw), data.snap_exact) else theta


def _law(data: OutputData, init: str, arg: Argument, theta0: np.ndarray) -> Optional[Law]:
    qtree, qfn, qcost = arg.tree, arg.values, arg.cost

    def at(X):  # for refine's hundreds of calls at one X: the initial values and Q worked out once
        x0, q = np.asarray(X[init], float), qfn(X)
        return lambda theta: _model(x0, q, theta)

    def model(theta, X):  # its formula is at's
        return at(X)(theta)
    model.at = at
    theta = refine(model, theta0, data.X, data.y, data.sw, nfev=60)
    if theta is None:
        return None
    theta = _zero_equilibrium(model, theta, data)
    theta = data.snap(model, theta)
    y_inf, k, a = (float(t) for t in theta)
    excess = fold("sub", [var(init), y_inf])  # folded: y∞ = 0 (logistic growth) leaves x, not x − 0
    e = op("exp", op("mul", a, qtree))
    tree: Any = fold("add", [y_inf, op("div", op("mul", excess, e),
                                        op("add", 1.0, op("mul", k, excess, op("sub", 1.0, e))))])
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None else (lambda X, t=t: model(t, X))
    law = Law("relaxation with a quadratic rate", text, tree, 3, COST + qcost + DIGIT * _digits(theta), refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    law.theta = (y_inf, k, a)
    return law
