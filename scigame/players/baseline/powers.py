"""Powers of sums with two real exponents: `y = C·M·g(b, Q^a)^p`.

A law nobody has seen moves two numbers of a textbook form at once: the
pendulum's amplitude factor (1 + θ²)^0.7, a Lorentz factor to the power
−1.5, a charging curve (1 − e^(−t/τ))^0.7 or stretched 1 − e^(−(t/τ)^0.7),
T^4·(1 − (Tₛ/T)^4) with another area exponent. relax.py moves one exponent
of a law already found; here the inner power a of the argument and the
outer power p are both real, with the scale b and the monomial M:

- g(z) = 1 + z, the power of a sum (b of either sign: 1 − b·v²);
- g(z) = 1 − e^(−z), the power of a charging curve (b > 0);
- g(z) = e^(−z), a stretched exponential (p is then no constant of its own: p = 1);
- g(z) = log(1 + z), a logarithm of a sum;
- Q^a + b, a sum with a constant of Q's units inside a power, (γ − 0.35)^½;
- log(Q^a + b) (p = 1), Nernst's log(c_o/c_i + 1.4);

each of z = b·Q^a for the first four. Q is one of the arguments of
monomials.arguments (a dimensionless group, or an input or a pair of
inputs when a hidden constant makes it one) or an angle of one sign, so
every candidate is dimensionally possible. Each rational guess (a, p) is a
monomials.Factor with a grid over b, screened with the monomials' own log-space
least squares (first_cut, then screen, which also fits and snaps M's
exponents); the best few get (C, b, a, p) refined together by nonlinear
least squares (fitting.refine), their exponents snapped to the simplest
value the data support (_snap_one) and their constants to the
shortest decimals (fitting.snap_decimals). A law costs its guess's
description length plus relax.RELAX_COST and the digits of each exponent
that moved off the rational guess (relax.exponent_cost), and carries C, b
and one constant per exponent left real: the model choice prefers the
simpler law whenever it predicts as well. Searched only when
no simple law reproduces the readings (search.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from .fitting import (Law, exponent_penalty, refine, rounding_bound, scaled_errors, snap_options,
                      worst_error)
from .monomials import (ARGUMENT_GRID, Argument, Factor, OutputData, Screened, _monomial_values, arguments, first_cut,
                        monomial_tree, screen, setup, spaces, transforms)
from .relax import RELAX_COST, _digits, exponent_cost
from .task import fmt
from .trees import op, power, product, tree_text, var

#: Rational guesses of the inner exponent a (the argument's own exponents
#: 1, 2 and −1 multiply these: x^±½, x^±2, x^4 are reached).
INNER = (0.5, 1.0, 2.0)
#: Rational guesses of the outer exponent p (the refit moves it: −1.5 is
#: reached from −2, 0.7 from ½).
OUTER = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)
#: Factors screened in full (the best by the first cut), per space.
SCREENED = 8
#: Structures (shape, Q, a) whose every guess of p is cut, the best by the guess p = 1.
STRUCTURES = 12
#: Factors screened besides, the best of each shape.
PER_SHAPE = 3
#: Distinct screened candidates refitted (the best by screening).
FITTED = 20
#: Refined candidates snapped into laws.
REFINED = 5
#: How far (relative) the scale b may be snapped to a short decimal, the
#: exponents refitted, when the fit stays as good.
SCALE_WIDTH = 0.25
#: Evaluations of the first refit of (C, b, a, p), for every candidate, and
#: of the refit continued for the REFINED best.
FIRST_NFEV = 20
LAST_NFEV = 60
#: A candidate missing a reading by more than this many tolerances after the
#: first refit is dropped.
HOPELESS_FIT = 10.0
#: A law is kept only if it fits every point within this many tolerances.
KEPT_FIT = 1.5


@dataclass(frozen=True)
class Shape:
    """g in g(b, Q^a)^p: numpy, tree, description length, whether b > 0,
    whether p is free, and how b enters: "mul" (g of b·Q^a), "add" (Q^a + b,
    so that b is in Q^a's units) or "log" (log(Q^a + b), whose value Q's
    units change: fitted as it is)."""

    name: str
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (b, Q^a) -> g
    tree: Callable[[float, Any], Any]  # (b, Q^a's tree) -> g's tree
    cost: float
    positive: bool
    outer: bool
    scale: str = "mul"

    def to_raw(self, t: np.ndarray, q0: float) -> np.ndarray:
        """Constants (C', b', a, p) of Q/q0 as the constants (C, b, a, p) of Q."""
        out = np.array(t, dtype=float)
        p = t[3] if self.outer else 1.0
        if self.scale == "mul":
            out[1] = t[1] * q0 ** -t[2]
        elif self.scale == "add":
            out[0], out[1] = t[0] * q0 ** (-t[2] * p), t[1] * q0 ** t[2]
        return out

    def to_scaled(self, t: np.ndarray, q0: float) -> np.ndarray:
        """The inverse of to_raw."""
        out = np.array(t, dtype=float)
        p = t[3] if self.outer else 1.0
        if self.scale == "mul":
            out[1] = t[1] * q0 ** t[2]
        elif self.scale == "add":
            out[0], out[1] = t[0] * q0 ** (t[2] * p), t[1] * q0 ** -t[2]
        return out


SHAPES = (
    Shape("1+", lambda b, q: 1.0 + b * q, lambda b, q: op("add", 1.0, op("mul", b, q)), 2.5, False, True),
    Shape("1-exp(-)", lambda b, q: -np.expm1(-b * q), lambda b, q: op("sub", 1.0, op("exp", op("mul", -b, q))),
          3.0, True, True),
    Shape("exp(-)", lambda b, q: np.exp(-b * q), lambda b, q: op("exp", op("mul", -b, q)), 2.0, False, False),
    Shape("log(1+)", lambda b, q: np.log1p(b * q), lambda b, q: op("log", op("add", 1.0, op("mul", b, q))), 3.0,
          True, False),
    # a sum inside a power or a logarithm with a constant of Q's units: (γ − 0.35)^½, log(co/ci + 1.4)
    Shape("+b", lambda b, q: q + b, lambda b, q: op("add", q, b), 3.0, False, True, "add"),
    Shape("log(+b)", lambda b, q: np.log(q + b), lambda b, q: op("log", op("add", q, b)), 3.5, True, False, "log"),
)


def _guess_cost(e: float) -> float:
    return exponent_penalty(Fraction(e).limit_denominator(3))


def _arguments(data: OutputData) -> list[Argument]:
    """monomials.arguments, and the angles of one sign (an amplitude θ₀ in (1 + θ₀²)^0.7):
    dimensionless as they are."""
    angles = [Argument(i.name, var(i.name), lambda X, n=i.name: np.asarray(X[n], float), 0.0)
              for i in data.inputs if i.angle is not None and i.varies and i.lo >= 0]
    return arguments(data) + angles


def factors(data: OutputData) -> list[tuple[Factor, Shape, Any, Callable, float, float]]:
    """(factor, shape, Q's tree, Q's values, a, p) for every shape, argument and guess."""
    out = []
    for arg in _arguments(data):
        q = arg.values(data.X)
        if q is None or not np.all(np.isfinite(q)) or not np.all(q > 0):
            continue
        for shape in SHAPES:
            for a in INNER:
                qa = q ** a
                med = float(np.median(qa)) or 1.0
                signs = (1.0,) if shape.positive else (1.0, -1.0)
                unit = med if shape.scale != "mul" else 1.0 / med  # b of Q^a's size, or of its inverse
                grid = tuple(float(s * g * unit) for s in signs for g in ARGUMENT_GRID)
                for p in (OUTER if shape.outer else (1.0,)):
                    def values(b, X, shape=shape, qfn=arg.values, a=a, p=p):
                        return shape.fn(b, qfn(X) ** a) ** p

                    def batch(g, shape=shape, qa=qa, p=p):
                        return shape.fn(np.asarray(g, float)[None, :], qa[:, None]) ** p

                    def tree(b, shape=shape, qt=arg.tree, a=a, p=p):
                        return power(shape.tree(b, power(qt, a)), p)
                    cost = shape.cost + arg.cost + _guess_cost(a) + _guess_cost(p) + RELAX_COST
                    f = Factor(f"{shape.name}^{p:.3g}(a·({arg.text})^{a:g})", values, tree, cost, grid,
                               arg.cost == 0.0, batch)
                    out.append((f, shape, arg.tree, arg.values, a, p))
    return out


def powers(data: OutputData) -> list[Law]:
    """The REFINED best screened candidates, refined with both exponents free."""
    if data.n < 6:
        return []
    tr = transforms(data.output)[0]
    cands = factors(data)
    if not cands:
        return []
    by_factor = {id(c[0]): c for c in cands}
    determined = data.dims is not None and data.dims.determined and bool(data.dims.groups)
    screened: list[Screened] = []
    for space in spaces(data, tr):
        if determined and space.label == "free exponents":
            continue  # the units fix the law up to its groups (as monomials.py)
        st = setup(data, tr, space)
        if st is None:
            continue
        # the first cut in two steps: each (shape, Q, a) by its guess p = 1,
        # then every guess of p for the STRUCTURES best of them
        lead = [c for c in cands if c[5] == 1.0]
        cut = first_cut(data, st, [c[0] for c in lead])
        kept = {structure(by_factor[id(f)]) for f in _shortlist([c[0] for c in lead], cut, by_factor, STRUCTURES)}
        fs = [c[0] for c in cands if structure(c) in kept]
        cut = first_cut(data, st, fs)
        for f in _shortlist(fs, cut, by_factor, SCREENED):
            screened.extend(screen(data, tr, space, f, st))
    # the guesses' exponents are off until refined: candidates are ranked
    # after a first refit of (C, b, a, p), not by their screening error
    fits = [fit for fit in (_fit(data, s, *by_factor[id(s.factor)][1:]) for s in _distinct(data, screened, by_factor)[:FITTED])
            if fit is not None]
    fits.sort(key=lambda fit: fit.error + 2 * fit.s.cost)
    laws, seen = [], set()
    for fit in fits[:REFINED]:
        law = _law(data, fit)
        if law is not None and law.text not in seen:
            seen.add(law.text)
            laws.append(law)
    return laws


def structure(c: tuple) -> tuple:
    """A candidate's (shape, Q, a), its guess of p aside."""
    return (c[1].name, id(c[2]), c[4])


def _distinct(data: OutputData, screened: list[Screened], by_factor: dict) -> list[Screened]:
    """The best screened candidate (by err + 2·cost) of each shape, space,
    monomial and argument power Q^a: guesses that differ only in p (or that
    write one Q^a two ways, (v²)^1 and v^2) meet in one refit."""
    out, seen = [], set()
    for s in sorted(screened, key=lambda s: s.err + 2 * s.cost):
        _, shape, _, qfn, a, _ = by_factor[id(s.factor)]
        with np.errstate(all="ignore"):
            qa = tuple(np.round(np.log(qfn(data.X)) * a, 6))
        key = (shape.name, s.space.label, tuple(s.p), qa)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _shortlist(fs: list[Factor], cut: dict[int, float], by_factor: dict, best: int) -> list[Factor]:
    """The `best` factors by the first cut, and the PER_SHAPE best of each
    shape besides (a guess off in its outer power ranks low on the cut)."""
    ranked = sorted(fs, key=lambda f: cut[id(f)])
    out, count = ranked[:best], {}
    for f in ranked:
        name = by_factor[id(f)][1].name
        count[name] = count.get(name, 0) + 1
        if count[name] <= PER_SHAPE and not any(f is g for g in out):
            out.append(f)
    return out


def _written(e: float) -> float:
    """Nats for writing an exponent in the shorter of its two ways: as a
    small rational (relax.exponent_cost) or as a decimal (½ is also 0.5)."""
    return min(exponent_cost(e), 0.7 * _digits(e) + 0.5 * math.log(1 + abs(e)))


def _snapped(model, theta: np.ndarray, data: OutputData) -> Optional[np.ndarray]:
    """theta with b, a and p snapped, each kept once snapped, the rest
    refitted; then every constant to its shortest decimal. b, a and p trade
    off along a valley of nearly equal fit, so the order matters: the scale
    first (the author wrote (1 + θ²)^0.7, not (1 + 1.08·θ²)^(2/3)), or the
    exponents first ((1 + 0.15·θ²)^1, not (1 + 0.2·θ²)^0.77); the order whose
    result is written shorter (_written of the exponents, the digits of b)
    and fits within KEPT_FIT is kept."""
    exps = list(range(2, len(theta)))
    best, best_cost = None, math.inf
    for order in ([1] + exps, exps + [1]):
        t = np.array(theta, dtype=float)
        done: list[int] = []
        for j in order:
            t = _snap_one(model, t, j, data, tuple(done))
            done.append(j)
        t = data.snap(model, t)
        if worst_error(model, t, data.X, data.y, data.sw) > KEPT_FIT:
            continue
        cost = sum(_written(float(e)) for e in t[2:]) + _scale_cost(float(t[1]))
        if cost < best_cost - 1e-9:
            best, best_cost = t, cost
    return best


def _scale_cost(b: float) -> float:
    """Nats for writing the scale b: its digits (it is a fitted constant, and
    counted as one; the digits only break ties along the valley)."""
    return 0.35 * _digits(b)


def _snap_one(model, theta: np.ndarray, j: int, data: OutputData, frozen: tuple[int, ...]) -> np.ndarray:
    """theta[j] at the value written shortest (_written for an exponent, within
    0.05 of it; _scale_cost for the scale b, its 1 to 4 significant digits
    within SCALE_WIDTH while an exponent is refitted with it, else within
    half the relative tolerance) among those the data support, the constants neither
    j nor `frozen` refitted: the largest error stays within
    fitting.rounding_bound of the unsnapped one. Unlike relax._snap_exponent,
    which takes the first small rational that fits, the shortest wins: with
    the scale and the other exponent refitted, 2/3 fits where the law has 0.7."""
    bound = rounding_bound(worst_error(model, theta, data.X, data.y, data.sw), data.snap_exact)
    v = float(theta[j])
    decimals = [float(f"{v:.{d - 1}e}") for d in (1, 2, 3, 4)]
    if j == 1:
        # widely only while an exponent is still free to follow it (b = 1 in
        # (1 + θ²)^0.7); else as far as fitting.snap_decimals moves a constant
        # (half the relative tolerance: c² in 1 − v²/c² is no fitted look-alike)
        free_exps = any(i >= 2 and i not in frozen for i in range(len(theta)))
        values, cost = decimals, _scale_cost
        width = (SCALE_WIDTH if free_exps else data.snap_rel) * abs(v)
    else:
        values, cost, width = [float(r) for r in snap_options(v)] + decimals[:3], _written, 0.05 * max(1.0, abs(v))
    free = [i for i in range(len(theta)) if i != j and i not in frozen]
    best, best_cost = theta, cost(v) if v in values else math.inf
    for r in sorted(set(values), key=cost):
        if r == 0 or abs(r - v) > width or cost(r) >= best_cost:
            continue
        trial = np.array(theta, dtype=float)
        trial[j] = r

        def sub(t, X, trial=trial):
            full = trial.copy()
            full[free] = t
            return model(full, X)
        t = refine(sub, trial[free], data.X, data.y, data.sw) if free else np.zeros(0)
        if t is None:
            continue
        trial[free] = t
        if worst_error(model, trial, data.X, data.y, data.sw) <= bound:
            return trial  # the cheapest value that fits (values are tried cheapest first)
    return best


def _admissible(shape: Shape, t: Optional[np.ndarray]) -> Optional[np.ndarray]:
    """Constants t as refined, or None when the refit failed or left b of a
    shape that needs it positive at 0 or below."""
    if t is None or (shape.positive and not t[1] > 0):
        return None
    return t


@dataclass
class _Fit:
    """A screened candidate with the constants of Q/q0 (Shape.to_scaled) refined."""

    s: Screened
    shape: Shape
    qt: Any
    a0: float
    p0: float
    q0: float
    full: Callable[[np.ndarray, dict], np.ndarray]
    theta: np.ndarray
    error: float


def _fit(data: OutputData, s: Screened, shape: Shape, qt: Any, qfn: Callable, a0: float,
         p0: float) -> Optional[_Fit]:
    """(C, b, a, p) of a screened candidate refined together."""
    mono = _monomial_values(data, s.space, s.p, data.X)
    outer = shape.outer
    # Q in units of a power of ten near its median (v/1e8): b·Q^a = b'·(Q/q0)^a
    # with b' of order one, else b and a are one steep valley to the refit
    # (b = −1e−17 beside v^2); b' short is b short for a whole a
    q = qfn(data.X)
    q0 = 10.0 ** round(math.log10(float(np.median(q)))) if shape.scale != "log" else 1.0
    with np.errstate(all="ignore"):
        scaled = q / q0  # Q/q0 at the readings, as the model works it out, once for the refits' hundreds of calls

    def at(X):  # for refine's calls at one X (a held-out refit's subset): M and Q/q0 there worked out once
        m = mono if X is data.X else _monomial_values(data, s.space, s.p, X)
        with np.errstate(all="ignore"):
            qs = scaled if X is data.X else qfn(X) / q0

        def at_X(t):  # under refine's errstate, around the whole fit
            t = t if outer else np.append(t, 1.0)
            return t[0] * m * shape.fn(t[1], qs ** t[2]) ** (t[3] if outer else 1.0)
        return at_X

    def full(t, X):  # the model: its formula is at's
        with np.errstate(all="ignore"):
            return at(X)(t)
    full.at = at
    theta0 = shape.to_scaled(np.array([s.c, s.a, a0, p0] if outer else [s.c, s.a, a0]), q0)

    theta = _admissible(shape, refine(full, theta0, data.X, data.y, data.sw, nfev=FIRST_NFEV)) \
        if data.n > len(theta0) else None
    if theta is None:
        return None
    err = scaled_errors(full(theta, data.X), data.y, data.sw)
    if float(np.max(err)) > HOPELESS_FIT:
        return None
    return _Fit(s, shape, qt, a0, p0, q0, full, theta, float(np.sum(err ** 2)))


def _law(data: OutputData, fit: _Fit) -> Optional[Law]:
    """A refined candidate snapped, as a Law."""
    s, shape, qt, a0, p0, q0, full, theta = (fit.s, fit.shape, fit.qt, fit.a0, fit.p0, fit.q0, fit.full, fit.theta)
    outer = shape.outer

    theta = _admissible(shape, refine(full, theta, data.X, data.y, data.sw, nfev=LAST_NFEV))
    if theta is None or worst_error(full, theta, data.X, data.y, data.sw) > KEPT_FIT:
        return None
    # snapped as written, b in Q's own units: b' short is b short only for a
    # whole a (5240·T^−1.1, not 5248·(T^−1)^1.1); the refits start at the optimum
    def raw(t, X):
        return full(shape.to_scaled(t, q0), X)
    written = _snapped(raw, shape.to_raw(theta, q0), data)
    if written is None or _admissible(shape, written) is None or written[0] == 0 or written[1] == 0 or written[2] == 0:
        return None
    theta = shape.to_scaled(written, q0)
    c, b, a = (float(v) for v in written[:3])
    p = float(written[3]) if outer else 1.0
    if p == 0:
        return None
    tree = product([c] + monomial_tree(s.space.names, s.p) + [power(shape.tree(b, power(qt, a)), p)])
    extra = sum(exponent_cost(e) - _guess_cost(g) for e, g in ((a, a0), (p, p0)) if e != g)

    def refit(idx, theta=np.array(theta)):
        t = refine(full, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if t is None else (lambda X, t=t: full(t, X))
    kind = f"{s.space.label}, power of a sum {shape.name}(b·Q^{fmt(a)})^{fmt(p)}"
    # constants: C and b, and each exponent left real (a small rational is
    # structure, as a monomial's snapped exponents are)
    k = 2 + sum(1 for e in (a, p) if exponent_cost(e) != exponent_penalty(Fraction(e).limit_denominator(3)))
    law = Law(kind, f"{data.output.name} = {tree_text(tree)}", tree, k, s.cost + max(0.0, extra), refit)
    law.set_fit(scaled_errors(full(theta, data.X), data.y, data.sw))
    return law if law.fit_max <= KEPT_FIT else None
