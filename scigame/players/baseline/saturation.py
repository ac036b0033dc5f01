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

from .fitting import Law, best_scale, refine, scaled_errors, snap_decimals
from .monomials import OutputData
from .trees import op, tree_text, var

#: Exponents screened (refined afterwards).
EXPONENTS = tuple(e for e in np.arange(-4.0, 4.01, 0.5) if e != 0)
#: Scales b screened, as multiples of the input's median.
SCALES = np.geomspace(0.05, 20.0, 25)

_SHAPES: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[Any], Any]], ...] = (
    ("1/(1+·)", lambda z: 1.0 / (1.0 + z), lambda t: op("div", 1.0, op("add", 1.0, t))),
    ("exp(-·)", lambda z: np.exp(-z), lambda t: op("exp", op("mul", -1.0, t))),
)


def saturations(data: OutputData) -> list[Law]:
    """The best law of each shape and input."""
    if data.n < 5:
        return []
    laws = []
    for inp in data.positive:
        x = data.X[inp.name]
        for shape in _SHAPES:
            law = _fit(data, inp.name, x, shape)
            if law is not None:
                laws.append(law)
    return laws


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
    theta = snap_decimals(model, theta, data.X, data.y, data.sw, data.snap_rel)
    c, b, e = (float(v) for v in theta)
    tree = op("mul", c, tree_of(op("pow", op("div", var(name), b), e)))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None or not t[1] > 0 else (lambda X, t=t: model(t, X))
    law = Law(f"saturation {label} with a fitted exponent", text, tree, 3, 5.0, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law
