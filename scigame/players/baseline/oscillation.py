"""Oscillations with a fitted frequency: `y = Σ cⱼ·Bⱼ + e^(−b·q)·(p·cos(a·q) + s·sin(a·q))`.

A tide h₀ + A·cos(ω·t + φ), a swing about a rest position, a sign-flipped
or frequency-shifted oscillation: the phase enters linearly through the
cosine and the sine of one frequency (A·cos(ωt + φ) = A·cos φ·cos ωt −
A·sin φ·sin ωt), so for every frequency a of a grid the coefficients are
weighted least squares, and the frequency that fits best (variable
projection, as in kinetics.py) is refined with them by nonlinear least
squares. The bases Bⱼ are 1 and the inputs with the output's units (a mean
level h₀), as in kinetics.py. The structures are every choice of bases
(none, 1, the inputs, or both) with the cosine alone, the sine alone or
both; the best fitting one also with a damping rate b (a grid, refined
with the rest) and with the second harmonic (an overtide). Constants are
rounded to the shortest decimals the data support (fitting.snap_decimals).
Only when no simpler law fits (search.py), for inputs that are not angles
(angles have their own sine and cosine features).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Optional

import numpy as np

from .fitting import Law, refine, scaled_errors
from .kinetics import _bases
from .relax import _model, _set
from .monomials import OutputData, transforms
from .trees import drop_zero_terms, op, tree_text, var

#: Frequencies screened per input: cycles over the observed range.
CYCLES = np.linspace(0.2, 6.0, 150)
#: Damping rates screened (per unit of the input, over the observed range: b·range).
DAMPING = (0.0, 0.1, 0.2, 0.4, 0.7, 1.0, 1.5, 2.5)
#: Nats of an oscillation's structure, besides its terms.
COST = 3.0


def _columns(q: np.ndarray, a: float, b: float, trig: tuple[str, ...], harmonic: bool) -> list[np.ndarray]:
    env = np.exp(-b * q)
    cols = [env * getattr(np, fn)(a * q) for fn in trig]
    if harmonic:
        cols += [env * np.cos(2 * a * q), env * np.sin(2 * a * q)]
    return cols


def _waves(q: np.ndarray, trig: tuple[str, ...], harmonic: bool, damping, span: float):
    """A scan's grid of (a, b), damping rate outermost, and each wave's column
    at every grid point (G × n): the same for every choice of bases, so
    worked out once per input and wave shape."""
    rates = [(2 * math.pi * cyc / span, b / span) for b in damping for cyc in CYCLES]
    a_s = np.array([a for a, _ in rates])[:, None]
    b_s = np.array([b for _, b in rates])[:, None]
    with np.errstate(all="ignore"):
        env = np.exp(-b_s * q[None, :])
        cols = [env * getattr(np, fn)(a_s * q[None, :]) for fn in trig]
        if harmonic:
            cols += [env * np.cos(2 * a_s * q[None, :]), env * np.sin(2 * a_s * q[None, :])]
    return rates, cols


def _scan(data: OutputData, base: list[np.ndarray], waves):
    """(chi², a, b) of the best grid point of `waves` (_waves; the first of
    equal ones, damping rate outermost), all grid points solved at once: the
    weighted least squares of each is its stacked SVD, with lstsq's cut of
    small singular values (rcond = eps·max(n, k))."""
    best = (math.inf, 0.0, 0.0)
    rates, wave_cols = waves
    k = len(base) + len(wave_cols)
    if k >= data.n:
        return best
    sw = 1.0 / data.sw
    cols = [np.broadcast_to(c, (len(rates), data.n)) for c in base] + wave_cols
    A = np.stack(cols, axis=2)                                   # (G, n, k)
    Aw, yw = A * sw[None, :, None], data.y * sw
    U, S, Vt = np.linalg.svd(Aw, full_matrices=False)
    cut = np.finfo(float).eps * max(data.n, k) * S[:, :1]
    inv = np.where(S > cut, 1.0 / np.where(S > cut, S, 1.0), 0.0)
    coef = np.einsum("gji,gj,gnj,n->gi", Vt, inv, U, yw)
    chi2 = np.sum(((np.einsum("gni,gi->gn", A, coef) - data.y[None, :]) * sw[None, :]) ** 2, axis=1)
    chi2 = np.where(np.isfinite(chi2), chi2, math.inf)
    g = int(np.argmin(chi2))
    return (float(chi2[g]), *rates[g]) if chi2[g] < math.inf else best


def _tree(name, bases, waves, damped, coef, a, b) -> tuple[Any, list[tuple], list[float]]:
    """The law as a tree, the paths of its constants and their starting values:
    each term's coefficient, each wave's rate and damping."""
    qv = var(name)
    terms, paths, theta = [], [], []
    for k, (_, t, _) in enumerate(bases):
        terms.append(op("mul", float(coef[k]), t))
        paths.append((len(terms) - 1, 0))
        theta.append(float(coef[k]))
    for k, (fn, mult) in enumerate(waves, start=len(bases)):
        parts = [float(coef[k]), op(fn, op("mul", a * mult, qv))]
        if damped:
            parts.append(op("exp", op("mul", -b, qv)))
        terms.append(op("mul", *parts))
        ti = len(terms) - 1
        paths += [(ti, 0), (ti, 1, 0, 0)] + ([(ti, 2, 0, 0)] if damped else [])
        theta += [float(coef[k]), a * mult] + ([-b] if damped else [])
    if len(terms) == 1:
        return terms[0], [p[1:] for p in paths], theta
    return op("add", *terms), paths, theta


def _law(data, name, bases, trig, harmonic, damped, a, b) -> Optional[Law]:
    waves = [(fn, 1) for fn in trig] + ([("cos", 2), ("sin", 2)] if harmonic else [])
    A = np.column_stack([c for _, _, c in bases] + _columns(data.X[name], a, b, trig, harmonic))
    sw = 1.0 / data.sw
    coef, *_ = np.linalg.lstsq(A * sw[:, None], data.y * sw, rcond=None)
    tree, paths, theta0 = _tree(name, bases, waves, damped, coef, a, b)
    if data.n <= len(theta0):
        return None
    model = _model(tree, paths)
    theta = refine(model, np.array(theta0), data.X, data.y, data.sw, nfev=40)
    if theta is None:
        return None
    theta = data.snap(model, theta)
    final = tree
    for p, v in zip(paths, theta):
        final = _set(final, p, float(v))
    final = drop_zero_terms(final)

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if t is None else (lambda X, t=t: model(t, X))
    kind = ("damped " if damped else "") + "oscillation in " + name + (" with its second harmonic" if harmonic else "")
    law = Law(kind, f"{data.output.name} = {tree_text(final)}", final, len(theta),
              COST + 1.5 * (len(bases) + len(waves)) + (1.5 if damped else 0.0), refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law


def oscillations(data: OutputData) -> list[Law]:
    """The oscillation laws of every non-angle input that varies."""
    if data.n < 5:
        return []
    tr = transforms(data.output)[0]
    allb = _bases(data, tr)
    out: list[Law] = []
    for inp in [i for i in data.inputs if i.angle is None and i.varies]:
        q = data.X[inp.name]
        span = float(np.max(q) - np.min(q))
        if not span > 0:
            continue
        best = None
        undamped = {trig: _waves(q, trig, False, (0.0,), span) for trig in (("cos",), ("sin",), ("cos", "sin"))}
        for nb in range(len(allb) + 1):
            for bases in itertools.combinations(allb, nb):
                for trig, waves in undamped.items():
                    chi2, a, b = _scan(data, [c for _, _, c in bases], waves)
                    if math.isfinite(chi2) and (best is None or chi2 + 2 * len(bases) + 2 * len(trig) < best[0]):
                        best = (chi2 + 2 * len(bases) + 2 * len(trig), list(bases), trig, a)
                    law = _law(data, inp.name, list(bases), trig, False, False, a, 0.0) if math.isfinite(chi2) \
                        and chi2 <= 4.0 * data.n else None
                    if law is not None:
                        out.append(law)
        if best is None:
            continue
        _, bases, trig, _a = best
        for harmonic, damping in ((False, DAMPING[1:]), (True, (0.0,))):
            chi2, a, b = _scan(data, [c for _, _, c in bases], _waves(q, trig, harmonic, damping, span))
            law = _law(data, inp.name, bases, trig, harmonic, b > 0, a, b) if math.isfinite(chi2) else None
            if law is not None:
                out.append(law)
    return out
