"""Sparse sums of terms: `T(y) = Σ cⱼ·Mⱼ`, Mⱼ monomials with the right
units (or carrying a hidden constant), sines and cosines of angles and 1,
chosen by a best-pair search then orthogonal matching pursuit; with
coefficients tied by simple ratios where the data allow (c₂ = −c₁)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from .fitting import Law, refine, scaled_errors, snap_decimals, wls
from .search import TRANSFORM_POWER, OutputData, Transform, _angle_factors, _mono, _monomial_text, _monomial_tree, _z_scale
from .task import fmt
from .trees import op, product


def dictionary(data: OutputData, tr: Transform, dimensional: bool = True) -> list[tuple[str, Any, np.ndarray]]:
    """Monomials for sparse sums (with the target's units when they are
    fixed and `dimensional`), sines and cosines of angles, and the constant 1."""
    pos = [i for i in data.inputs if i.angle is None and i.varies and i.lo >= 0]
    d = data.dims
    target = None
    if dimensional and d is not None and d.determined and tr.name in TRANSFORM_POWER \
            and all(i.dim is not None for i in pos):
        target = data.output.dim * TRANSFORM_POWER[tr.name]
    out: list[tuple[str, Any, np.ndarray]] = []
    singles = (-3, -2, -1, -0.5, 0.5, 1, 2, 3)
    supports = [(1, singles), (2, (-2, -1, 1, 2))] + ([(3, (-2, -1, 1, 2))] if len(pos) <= 5 else [])
    for size, exps in supports:
        for combo in itertools.combinations(pos, size):
            for es in itertools.product(exps, repeat=size):
                if any(e < 0 and not i.positive or e % 1 and not i.positive for i, e in zip(combo, es)):
                    continue
                if target is not None and np.any(np.abs(sum(e * i.dim for i, e in zip(combo, es)) - target) > 1e-9):
                    continue
                names, p = [i.name for i in combo], [Fraction(e).limit_denominator(2) for e in es]
                out.append((_monomial_text(names, p), product(_monomial_tree(names, p)), _mono(data.X, names, p)))
    if target is None or not np.any(target):
        out.append(("1", 1.0, np.ones(data.n)))
        for f in _angle_factors(data)[1:]:
            if f.label.endswith("^1"):
                out.append((f.label[:-2], f.tree(0.0), f.values(0.0, data.X)))
    return [t for t in out if np.all(np.isfinite(t[2]))]


def _best_pair(A: np.ndarray, z: np.ndarray, wz: np.ndarray, top: int = 12) -> Optional[list[int]]:
    """The best pair of columns: for each of the columns that fit best
    alone, the best partner over the whole dictionary (projected, so a
    pair whose terms nearly cancel is found too)."""
    sw = np.sqrt(wz)
    Aw, zw = A * sw[:, None], z * sw
    den = np.sum(Aw * Aw, axis=0)
    den[den == 0] = np.inf
    single = np.sum(zw * zw) - (Aw.T @ zw) ** 2 / den
    best, best_r = None, math.inf
    for i in np.argsort(single)[:top]:
        a = Aw[:, i]
        aa = float(a @ a)
        if not aa > 0:
            continue
        r = zw - a * (a @ zw) / aa
        B = Aw - np.outer(a, (a @ Aw) / aa)
        bb = np.sum(B * B, axis=0)
        bb[bb <= 1e-12 * np.maximum(den, 1e-300)] = np.inf
        gain = (B.T @ r) ** 2 / bb
        gain[i] = -1
        j = int(np.argmax(gain))
        rest = float(r @ r) - float(gain[j])
        if rest < best_r:
            best, best_r = [int(i), j], rest
    return best


def sums(data: OutputData, tr: Transform, max_terms: int = 3, dimensional: bool = True) -> list[Law]:
    """The best sum of two dictionary terms (searched among the best single
    terms), then the third term that lowers the residual most; each also
    with its coefficients' ratios snapped to simple fractions (tied)."""
    z, sz = _z_scale(data, tr)
    if not np.all(np.isfinite(z)) or data.n < 4:
        return []
    terms = dictionary(data, tr, dimensional)
    if len(terms) < 2:
        return []
    extra = 0.0 if dimensional or not (data.dims is not None and data.dims.determined) else 2.0
    wz = 1.0 / np.maximum(sz, 1e-300) ** 2
    A = np.column_stack([t[2] for t in terms])
    chosen = _best_pair(A, z, wz)
    out = []
    while chosen is not None and len(chosen) <= max_terms and data.n >= len(chosen) + 3:
        c = wls(A[:, chosen], z, wz)
        if c is None:
            break
        picked = [terms[i] for i in chosen]
        for T in [np.eye(len(c))] + _ties(A[:, chosen], c, z, wz, data, tr):
            law = _sum_law(data, tr, picked, c, T, extra)
            if law is not None:
                out.append(law)
        resid = (z - A[:, chosen] @ c) * np.sqrt(wz)
        Aw = A * np.sqrt(wz)[:, None]
        Q, _ = np.linalg.qr(Aw[:, chosen])
        B = Aw - Q @ (Q.T @ Aw)  # each column's part the chosen terms cannot express
        norms = np.sum(B * B, axis=0)
        norms[norms <= 1e-12 * np.maximum(np.sum(Aw * Aw, axis=0), 1e-300)] = np.inf
        score = (B.T @ resid) ** 2 / norms  # the exact drop in residual from adding it
        score[chosen] = -1
        chosen = chosen + [int(np.argmax(score))]
    return out


#: Ratios of two coefficients of a sum tried as exact (besides ±1).
_RATIOS = (2.0, 0.5, 3.0, 1.0 / 3.0, 4.0, 0.25, 1.5, 2.0 / 3.0)


def tie_maps(c: np.ndarray) -> list[np.ndarray]:
    """Maps T (coefficients = T·θ) that tie one coefficient to another: by
    the simple ratio of _RATIOS it is within 5% of, and by ±1 always (a
    coefficient the data barely determine may be far from its tie)."""
    out = []
    for i, j in itertools.combinations(range(len(c)), 2):
        r = c[j] / c[i] if c[i] else math.inf
        near = [v for v in _RATIOS for v in (v, -v) if abs(v - r) <= 0.05 * abs(v)]
        for nice in sorted({1.0, -1.0, *near}, key=lambda v: abs(v - r)):
            T = np.delete(np.eye(len(c)), j, axis=1)
            T[j, i if i < j else i - 1] = nice
            out.append(T)
    return out


def _ties(A: np.ndarray, c: np.ndarray, z: np.ndarray, wz: np.ndarray, data: OutputData,
          tr: Transform) -> list[np.ndarray]:
    """The ties of tie_maps (c₂ = −c₁ in 1/m³ − 1/n³) under which the sum
    still predicts every point within the tolerance."""
    out = []
    for T in tie_maps(c):
        theta = wls(A @ T, z, wz)
        if theta is None:
            continue
        with np.errstate(all="ignore"):
            e = scaled_errors(tr.inverse(A @ T @ theta), data.y, data.sw)
        if float(np.max(e)) <= 1.0:
            out.append(T)
    return out


def _sum_law(data: OutputData, tr: Transform, terms: list, c: np.ndarray, T: np.ndarray,
             extra: float = 0.0) -> Optional[Law]:
    """A sum of terms with coefficients T·θ (T the identity, or a tie)."""
    cols = np.column_stack([t[2] for t in terms])
    trees = [t[1] for t in terms]

    def model_on(cols_, theta):
        return tr.inverse(cols_ @ (T @ theta))

    def columns(X):
        from .trees import evaluate
        vals = [evaluate(t, X) if not isinstance(t, float) else np.full(len(next(iter(X.values()))), t)
                for t in trees]
        return None if any(v is None for v in vals) else np.column_stack(vals)

    start = np.linalg.lstsq(T, np.asarray(c, float), rcond=None)[0]
    theta = refine(lambda t, X: model_on(cols, t), start, {"_": np.zeros(data.n)},
                   data.y, data.sw) if data.n > len(start) else start
    theta = start if theta is None else theta
    scale, ratios = _factored(cols, T @ theta, data, tr)
    tree = tr.tree(op("mul", float(scale), op("add", *[t if r == 1 else _times(r, t) for r, t in zip(ratios, trees)])))
    text = f"{data.output.name} = " + ("T⁻¹[" if tr.name != "y" else "") + f"{fmt(scale)}·(" + " + ".join(
        f"{fmt(r)}·{t[0]}" for r, t in zip(ratios, terms)) + ")" + (f"] with T = {tr.name}" if tr.name != "y" else "")

    def refit(idx, theta=theta):
        t = refine(lambda t_, X: model_on(cols[idx], t_), theta, {"_": np.zeros(len(idx))},
                   data.y[idx], data.sw[idx])
        if t is None:
            return None
        return lambda X, t=t: (lambda m: None if m is None else model_on(m, t))(columns(X))
    tied = T.shape[1] < T.shape[0]
    cost = (1.5 * len(terms) + tr.cost + extra + sum(0.3 * t[0].count("·") + 0.3 * t[0].count("^") for t in terms)
            + (0.5 if tied else 0.0))
    kind = "sum of terms" + (", tied coefficients" if tied else "") + (f", {tr.name}" if tr.name != "y" else "")
    law = Law(kind, text, tree, len(theta), cost, refit)
    with np.errstate(all="ignore"):
        law.set_fit(scaled_errors(tr.inverse(cols @ (scale * ratios)), data.y, data.sw))
    return law


def _times(c: float, t: Any) -> Any:
    return float(c) * t if isinstance(t, float) else op("mul", float(c), t)


def _factored(cols: np.ndarray, coef: np.ndarray, data: OutputData, tr: Transform) -> tuple[float, np.ndarray]:
    """The sum written as scale·(M₀ + Σ rⱼ·Mⱼ), M₀ its largest term, each
    ratio rⱼ the shortest decimal the data support (snap_decimals): in
    `r·(ρ − 1.26)` the 1.26 is a constant of the law, while 1.546 and
    −1.948 in `1.546·r·ρ − 1.948·r` are products of several."""
    size = np.abs(coef) * np.sqrt(np.mean(cols ** 2, axis=0))
    i0 = int(np.argmax(size))
    if not coef[i0]:
        return 1.0, coef
    others = [j for j in range(len(coef)) if j != i0]

    def model(t, X):
        r = np.ones(len(coef))
        r[others] = t[1:]
        return tr.inverse(cols @ (t[0] * r))
    t = snap_decimals(model, np.concatenate([[coef[i0]], coef[others] / coef[i0]]), {}, data.y, data.sw,
                      data.snap_rel)
    ratios = np.ones(len(coef))
    ratios[others] = t[1:]
    return float(t[0]), ratios
