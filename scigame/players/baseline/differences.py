"""Differences of one function of two inputs of one kind: `y = M·Σⱼ cⱼ·(g_pⱼ(a) − g_pⱼ(b))`.

A wall loses heat to the air by conduction and radiation, h·A·(T − Ta) +
ε·σ·A·(T⁴ − Ta⁴); a plate radiates with a moved exponent, σ·A·(T^(5/3) −
Ts^(5/3)); a conductivity that grows with the mean temperature gives
(T₁ − T₂)·(1 + β·(T₁ + T₂)/2) = (T₁ − T₂) + β/2·(T₁² − T₂²); gravity's work
between two radii is G·M·m·(1/r₁ − 1/r₂); a rocket gains ve·(ln(m₀ + s) −
ln(m_f + s)). Each is driven by the difference of one function g of two
quantities of the same kind (a, b: derived.same_kind, both positive),
times a monomial M of the other positive inputs, with one or two such
differences. g_p(x) is the power (x + s)^p, or ln(x + s) for p = 0 (the
limit of (x^p − 1)/p), with a shift s that is 0 unless fitted.

One difference: for every exponent p and shift s of a grid, log|y| −
log|g(a) − g(b)| is linear in log|c| and M's exponents, so all are screened
by one weighted least squares in log space; the best is refined with c and
M's exponents by nonlinear least squares, M's exponents snapped to small
rationals and p to a small rational or a short decimal (fitting.snap_options,
decimal_exponent), the shift (when not 0) refined again with c and rounded
as they are. Two differences, unshifted: M from the best single one, every pair
of grid exponents' two coefficients by weighted least squares, the best
pairs refined and snapped the same way. Coefficients are rounded to the
decimals the data support (data.snap). Only when no simpler law reproduces
the readings (search.py).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from .derived import pairs
from .fitting import Law, decimal_exponent, exponent_penalty, nearest_fraction, refine, scaled_errors, wls
from .monomials import OutputData, monomial_values
from .trees import op, power, product, tree_text, var

#: Exponents screened for one difference: sixths from −4 to 6, and 0 (the logarithm).
SINGLE = np.array([k / 6 for k in range(-24, 37)])
#: Shifts screened for one difference, over the median of the pair's readings.
SHIFTS = (0.0, 0.05, 0.1, 0.2, 0.4, 0.8)
#: Exponents screened for each of two differences.
PAIRED = (-3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
#: Screened pairs of exponents refined.
KEEP = 2
#: Nats of the structure, besides its coefficients and exponents.
COST = 3.0
#: Nats for a fitted shift (as a constant and a digit).
SHIFT_COST = 2.0


def _g(x: np.ndarray, p, s: float = 0.0) -> np.ndarray:
    """(x + s)^p, or ln(x + s) where p is 0 (p a scalar, or a row of exponents)."""
    with np.errstate(all="ignore"):
        xs = x + s
        return np.where(p == 0, np.log(xs), xs ** np.where(p == 0, 1.0, p))


def _difference(X: dict, a: str, b: str, p, s: float = 0.0) -> np.ndarray:
    return _g(X[a], p, s) - _g(X[b], p, s)


def _screen(data: OutputData, a: str, b: str, others: list[str]) -> list[tuple[float, float, np.ndarray, float]]:
    """(p, s, [log|c|, M's exponents], the sign of c) of the grid exponent
    whose single unshifted difference fits best in log space, then of the
    grid exponent and shift that fits best if it is a shifted one:
    log|y| − log|g(a) − g(b)| = log|c| + Σ eₖ·log uₖ, weighted by the
    readings' relative precision, where y/(g(a) − g(b)) keeps one sign."""
    rows = data.y != 0
    scale = float(np.median(np.concatenate([data.X[a], data.X[b]])))
    ps = np.tile(SINGLE, len(SHIFTS))
    ss = np.repeat(np.array(SHIFTS) * scale, len(SINGLE))
    D = (_g(data.X[a][:, None], ps[None, :], ss[None, :]) - _g(data.X[b][:, None], ps[None, :], ss[None, :]))[rows]
    S = D * np.sign(data.y[rows])[:, None]
    good = np.all(np.isfinite(D) & (D != 0), axis=0) & (np.all(S > 0, axis=0) | np.all(S < 0, axis=0))
    L = np.column_stack([np.ones(data.n)] + [data.logs[nm] for nm in others])[rows]
    if not good.any() or L.shape[0] <= L.shape[1] + 1:
        return []
    sw = (np.abs(data.y) / data.sw)[rows][:, None]
    resid = np.full(len(ps), math.inf)
    with np.errstate(all="ignore"):
        R = np.log(np.abs(data.y[rows]))[:, None] - np.log(np.abs(D[:, good]))
        coef = np.zeros((L.shape[1], len(ps)))
        coef[:, good], *_ = np.linalg.lstsq(L * sw, R * sw, rcond=None)
        resid[good] = np.sum(((L @ coef[:, good] - R) * sw) ** 2, axis=0)
    resid = np.where(np.isfinite(resid), resid, math.inf)
    out = []
    for k in (int(np.argmin(resid[:len(SINGLE)])), int(np.argmin(resid))):
        if math.isfinite(resid[k]) and (not out or k >= len(SINGLE)):
            out.append((float(ps[k]), float(ss[k]), coef[:, k], float(np.sign(np.sum(S[:, k])))))
    return out


def _model(a: str, b: str, others: list[str], nj: int, exps: Optional[tuple] = None,
           ps: Optional[tuple] = None, shifted: bool = False):
    """y = Π uₖ^eₖ · Σⱼ cⱼ·(g_pⱼ(a) − g_pⱼ(b)), j < nj, as a function of
    (theta, X): theta holds the cⱼ, then M's exponents unless `exps` fixes
    them, then the pⱼ unless `ps` fixes them, then the shift when `shifted`."""
    ne = 0 if exps is not None else len(others)
    npow = 0 if ps is not None else nj

    def model(theta, X):
        e = exps if exps is not None else theta[nj:nj + ne]
        p = ps if ps is not None else theta[nj + ne:nj + ne + npow]
        s = float(theta[nj + ne + npow]) if shifted else 0.0
        return monomial_values(X, others, e) * sum(theta[j] * _difference(X, a, b, float(p[j]), s) for j in range(nj))
    return model


def _tree(a: str, b: str, others: list[str], exps: tuple, ps: tuple, c, s: float) -> Any:
    """M·Σⱼ cⱼ·(g_pⱼ(a) − g_pⱼ(b)) as a tree."""
    def g(name):
        x = var(name) if s == 0 else op("add", var(name), float(s))
        return [op("log", x) if p == 0 else power(x, float(p)) for p in ps]
    diffs = [op("add", ga, op("mul", -1.0, gb)) for ga, gb in zip(g(a), g(b))]
    m = [power(var(nm), float(e)) for nm, e in zip(others, exps) if e != 0]
    if len(ps) == 1:
        return product([float(c[0])] + m + diffs)
    return product(m + [op("add", *[op("mul", float(cj), d) for cj, d in zip(c, diffs)])])


def _law(data: OutputData, a: str, b: str, others: list[str], exps: tuple, ps: tuple,
         shift: Optional[float] = None) -> Optional[Law]:
    """The law at these exponents (fractions): its coefficients by weighted
    least squares, and its shift (when not None) refined with them by
    nonlinear least squares; all rounded to the decimals the data support."""
    nj = len(ps)
    shifted = shift is not None
    model = _model(a, b, others, nj, exps, ps, shifted)
    extra = [shift] if shifted else []
    cols = np.column_stack([model(np.array([*np.eye(nj)[j], *extra]), data.X) for j in range(nj)])
    c = wls(cols, data.y, data.w) if data.n > nj + len(extra) + 2 and np.all(np.isfinite(cols)) else None
    if c is None:
        return None
    theta = np.array([*c, *extra])
    if shifted:
        theta = refine(model, theta, data.X, data.y, data.sw, nfev=40)
        if theta is None:
            return None
    theta = data.snap(model, theta)
    tree = _tree(a, b, others, exps, ps, theta[:nj], float(theta[nj]) if shifted else 0.0)

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if t is None else (lambda X, t=t: model(t, X))
    pens = sum(exponent_penalty(Fraction(x)) for x in (*exps, *ps)) + (SHIFT_COST if shifted else 0.0)
    kind = ("difference" if nj == 1 else "two differences") + f" of one function of {a} and {b}" + \
        (", shifted" if shifted else "")
    law = Law(kind, f"{data.output.name} = {tree_text(tree)}", tree, len(theta), COST + 1.5 * nj + pens, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law


def _snapped(data: OutputData, a: str, b: str, others: list[str], exps: tuple, ps,
             shift: Optional[float] = None) -> list[Law]:
    """The laws at each way of writing the refined exponents pⱼ: the nearest
    simple fraction, or the shortest decimal (2.6, 1.25)."""
    options = [list(dict.fromkeys([nearest_fraction(float(p)), decimal_exponent(float(p))])) for p in ps]
    out = []
    for combo in itertools.product(*options):
        if len(set(combo)) < len(combo) or (len(combo) > 1 and 0 in combo):
            continue
        law = _law(data, a, b, others, exps, combo, shift)
        if law is not None:
            out.append(law)
    return out


def _single(data: OutputData, a: str, b: str, others: list[str]) -> tuple[list[Law], Optional[tuple]]:
    """The laws of one difference (unshifted, and shifted if a shift
    screened better), and M's exponents (snapped) of the unshifted one for two."""
    laws, first = [], None
    for p, s, coef, sign in _screen(data, a, b, others):
        shifted = s != 0
        with np.errstate(all="ignore"):
            start = np.array([sign * np.exp(coef[0]), *coef[1:], p, *([s] if shifted else [])])
        if not np.all(np.isfinite(start)):  # a scale beyond floating point: no law to refine
            continue
        theta = refine(_model(a, b, others, 1, shifted=shifted), start, data.X, data.y, data.sw, nfev=40)
        theta = start if theta is None else theta
        exps = tuple(nearest_fraction(float(e)) for e in theta[1:1 + len(others)])
        p = float(theta[1 + len(others)])
        laws += _snapped(data, a, b, others, exps, (p if abs(p) > 0.05 else 0.0,),
                         float(theta[-1]) if shifted else None)
        first = exps if first is None else first
    return laws, first


def _two(data: OutputData, a: str, b: str, others: list[str], exps: tuple) -> list[Law]:
    """The laws of two unshifted differences of powers with M's exponents
    fixed: every pair of PAIRED exponents screened by weighted least
    squares, the KEEP best refined with their exponents, then snapped."""
    m = monomial_values(data.X, others, exps)
    screened = []
    for p, q in itertools.combinations(PAIRED, 2):
        cols = np.column_stack([m * _difference(data.X, a, b, p), m * _difference(data.X, a, b, q)])
        c = wls(cols, data.y, data.w) if np.all(np.isfinite(cols)) else None
        if c is not None:
            screened.append((float(np.sum(data.w * (cols @ c - data.y) ** 2)), p, q, c))
    out = []
    for _, p, q, c in sorted(screened, key=lambda s: s[0])[:KEEP]:
        theta = refine(_model(a, b, others, 2, exps), np.array([*c, p, q]), data.X, data.y, data.sw, nfev=40)
        out += _snapped(data, a, b, others, exps, (p, q) if theta is None else theta[2:])
    return out


def differences(data: OutputData) -> list[Law]:
    """The laws of one and of two differences, for every pair of positive
    inputs of one kind (derived.pairs)."""
    if data.n < 6:
        return []
    positive = [i.name for i in data.positive]
    out: list[Law] = []
    for ia, ib in pairs(data.inputs):
        a, b = ia.name, ib.name
        if a not in positive or b not in positive:
            continue
        others = [nm for nm in positive if nm not in (a, b)]
        laws, exps = _single(data, a, b, others)
        out += laws
        if exps is not None and data.n >= 7:
            out += _two(data, a, b, others, exps)
    return out
