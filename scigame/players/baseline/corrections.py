"""Corrections composed onto a found law: a term switched on.

A textbook law with a correction switched on is the law it was, times
(1 + c·Z) or plus c·O·Z: a charging curve with a leak,
V₀(1 − e^(−t/τ))·(1 − c·t/τ); Kepler's period with an oblate planet,
T·(1 + c·a^−2); a falling speed with a push, v_t·tanh(g·t/v_t) + c·t; an
intensity with a background, I₀·e^(−μx) + c·I₀. Rather than a family per
correction, this pass composes one onto the best laws the search found
that miss some reading (the parents): Z runs over the powers of each input
(CORRECTION_POWERS) and the groups the parent's functions take as
arguments; O is the parent's outer product of inputs (what carries the
output's units), and 1.

Every (parent, form, Z) is screened by linear least squares (the parent's
values and the correction's as columns, its scale and c fitted, beside the
parent's values moved by each of its fitted constants: one Gauss–Newton
step of the parent's own numbers, fitted without the correction), and the
SCREENED best are refined with the
parent's coefficients (relax.relax_one, c the new number, snapped to its
shortest decimal) and kept only when they fit every reading within the
tolerance and beat every law of as many constants by relax.IMPROVEMENT.
The description length adds the correction's form and the digits of c to
the parent's, so the model choice keeps the parent when it predicts as well.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from .fitting import Law, exponent_penalty, wls
from .relax import _attempt, _best_error, _kept, _tidy, normal, parents
from .trees import evaluate, is_num, op, power, var

#: Parent laws screened at most: this many of the best by in-sample fit and
#: description length, and as many of the shortest.
CORRECTED_LAWS = 8
#: Powers of an input a correction may take.
CORRECTION_POWERS = (1.0, -1.0, 2.0, -2.0, 0.5)
#: (parent, form, Z) refined at most, the best of the linear screening.
SCREENED = 6
#: Nats for a correction's form, besides its power's and its coefficient's digits.
CORRECTION_COST = 1.0
#: Where the refinement starts a correction: this fraction of the parent at the median reading.
START = 0.1

FACTOR, TERM = "correction factor", "correction term"


def _outer(tree: Any) -> list:
    """The parent's outer product of inputs and their powers (I₀ of I₀·e^(−μx))."""
    args = tree["args"] if isinstance(tree, dict) and tree.get("op") == "mul" else [tree]
    return [a for a in args if isinstance(a, dict) and ("var" in a or a.get("op") == "pow"
                                                        and isinstance(a["args"][0], dict) and "var" in a["args"][0]
                                                        and is_num(a["args"][1]))]


def _arguments(tree: Any) -> list:
    """The arguments of the parent's functions with their numbers taken off
    (the group t·R^−1 of exp(−2·t·R^−1)): corrections often run in the law's own group."""
    out = []
    if isinstance(tree, dict) and "op" in tree:
        if tree["op"] in ("exp", "log", "sin", "cos", "tanh") and isinstance(tree["args"][0], dict):
            arg = tree["args"][0]
            if arg.get("op") == "mul":
                rest = [a for a in arg["args"] if not is_num(a)]
                arg = rest[0] if len(rest) == 1 else op("mul", *rest) if rest else None
            if isinstance(arg, dict):
                out.append(arg)
        for a in tree["args"]:
            out.extend(_arguments(a))
    return out


def _cost(p: float) -> float:
    return CORRECTION_COST + exponent_penalty(Fraction(p).limit_denominator(3))


def candidates(tree: Any, data) -> list[tuple[Any, float]]:
    """(Z, nats) the corrections of a parent may run in: each positive input's
    powers and its functions' arguments."""
    out = [(power(var(i.name), p) if p != 0.5 else op("pow", var(i.name), 0.5), _cost(p))
           for i in data.positive for p in CORRECTION_POWERS]
    seen = {repr(z) for z, _ in out}
    for arg in _arguments(tree):
        if repr(arg) not in seen:
            seen.add(repr(arg))
            out.append((arg, CORRECTION_COST + 0.5))
    return out


def _sensitivities(tree: Any, X: dict, base: np.ndarray) -> list[np.ndarray]:
    """The parent's values moved by each of its fitted constants (canonical._free),
    by forward differences: beside its values, they let the screen's linear
    fit move the parent's constants one Gauss–Newton step with the correction
    (a charging curve's rate, fitted without the leak, is off the law's)."""
    from .canonical import _free, _with

    theta = _free(tree)
    out = []
    for k, t in enumerate(theta):
        h = 1e-6 * max(1.0, abs(t))
        moved = evaluate(_with(tree, theta[:k] + [t + h] + theta[k + 1:]), X)
        if moved is not None and np.all(np.isfinite(moved)):
            out.append((moved - base) / h)
    return out


def _screen(data, parents: list[Law]) -> list[tuple[float, Law, Any, str, Any, float]]:
    """(residual, parent, tree, form, Z, nats) of every correction, best first by
    residual and description length (as relax ranks its parents)."""
    rows = []
    for law in parents:
        tree = normal(law.tree)
        base = evaluate(tree, data.X)
        if base is None or not np.all(np.isfinite(base)):
            continue
        outer = _outer(tree)
        carrier = (op("mul", *outer) if len(outer) > 1 else outer[0]) if outer else None
        carrier_v = evaluate(carrier, data.X) if carrier is not None else np.ones(data.n)
        moves = _sensitivities(tree, data.X, base)
        for z, nats in candidates(tree, data):
            zv = evaluate(z, data.X)
            if zv is None or not np.all(np.isfinite(zv)) or np.ptp(zv) == 0:
                continue
            forms = [(FACTOR, base * zv), (TERM, carrier_v * zv)]
            for form, col in forms:
                if np.allclose(col, col[0]):  # Z cancels the carrier (u·u^−1): the background below
                    continue
                A = np.column_stack([base, *moves, col])
                c = wls(A, data.y, data.w)
                if c is None:
                    continue
                r = float(np.sum(data.w * (A @ c - data.y) ** 2))
                rows.append((r, law, tree, form, z, nats))
        if carrier is not None:  # a constant background, c·O
            c = wls(np.column_stack([base, carrier_v]), data.y, data.w)
            if c is not None:
                r = float(np.sum(data.w * (np.column_stack([base, carrier_v]) @ c - data.y) ** 2))
                rows.append((r, law, tree, TERM, None, CORRECTION_COST))
    penalty = 0.5 * math.log(max(data.n, 2))
    return sorted(rows, key=lambda r: r[0] + 2 * (r[1].complexity + r[5]) + 2 * penalty * r[1].k)


def corrected_tree(tree: Any, form: str, z: Any, c: float) -> tuple[Any, tuple]:
    """(the parent with the correction, the path of c)."""
    if form == FACTOR:
        return op("mul", tree, op("add", 1.0, op("mul", c, z))), (1, 1, 0)
    outer = _outer(tree)
    carrier = [*outer] + ([z] if z is not None else [])
    term = op("mul", c, *carrier) if carrier else c
    return op("add", tree, term), ((1, 0) if carrier else (1,))


def _start(data, tree: Any, form: str, z: Any) -> Optional[float]:
    """c such that the correction is START of the parent at the median reading."""
    base = evaluate(tree, data.X)
    piece = evaluate(corrected_tree(tree, form, z, 1.0)[0], data.X)
    if base is None or piece is None:
        return None
    with np.errstate(all="ignore"):
        size = np.median(np.abs(piece - base) / np.maximum(np.abs(base), 1e-300))
    return START / size if np.isfinite(size) and size > 0 else None


def corrections(data, laws: list[Law]) -> list[Law]:
    """Over the CORRECTED_LAWS best laws (sums aside) that miss some reading and
    as many of the shortest (relax.parents), the SCREENED best corrections by
    linear screening, refined."""
    out: list[Law] = []
    screened = _screen(data, parents(data, laws, CORRECTED_LAWS, CORRECTED_LAWS))
    for _, law, tree, form, z, nats in screened[:SCREENED]:
        c0 = _start(data, tree, form, z)
        if c0 is None:
            continue
        t, path = corrected_tree(tree, form, z, c0)
        heavier = dataclasses.replace(law, complexity=law.complexity + nats)
        found = _attempt(data, heavier, t, path, (), form, (), _best_error(laws, law.k + 1))
        if _kept(out, found, data, _tidy):
            return out
    return out
