"""Saturation and stretched decay in one input with a fitted exponent:
`y = C·u((x/b)^e)`, u(z) = 1/(1 + z) (Hill binding, with e negative the
rising curve `xᵉ/(bᵉ + xᵉ)`) or exp(−z) (Weibull, stretched exponential).

The exponent is no small rational here (Hill's 2.7), so it is fitted with
C and the scale b: screened on a grid of e and b, refined by least squares,
then each constant rounded to the shortest decimal the data support
(fitting.snap_decimals), which writes b as the half-saturation value the
law's author chose. Searched only when nothing simpler fits (search.py).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .fitting import Law, best_scale, refine, scaled_errors
from .monomials import OutputData
from .trees import drop_zero_terms, op, tree_text, var

#: Exponents screened (refined afterwards).
EXPONENTS = tuple(e for e in np.arange(-4.0, 4.01, 0.5) if e != 0)
#: Scales b screened, as multiples of the input's median.
SCALES = np.geomspace(0.05, 20.0, 25)

_SHAPES: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[Any], Any]], ...] = (
    ("1/(1+·)", lambda z: 1.0 / (1.0 + z), lambda t: op("div", 1.0, op("add", 1.0, t))),
    ("exp(-·)", lambda z: np.exp(-z), lambda t: op("exp", op("mul", -1.0, t))),
)


def saturations(data: OutputData) -> list[Law]:
    """The best law of each shape and input, and the linear-fractional law
    of each input (_fractional)."""
    if data.n < 5:
        return []
    laws = []
    for inp in data.positive:
        x = data.X[inp.name]
        for shape in _SHAPES:
            law = _fit(data, inp.name, x, shape)
            if law is not None:
                laws.append(law)
    for inp in data.inputs:
        law = _fractional(data, inp.name) if inp.varies and inp.name in data.X else None
        if law is not None:
            laws.append(law)
    return laws


def _fractional(data: OutputData, name: str) -> Optional[Law]:
    """y = (a + b·x)/(1 + c·x): a saturation that starts and ends anywhere
    (Hill's muscle law b·(F0 − F)/(F + a), a lens's u·f/(u − f), Michaelis
    and Menten's V·S/(K + S) with a = 0). y·(1 + c·x) = a + b·x is linear in
    (a, b, c): that weighted least squares starts the refinement; the pole
    −1/c must lie outside the readings' range of x."""
    x = np.asarray(data.X[name], dtype=float)
    if len(np.unique(x)) < 4:
        return None
    w = 1.0 / data.sw
    with np.errstate(all="ignore"):
        A = np.column_stack([np.ones_like(x), x, -x * data.y]) * w[:, None]
        try:
            start, *_ = np.linalg.lstsq(A, data.y * w, rcond=None)
        except (np.linalg.LinAlgError, ValueError):
            return None
    if not np.all(np.isfinite(start)):
        return None

    def model(t, X):
        v = np.asarray(X[name], dtype=float)
        with np.errstate(all="ignore"):
            return (t[0] + t[1] * v) / (1.0 + t[2] * v)

    def poleless(t) -> bool:
        d = 1.0 + t[2] * np.array([x.min(), x.max()])
        return bool(d[0] * d[1] > 0)
    theta = refine(model, start, data.X, data.y, data.sw, nfev=40)
    if theta is None or not poleless(theta):
        return None
    theta = data.snap(model, theta)
    a, b, c = (float(v) for v in theta)
    if c == 0.0:
        return None  # a straight line: the sums' law
    tree = drop_zero_terms(op("div", op("add", a, op("mul", b, var(name))), op("add", 1.0, op("mul", c, var(name)))))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None or not poleless(t) else (lambda X, t=t: model(t, X))
    law = Law("linear-fractional", text, tree, 3, 5.0, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law


def _screen(data: OutputData, x: np.ndarray, fn) -> Optional[np.ndarray]:
    """(C, b, e) with the least weighted error on the grid."""
    med = float(np.median(x))
    best, best_err = None, math.inf
    for e in EXPONENTS:
        with np.errstate(all="ignore"):
            H = fn((x[:, None] / (SCALES[None, :] * med)) ** e)
        for j in range(len(SCALES)):
            h = H[:, j]
            if not np.all(np.isfinite(h)):
                continue
            c = best_scale(h, data.y, data.w)
            if c is None:
                continue
            err = float(np.sum(((c * h - data.y) / data.sw) ** 2))
            if err < best_err:
                best, best_err = np.array([c, SCALES[j] * med, e]), err
    return best


def _fit(data: OutputData, name: str, x: np.ndarray, shape) -> Optional[Law]:
    label, fn, tree_of = shape
    start = _screen(data, x, fn)
    if start is None:
        return None

    def model(t, X):
        with np.errstate(all="ignore"):
            return t[0] * fn((np.asarray(X[name], float) / t[1]) ** t[2])
    theta = refine(model, start, data.X, data.y, data.sw, nfev=60)
    if theta is None or not theta[1] > 0:
        return None
    theta = data.snap(model, theta)
    c, b, e = (float(v) for v in theta)
    tree = op("mul", c, tree_of(op("pow", op("div", var(name), b), e)))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None or not t[1] > 0 else (lambda X, t=t: model(t, X))
    law = Law(f"saturation {label} with a fitted exponent", text, tree, 3, 5.0, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law
