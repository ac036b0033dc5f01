"""Sums that share one exponential: `T(y) = Σ cⱼ·Bⱼ·E^sⱼ`, E = exp(a·Q).

The solutions of first-order kinetics: relaxation toward an equilibrium
from an initial value (`y = y∞ + (y₀ − y∞)·e^(−t/τ)`), charging
(`y = y∞·(1 − e^(−t/τ))`), logistic growth in the reciprocal
(`1/y = (1 − e^(−rt))/K + e^(−rt)/y₀`) and Gompertz growth in the logarithm
(`log y = (1 − e^(−rt))·log K + e^(−rt)·log y₀`). The bases Bⱼ are 1 and the
inputs with the (transformed) output's units, the initial values; Q is a
single input or a dimensionless group, a the fitted rate constant.

Variable projection: for every a on a grid the linear coefficients by
weighted least squares (all a at once), the best subset of two or three
columns with and without E, then (c, a) refined together; coefficients
tied by a simple ratio (c₂ = −c₁) or snapped to ±1 when the fit stays
within the tolerance, as for plain sums (sums.py).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Optional

import numpy as np

from .fitting import Law, refine, scaled_errors, wls
from .monomials import ARGUMENT_GRID, Argument, OutputData, Transform, arguments, transforms
from .sums import tie_maps
from .trees import drop_zero_terms, op, power, tree_text, var

#: Arguments Q tried (the simplest first).
MAX_ARGUMENTS = 6
#: Values of the rate tried between the best grid value's neighbours.
FINE = 15
#: Screened candidates refined per output transform (y, 1/y, log y: near
#: alike over a narrow range of y, so each gets its own).
KEEP = 2


def kinetic_transforms(data: OutputData) -> list[Transform]:
    """y, 1/y and, for a positive output, log y."""
    out = transforms(data.output)[:2]
    if np.all(data.y > 0):
        out.append(Transform("log y", np.log, np.exp, lambda t: op("exp", t), 1.5))
    return out


def _bases(data: OutputData, tr: Transform) -> list[tuple[str, Any, np.ndarray]]:
    """1 and the initial values: inputs with the transformed output's units."""
    out: list[tuple[str, Any, np.ndarray]] = [("1", 1.0, np.ones(data.n))]
    target = data.output.dim
    for i in data.positive:
        if target is not None and i.dim is not None and not np.allclose(i.dim, target):
            continue
        x = data.X[i.name]
        if tr.name == "y":
            out.append((i.name, var(i.name), x))
        elif tr.name == "1/y":
            out.append((f"{i.name}^-1", power(var(i.name), -1.0), 1.0 / x))
        else:
            out.append((f"log {i.name}", op("log", var(i.name)), np.log(x)))
    return out


def _subsets(m: int) -> list[tuple[int, ...]]:
    """Column subsets (of E·B₀..E·B_{m−1}, B₀..B_{m−1}) with E and without."""
    cols = range(2 * m)
    return [s for k in (2, 3) for s in itertools.combinations(cols, k)
            if any(c < m for c in s) and any(c >= m for c in s)]


def _screen(z: np.ndarray, wz: np.ndarray, B: np.ndarray, q: np.ndarray, grid: np.ndarray,
            keep: int = 2) -> list[tuple[float, tuple, float]]:
    """(residual, subset, a) of the `keep` best subsets, each at its best
    value of a: the best grid value, then the best of FINE values between its
    two neighbours (exact readings tell a rate 20% off a grid point from the
    true one, and a coarse grid would let a wrong argument's subset win)."""
    sw = np.sqrt(wz)
    zw = z * sw
    ridge = {k: 1e-12 * np.eye(k) for k in (2, 3)}

    def columns(a_values: np.ndarray) -> np.ndarray:
        """Every column E·B and B at each value of a: (G, n, 2m)."""
        E = np.exp(np.outer(a_values, q))  # (G, n)
        return np.concatenate([E[:, :, None] * B[None], np.broadcast_to(B, (len(a_values),) + B.shape)], axis=2)

    def residuals(full: np.ndarray, s: tuple) -> np.ndarray:
        A = full[:, :, list(s)] * sw[None, :, None]
        AtA = np.einsum("gni,gnj->gij", A, A) + ridge[len(s)]
        Atz = np.einsum("gni,n->gi", A, zw)
        c = np.linalg.solve(AtA, Atz[..., None])[..., 0]
        r = np.sum((np.einsum("gni,gi->gn", A, c) - zw) ** 2, axis=1)
        return np.where(np.isfinite(r), r, math.inf)

    found = []
    with np.errstate(all="ignore"):
        on_grid = columns(grid)  # the same for every subset: built once
    between: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # a's FINE values after grid value g, their columns
    for s in _subsets(B.shape[1]):
        try:
            with np.errstate(all="ignore"):
                r = residuals(on_grid, s)
                g = int(np.argmin(r))
                if not math.isfinite(r[g]):
                    continue
                if g not in between:  # subsets often share their best grid value
                    fine = np.linspace(grid[max(g - 1, 0)], grid[min(g + 1, len(grid) - 1)], FINE)
                    between[g] = fine, columns(fine)
                fine, on_fine = between[g]
                rf = residuals(on_fine, s)
        except np.linalg.LinAlgError:
            continue
        f = int(np.argmin(rf))
        found.append((float(rf[f]), s, float(fine[f])) if rf[f] < r[g] else (float(r[g]), s, float(grid[g])))
    return sorted(found, key=lambda f: f[0])[:keep]


def kinetics(data: OutputData) -> list[Law]:
    """The KEEP best screened shared-exponential sums of each transform over
    every argument, refined."""
    if data.n < 6:
        return []
    found = []
    for tr in kinetic_transforms(data):
        with np.errstate(all="ignore"):
            z = tr.forward(data.y)
            sz = np.abs(tr.forward(data.y + data.sw) - tr.forward(data.y - data.sw)) / 2
        if not np.all(np.isfinite(z)) or not np.all(sz > 0):
            continue
        bases = _bases(data, tr)
        B = np.column_stack([b[2] for b in bases])
        for arg in arguments(data)[:MAX_ARGUMENTS]:
            q = arg.values(data.X)
            if q is None or not np.all(np.isfinite(q)):
                continue
            med = float(np.median(np.abs(q))) or 1.0
            with np.errstate(all="ignore"):
                best = _screen(z, 1.0 / sz ** 2, B, q, np.concatenate([-ARGUMENT_GRID, ARGUMENT_GRID]) / med)
            found.extend((r + 2 * (tr.cost + arg.cost), tr, bases, s, a, arg) for r, s, a in best)
    found.sort(key=lambda f: f[0])
    best = [f for tr in {id(f[1]): f[1] for f in found}.values() for f in [g for g in found if g[1] is tr][:KEEP]]
    return [law for _, tr, bases, s, a, arg in best for law in _law(data, tr, bases, s, a, arg)]


def _law(data: OutputData, tr: Transform, bases: list, s: tuple, a: float, arg: Argument) -> list[Law]:
    """The refined law of one screened (subset, a), plus its tied variants."""
    m = len(bases)
    qtree, qfn, qcost = arg.tree, arg.values, arg.cost
    picked = [(bases[c % m], c < m) for c in s]

    def parts(X):
        """Q and the bases at X: what the columns are made of besides the rate."""
        with np.errstate(all="ignore"):
            q = qfn(X)
        n = len(q)
        return q, [_base_values(tr, tree, X, n) for (text, tree, _), _ in picked]

    def columns(X, a_, made=None):
        q, bases = made if made is not None else parts(X)
        with np.errstate(all="ignore"):
            E = np.exp(a_ * q)
        return np.column_stack([b * E if with_e else b for b, (_, with_e) in zip(bases, picked)])

    def model_for(T, fixed):
        def at(X):  # for refine's hundreds of calls at one X: Q and the bases worked out once
            made = parts(X)
            return lambda theta: tr.inverse(columns(X, theta[-1], made) @ (T @ theta[:-1] + fixed))

        def model(theta, X):  # its formula is at's
            return at(X)(theta)
        model.at = at
        return model

    k = len(s)
    start = _start(data, tr, columns, a, k)
    if start is None:
        return []
    with np.errstate(all="ignore"):
        theta = refine(model_for(np.eye(k), np.zeros(k)), start, data.X, data.y, data.sw, nfev=60)
    if theta is None:
        return []
    out = []
    for T, fixed in [(np.eye(k), np.zeros(k))] + _tied(theta, data, model_for, columns, tr, picked):
        law = _make(data, tr, picked, T, fixed, theta, model_for(T, fixed), arg)
        if law is not None:
            out.append(law)
    return out


def _base_values(tr: Transform, tree: Any, X: dict, n: int) -> np.ndarray:
    if not isinstance(tree, dict):
        return np.full(n, float(tree))
    name = tree["var"] if "var" in tree else tree["args"][0]["var"]
    x = np.asarray(X[name], float)
    return x if tr.name == "y" else 1.0 / x if tr.name == "1/y" else np.log(x)


def _start(data, tr, columns, a, k) -> Optional[np.ndarray]:
    """The coefficients at the screened a (weighted least squares), and a."""
    with np.errstate(all="ignore"):
        z = tr.forward(data.y)
        sz = np.abs(tr.forward(data.y + data.sw) - tr.forward(data.y - data.sw)) / 2
        A = columns(data.X, a)
    c = wls(A, z, 1.0 / np.maximum(sz, 1e-300) ** 2) if np.all(np.isfinite(A)) else None
    return None if c is None else np.concatenate([c, [a]])


def _same_units(T: np.ndarray, picked: list) -> bool:
    """A tie's ratio is a pure number only between terms of one base (B and
    B·E); bases differ in units. Each column of T is one shared constant."""
    return all(len({picked[j][0][0] for j in np.flatnonzero(T[:, col])}) == 1 for col in range(T.shape[1]))


def _tied(theta: np.ndarray, data: OutputData, model_for, columns, tr, picked) -> list[tuple[np.ndarray, np.ndarray]]:
    """Ties between coefficients (sums.tie_maps) and coefficients snapped to ±1."""
    c, a = theta[:-1], theta[-1]
    k = len(c)
    with np.errstate(all="ignore"):
        z = tr.forward(data.y)
        sz = np.abs(tr.forward(data.y + data.sw) - tr.forward(data.y - data.sw)) / 2
        A = columns(data.X, a)
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(z))):
        return []
    ties = [(np.eye(k), np.zeros(k))] + [(T, np.zeros(k)) for T in tie_maps(c) if _same_units(T, picked)]
    options = ties[1:] + [snap for T, fixed in ties for snap in _snaps(T, fixed, c)]
    kept = []
    for T, fixed in options:  # judged at the untied rate: _make refines the survivors
        start = wls(A @ T, z - A @ fixed, 1.0 / np.maximum(sz, 1e-300) ** 2)
        if start is None:
            continue
        with np.errstate(all="ignore"):
            e = scaled_errors(model_for(T, fixed)(np.concatenate([start, [a]]), data.X), data.y, data.sw)
        if float(np.max(e)) <= 1.0:
            kept.append((T, fixed))
    return kept


def _vanishes(picked: list, coef: np.ndarray) -> bool:
    """True when some base B enters as c·B·(E − 1) (coefficients exactly
    opposite): at Q = 0 the exponential term and its partner cancel."""
    return any(picked[i][0][0] == picked[j][0][0] and picked[i][1] != picked[j][1] and coef[i] == -coef[j]
               for i, j in itertools.combinations(range(len(picked)), 2))


def _snaps(T: np.ndarray, fixed: np.ndarray, c: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(T, fixed) with one more coefficient set to exactly ±1 (one within
    2% of it whose row of T has a single free entry)."""
    out = []
    for j in range(len(c)):
        cols = np.flatnonzero(T[j])
        if abs(abs(c[j]) - 1.0) > 0.02 or len(cols) != 1 or fixed[j] != 0:
            continue
        col = int(cols[0])
        value = math.copysign(1.0, c[j]) / T[j, col]
        out.append((np.delete(T, col, axis=1), fixed + T[:, col] * value))
    return out


def _make(data, tr, picked, T, fixed, theta0, model, arg: Argument) -> Optional[Law]:
    qtree, qfn, qcost = arg.tree, arg.values, arg.cost
    k = T.shape[1]
    start = np.concatenate([np.linalg.lstsq(T, theta0[:-1] - fixed, rcond=None)[0], theta0[-1:]])
    if not np.all(np.isfinite(start)):
        return None
    with np.errstate(all="ignore"):
        theta = refine(model, start, data.X, data.y, data.sw, nfev=40)
    if theta is None:
        return None
    theta = data.snap(model, theta)
    coef, a = T @ theta[:-1] + fixed, float(theta[-1])
    e_tree = op("exp", op("mul", a, qtree))
    parts = [op("mul", float(c), tree, e_tree) if with_e else op("mul", float(c), tree)
             for ((_, tree, _), with_e), c in zip(picked, coef)]
    tree = drop_zero_terms(tr.tree(op("add", *parts)))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None else (lambda X, t=t: model(t, X))
    tied = T.shape[1] < T.shape[0]
    cost = 3.0 + 1.2 * len(picked) + tr.cost + qcost + (0.5 if tied else 0.0)
    if _vanishes(picked, coef):
        cost -= 1.0  # the transient vanishes at Q = 0: the law starts from its initial value
    kind = "shared exponential" + (", tied coefficients" if tied else "") + (f", {tr.name}" if tr.name != "y" else "")
    law = Law(kind, text, tree, k + 1, cost, refit)
    with np.errstate(all="ignore"):
        law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law
