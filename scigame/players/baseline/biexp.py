"""Two exponentials in one input: `y = B·(c₁·e^(a·q) + c₂·e^(b·q) + c₀)`.

A decay chain's daughter (Bateman: N_A0·λ_A/(λ_B − λ_A)·(e^(−λ_A·t) − e^(−λ_B·t))),
a drug absorbed and eliminated (D/V·k_a/(k_a − k_e)·(e^(−k_e·t) − e^(−k_a·t))),
a population of two kinds decaying at two rates, an overdamped oscillator:
two first-order processes in one input q, each with its own rate, scaled by
one base B (1 or a positive input: an initial amount, a dose; the units of
B and y may differ by a hidden constant, as a dose and a concentration do by
the volume). The level c₀ is optional.

Variable projection, as in kinetics.py: for every pair of rates (a, b) on a
grid (both signs, scaled to q's median) the coefficients by weighted least
squares, all pairs at once; the best few structures are refined with their
rates by nonlinear least squares, free and with c₂ = −c₁ (a transient that
starts from zero) and, for a base with the output's units, c₁ + c₂ = 1 (one
that starts from the base), and with the base (an input) raised to a fitted
power (a dose exponent of 1.3); constants rounded to the decimals the data
support (data.snap). Only when no simpler law reproduces the readings
(search.py).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Optional

import numpy as np

from .fitting import Law, refine, scaled_errors
from .monomials import ARGUMENT_GRID, OutputData
from .trees import drop_zero_terms, op, tree_text, var

#: Rates screened, over the median |q| (both signs: decay and growth).
RATES = np.concatenate([-ARGUMENT_GRID[::-1], ARGUMENT_GRID])
#: Screened structures refined.
KEEP = 3
#: Nats of the structure, besides its coefficients.
COST = 4.0
#: Nats for the base's fitted power (as relax.py's RELAX_COST and a digit).
POWER_COST = 2.0

#: How the coefficients (c₁, c₂) follow from the fitted ones: free, opposite
#: (the transient starts from 0), summing to 1 (it starts from the base).
TIES: dict[str, Callable[[np.ndarray], tuple[float, float]]] = {
    "free": lambda c: (c[0], c[1]),
    "opposite": lambda c: (c[0], -c[0]),
    "from the base": lambda c: (c[0], 1.0 - c[0]),
}


def _bases(data: OutputData) -> list[tuple[str, Any, np.ndarray, bool]]:
    """(name, tree, values, whether it has the output's units): 1 and every positive input."""
    target = data.output.dim
    out = [("1", 1.0, np.ones(data.n), target is None or not np.any(target))]
    for i in data.positive:
        same = target is not None and i.dim is not None and bool(np.allclose(i.dim, target))
        out.append((i.name, var(i.name), np.asarray(data.X[i.name], float), same))
    return out


#: Pairs of rates whose fit is worked out exactly after the screen (the
#: screen's sums of squares come from Gram matrices, which lose digits
#: where exponentials grow huge).
EXACT = 8


def _screen(data: OutputData, base: np.ndarray, q: np.ndarray, level: bool) -> tuple[float, float, float]:
    """(χ², a, b) of the best pair of rates a < b of the grid for
    y = B·(c₁e^(aq) + c₂e^(bq) [+ c₀]): every pair's normal equations from
    one Gram matrix of the grid's columns (each pair's are a 2×2 or 3×3
    block of it), the EXACT best pairs then solved by least squares."""
    med = float(np.median(np.abs(q))) or 1.0
    rates = RATES / med
    i, j = np.triu_indices(len(rates), k=1)
    sw = 1.0 / data.sw
    yw = data.y * sw
    bw = base * sw
    with np.errstate(all="ignore"):
        E = np.exp(np.outer(rates, q)) * bw[None, :]             # (R, n) weighted columns
        ok = np.all(np.isfinite(E), axis=1) & (np.max(np.abs(E), axis=1, initial=0.0) < 1e100)
        E = np.where(ok[:, None], E, 0.0)
        G, g = E @ E.T, E @ yw
        if level:
            h = E @ bw
            AtA = np.stack([np.stack([G[i, i], G[i, j], h[i]], -1), np.stack([G[i, j], G[j, j], h[j]], -1),
                            np.stack([h[i], h[j], np.full(len(i), bw @ bw)], -1)], 1)
            Atz = np.stack([g[i], g[j], np.full(len(i), bw @ yw)], -1)
        else:
            AtA = np.stack([np.stack([G[i, i], G[i, j]], -1), np.stack([G[i, j], G[j, j]], -1)], 1)
            Atz = np.stack([g[i], g[j]], -1)
        k = AtA.shape[1]
        scale = np.maximum(np.max(np.abs(np.diagonal(AtA, axis1=1, axis2=2)), axis=1), 1e-300)
        c = np.linalg.solve(AtA + (1e-12 * scale)[:, None, None] * np.eye(k), Atz[..., None])[..., 0]
        r = yw @ yw - 2 * np.sum(c * Atz, axis=1) + np.einsum("pi,pij,pj->p", c, AtA, c)
    r = np.where(np.isfinite(r) & ok[i] & ok[j], r, math.inf)
    best = (math.inf, 0.0, 0.0)
    for p in np.argsort(r, kind="stable")[:EXACT]:
        if not math.isfinite(r[p]):
            break
        chi2, _ = _linear(data, q, base, level, "free", float(rates[i[p]]), float(rates[j[p]]))
        if chi2 < best[0]:
            best = (chi2, float(rates[i[p]]), float(rates[j[p]]))
    return best


def _model(q: str, bname: Optional[str], tie: str, level: bool, powered: bool, nc: int):
    """y = B^p·(c₁e^(a·q) + c₂e^(b·q) + c₀) as a function of (theta, X):
    theta the nc fitted coefficients (TIES makes c₁, c₂ of them; c₀ last
    with `level`), then p (when `powered`), a and b."""
    def model(theta, X):
        qv = np.asarray(X[q], float)
        bv = np.asarray(X[bname], float) if bname else np.ones(len(qv))
        if powered:
            bv = bv ** theta[-3]
        c1, c2 = TIES[tie](theta)
        out = c1 * np.exp(theta[-2] * qv) + c2 * np.exp(theta[-1] * qv)
        if level:
            out = out + theta[nc - 1]
        return bv * out
    return model


def _linear(data: OutputData, qv: np.ndarray, bvals: np.ndarray, level: bool, tie: str, a: float,
            b: float) -> tuple[float, Optional[np.ndarray]]:
    """(χ², coefficients) of the structure at the rates (a, b) by weighted
    least squares: the screen's exact check of a pair and the refinement's
    start; (inf, None) where a column is not finite."""
    with np.errstate(all="ignore"):
        ea, eb = np.exp(a * qv) * bvals, np.exp(b * qv) * bvals
        cols = {"free": [ea, eb], "opposite": [ea - eb], "from the base": [ea - eb]}[tie]
        target = data.y - (eb if tie == "from the base" else 0.0)
        A = np.column_stack(cols + ([bvals] if level else []))
        sw = 1.0 / data.sw
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(target))):
            return math.inf, None
        coef, *_ = np.linalg.lstsq(A * sw[:, None], target * sw, rcond=None)
        r = float(np.sum(((A @ coef - target) * sw) ** 2))
    return (r if math.isfinite(r) else math.inf), coef


def _tree(theta: np.ndarray, q: str, bname: Optional[str], btree: Any, tie: str, level: bool, nc: int,
          powered: bool) -> Any:
    """The law's tree at the constants theta (as _model reads them)."""
    c1, c2 = (float(v) for v in TIES[tie](theta))
    if powered:
        btree = op("pow", btree, float(theta[-3]))

    def term(c, rate):
        return op("mul", *([c] + ([btree] if bname else []) + [op("exp", op("mul", float(rate), var(q)))]))
    terms = [term(c1, theta[-2]), term(c2, theta[-1])]
    if level:
        terms.append(op("mul", float(theta[nc - 1]), btree) if bname else float(theta[nc - 1]))
    return drop_zero_terms(op("add", *terms))


def _law(data: OutputData, q: str, base: tuple, level: bool, tie: str, a: float, b: float,
         powered: bool = False) -> Optional[Law]:
    """The refined law of one screened structure and tie; `powered`: the
    base (an input) raised to a fitted power, from 1 (a dose exponent)."""
    name, btree, bvals, _ = base
    nc = (2 if tie == "free" else 1) + int(level)
    k = nc + 2 + int(powered)
    bname = None if name == "1" else name
    coef = _linear(data, np.asarray(data.X[q], float), bvals, level, tie, a, b)[1] if data.n > k else None
    if coef is None:
        return None
    model = _model(q, bname, tie, level, powered, nc)
    theta = refine(model, np.array([*coef, *([1.0] if powered else []), a, b]), data.X, data.y, data.sw, nfev=60)
    if theta is None:
        return None
    theta = data.snap(model, theta)
    if powered and theta[-3] == 1.0:
        return None  # the unpowered law, found as it is
    tree = _tree(theta, q, bname, btree, tie, level, nc, powered)

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if t is None else (lambda X, t=t: model(t, X))
    kind = "two exponentials in " + q + ("" if tie == "free" else f", {tie}") + \
        (f", {name} to a fitted power" if powered else "")
    law = Law(kind, f"{data.output.name} = {tree_text(tree)}", tree, k,
              COST + 1.5 * nc + (0.0 if bname is None else 0.5) + (POWER_COST if powered else 0.0), refit)
    with np.errstate(all="ignore"):
        law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    law.theta = (*(float(v) for v in TIES[tie](theta)), float(theta[-2]), float(theta[-1]))
    return law


def _ties(c: np.ndarray, same_units: bool) -> list[str]:
    """The ties worth refining for screened coefficients c (c₁, c₂, ...):
    free always; opposite when c₁ + c₂ is small beside them; from the base
    when they sum near 1 and the base has the output's units."""
    out = ["free"]
    if abs(c[0] + c[1]) <= 0.2 * max(abs(c[0]), abs(c[1])):
        out.append("opposite")
    if same_units and abs(c[0] + c[1] - 1.0) <= 0.2:
        out.append("from the base")
    return out


def two_exponentials(data: OutputData) -> list[Law]:
    """The KEEP best screened structures (input, base, level), each refined
    free, then with the ties its refined coefficients suggest (TIES); the
    best with an input for its base also with that input's power fitted."""
    if data.n < 7:
        return []
    screened = []
    for inp in [i for i in data.inputs if i.angle is None and i.varies]:
        q = np.asarray(data.X[inp.name], float)
        if not np.all(np.isfinite(q)):
            continue
        for base, level in itertools.product(_bases(data), (False, True)):
            if base[0] == inp.name:
                continue
            chi2, a, b = _screen(data, base[2], q, level)
            if math.isfinite(chi2):
                screened.append((chi2 + 2 * (2 + int(level)), inp.name, base, level, a, b))
    out = []
    powered = False
    for _, q, base, level, a, b in sorted(screened, key=lambda s: s[0])[:KEEP]:
        free = _law(data, q, base, level, "free", a, b)
        if free is not None:
            out.append(free)
            c, (a, b) = np.array(free.theta[:2]), free.theta[2:]  # the ties the refined coefficients suggest
        else:
            c = _linear(data, np.asarray(data.X[q], float), base[2], level, "free", a, b)[1]
            c = np.zeros(2) if c is None else c
        for tie in _ties(c, base[3]):
            law = _law(data, q, base, level, tie, a, b) if tie != "free" else None
            if law is not None:
                out.append(law)
            if base[0] != "1" and not powered:
                law = _law(data, q, base, level, tie, a, b, powered=True)
                if law is not None:
                    out.append(law)
        powered = powered or base[0] != "1"
    return out
