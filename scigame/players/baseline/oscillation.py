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


#: Frequencies screened per input of a wave in two inputs (cycles over each
#: input's observed range): coarser than CYCLES, as the grid is their product.
WAVE_CYCLES = np.linspace(0.2, 4.0, 39)
#: The four products of a wave in x and t: (function of a·x, function of b·t).
PRODUCTS = (("cos", "cos"), ("cos", "sin"), ("sin", "cos"), ("sin", "sin"))
#: Pairs of inputs tried for a wave at most.
WAVE_PAIRS = 6
#: Pairs (the best screened) whose waves are refined.
WAVE_PAIRS_REFINED = 2
#: Structures (choices of the products and the level) refined per pair.
WAVE_REFINED = 3
#: Readings before waves are searched (their full structure has seven
#: constants; with fewer readings the frequency screen is blind): an
#: Adaptive episode does not give up before it has them (search.readings_to_judge).
WAVE_READINGS = 12


def wave_inputs(inputs) -> list[str]:
    """The inputs a wave may run in: those that vary and are not angles."""
    return [i.name for i in inputs if i.angle is None and i.varies]


def _wave_columns(x: np.ndarray, t: np.ndarray, a, b) -> list[np.ndarray]:
    """cos(a·x)·cos(b·t), cos·sin, sin·cos, sin·sin (a, b scalars, or columns of a grid)."""
    trig = {("x", "cos"): np.cos(a * x), ("x", "sin"): np.sin(a * x),
            ("t", "cos"): np.cos(b * t), ("t", "sin"): np.sin(b * t)}
    return [trig["x", f] * trig["t", g] for f, g in PRODUCTS]


def _wave_fit(data: OutputData, cols: list[np.ndarray], level: bool,
              used: tuple[int, ...]) -> tuple[float, np.ndarray]:
    """(χ², coefficients) of the level (with `level`) and the products `used`
    of `cols` (_wave_columns at fixed frequencies), by weighted least squares."""
    A = np.column_stack(([np.ones(data.n)] if level else []) + [cols[u] for u in used])
    sw = 1.0 / data.sw
    with np.errstate(all="ignore"):
        coef, *_ = np.linalg.lstsq(A * sw[:, None], data.y * sw, rcond=None)
        r = float(np.sum(((A @ coef - data.y) * sw) ** 2))
    return r, coef


def _wave_law(data: OutputData, x: str, t: str, level: bool, used: tuple[int, ...],
              a: float, b: float) -> Optional[Law]:
    """c + Σ m·f(a·x)·g(b·t) over the products `used` (PRODUCTS' indices),
    the level c only with `level`: linear in c and m at (a, b), then refined
    with the frequencies and rounded (data.snap)."""
    k = int(level) + len(used) + 2
    if data.n <= k:
        return None

    def model(theta, X):
        cols = _wave_columns(X[x], X[t], theta[-2], theta[-1])
        out = theta[0] * np.ones(len(X[x])) if level else np.zeros(len(X[x]))
        for j, u in enumerate(used):
            out = out + theta[int(level) + j] * cols[u]
        return out
    _, coef = _wave_fit(data, _wave_columns(data.X[x], data.X[t], a, b), level, used)
    theta = refine(model, np.array([*coef, a, b]), data.X, data.y, data.sw, nfev=60)
    if theta is None:
        return None
    theta = data.snap(model, theta)
    fa, fb = float(theta[-2]), float(theta[-1])
    terms = [float(theta[0])] if level else []
    for j, u in enumerate(used):
        f, g = PRODUCTS[u]
        terms.append(op("mul", float(theta[int(level) + j]), op(f, op("mul", fa, var(x))),
                        op(g, op("mul", fb, var(t)))))
    tree = drop_zero_terms(terms[0] if len(terms) == 1 else op("add", *terms))

    def refit(idx, theta=theta):
        th = refine(model, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if th is None else (lambda X, th=th: model(th, X))
    law = Law(f"wave in {x} and {t}", f"{data.output.name} = {tree_text(tree)}", tree, k,
              COST + 1.5 * (len(used) + int(level)) + 3.0, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    law.theta = (fa, fb)
    return law


def _wave_screen(data: OutputData, x: str, t: str) -> tuple[float, float, float]:
    """(χ², a, b) of the best grid point for the level and all four products
    of a wave in x and t (variable projection, as _scan)."""
    qx, qt = data.X[x], data.X[t]
    spans = float(np.ptp(qx)), float(np.ptp(qt))
    if not (spans[0] > 0 and spans[1] > 0):
        return math.inf, 0.0, 0.0
    rates = [(a, b) for a in 2 * math.pi * WAVE_CYCLES / spans[0] for b in 2 * math.pi * WAVE_CYCLES / spans[1]]
    A_s = np.array([a for a, _ in rates])[:, None]
    B_s = np.array([b for _, b in rates])[:, None]
    with np.errstate(all="ignore"):
        grid = _wave_columns(qx[None, :], qt[None, :], A_s, B_s)
    return _scan(data, [np.ones(data.n)], (rates, grid))


def _wave_laws(data: OutputData, x: str, t: str, a: float, b: float) -> list[Law]:
    """The frequencies (a, b) refined off the grid with the level and all
    four products (at a grid point's, extra products make up for the
    offset), every choice of products and level fitted linearly there, and
    the WAVE_REFINED best (their misfit plus two per coefficient) refined."""
    full = _wave_law(data, x, t, True, tuple(range(4)), a, b)
    if full is not None:
        a, b = full.theta
    cols = _wave_columns(data.X[x], data.X[t], a, b)
    tried = []
    for level in (False, True):
        for m in range(1, 5):
            for used in itertools.combinations(range(4), m):
                if int(level) + len(used) + 2 >= data.n:
                    continue
                r, _ = _wave_fit(data, cols, level, used)
                if math.isfinite(r):
                    tried.append((r + 2 * (int(level) + len(used)), level, used))
    laws = [_wave_law(data, x, t, level, used, a, b) for _, level, used in sorted(tried, key=lambda c: c[0])
            [:WAVE_REFINED]]
    return [law for law in laws if law is not None]


def waves(data: OutputData) -> list[Law]:
    """Waves in two inputs that are not angles: a level plus products of a
    cosine or sine of a·x and one of b·t. Standing waves A·sin(a·x + φ)·cos(b·t),
    travelling ones A·cos(a·x − b·t + φ) and their sums are such sums of the
    four products, each with its own coefficients (the phases enter through
    them, as in `oscillations`). The frequencies of every pair of inputs are
    screened on a grid (variable projection, all four products and the
    level); for the WAVE_PAIRS_REFINED pairs that fit best, every choice of
    the products and the level is fitted there, and the best few are
    refined with the frequencies by nonlinear least squares (_wave_laws)."""
    if data.n < WAVE_READINGS:
        return []
    screened = []
    for x, t in list(itertools.combinations(wave_inputs(data.inputs), 2))[:WAVE_PAIRS]:
        chi2, a, b = _wave_screen(data, x, t)
        if math.isfinite(chi2):
            screened.append((chi2, x, t, a, b))
    screened.sort(key=lambda s: s[0])
    return [law for _, x, t, a, b in screened[:WAVE_PAIRS_REFINED] for law in _wave_laws(data, x, t, a, b)]
