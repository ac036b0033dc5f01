"""The grammar's core: monomials times at most one function, screened and fitted.

A candidate here is `T⁻¹[C·Π xᵢ^pᵢ · h]`: an output transform T (y, 1/y,
sin y or tan y of an angle; y², 1/y² and √y for the sums), a space of
exponents p (fixed by the units up to the dimensionless groups, or free;
snapped to small rationals or a short decimal) and a factor h (1, a power
of the sine, cosine or tangent of an angle, or a unary u(a·Q) of an
argument Q with a rate a on a grid). The families (sums.py, kinetics.py,
bernoulli.py, saturation.py, oscillation.py, relax.py, derived.py) build
on these pieces; search.py runs them in turn.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from .dims import Dimensions, independent
from .fitting import (Law, best_scale, decimal_exponent, exponent_penalty, refine, scaled_errors, snap_decimals,
                      snap_options, worst_error)
from .task import Input, Output, fmt
from .trees import op, power, product, tree_text, var

#: Refined candidates kept per family after screening.
KEEP_PER_FAMILY = 2
#: A screened candidate whose mean squared error is above HOPELESS
#: tolerances² is not refined (measured on the bundled cards and a third
#: of the Feynman set, Fixed and Adaptive: none above 10 came within the
#: tolerance after its refit; above 100 is 55% of all refits), except the
#: REFINED_ANYWAY best overall, so that a law that fits nothing still has
#: its best approximations.
HOPELESS = 100.0
REFINED_ANYWAY = 4
#: Factors whose first cut is refined around its best rate (the best by the coarse cut).
CUT_REFINED = 72
#: Function factors screened in full per space, after a cheap first cut.
FUNCTIONS_SCREENED = 24
#: A simple law whose largest in-sample error is below this many tolerances
#: reproduces noisy readings: no exponent of any law is relaxed (relax.py);
#: exact readings are reproduced within their rounding (exact_fit).
EXACT_FIT = 0.25
#: Grid of |a·Q| values (at the median Q) tried for a function's argument.
ARGUMENT_GRID = np.geomspace(0.01, 100.0, 25)


@dataclass(frozen=True)
class Transform:
    """An output transform z = T(y) with its inverse as numpy and as a tree."""

    name: str
    forward: Callable[[np.ndarray], np.ndarray]
    inverse: Callable[[np.ndarray], np.ndarray]
    tree: Callable[[Any], Any]
    cost: float


def exact_fit(data: "OutputData") -> float:
    """Tolerances within which a law reproduces the readings: EXACT_FIT for
    noisy ones, else their rounding (half a resolution step) plus 0.02."""
    if data.output.noisy:
        return EXACT_FIT
    return min(EXACT_FIT, 0.02 + float(np.max(0.5 * data.output.resolution / data.sw, initial=0.0)))


def transforms(output: Output) -> list[Transform]:
    ident = Transform("y", lambda y: y, lambda z: z, lambda t: t, 0.0)
    recip = Transform("1/y", lambda y: 1.0 / y, lambda z: 1.0 / z, lambda t: op("div", 1.0, t), 1.5)
    out = [ident, recip]
    f = output.angle
    if f:
        out.append(Transform("sin y", lambda y: np.sin(f * y), lambda z: np.arcsin(z) / f,
                             lambda t: op("div", op("asin", t), f), 1.5))
        out.append(Transform("tan y", lambda y: np.tan(f * y), lambda z: np.arctan(z) / f,
                             lambda t: op("div", op("atan", t), f), 1.5))
    return out


#: The power of y each transform takes the units to (for a sum's dimensional dictionary).
TRANSFORM_POWER = {"y": 1, "1/y": -1, "y^2": 2, "1/y^2": -2}


def square_transforms(y: np.ndarray) -> list[Transform]:
    """y², 1/y² and √y for an output of one sign (sums of squares under a
    root: distances, relativistic and drag laws; the square of a sum: a
    tank's level (√h0 − k·t)²), the sign kept outside. √y has no units of
    its own in a sum's dictionary (its terms are free)."""
    if not len(y) or not (np.all(y > 0) or np.all(y < 0)):
        return []
    sg = 1.0 if y[0] > 0 else -1.0

    def signed(t):
        return t if sg > 0 else op("mul", -1.0, t)
    return [Transform("y^2", np.square, lambda z: sg * np.sqrt(z), lambda t: signed(op("sqrt", t)), 2.0),
            Transform("1/y^2", lambda y_: 1.0 / np.square(y_), lambda z: sg / np.sqrt(z),
                      lambda t: signed(op("div", 1.0, op("sqrt", t))), 2.0),
            Transform("√y", lambda y_: np.sqrt(sg * y_), lambda z: sg * np.square(z),
                      lambda t: signed(power(t, 2.0)), 2.0)]


@dataclass(frozen=True)
class Unary:
    """u in u(a·Q): numpy, tree, description length, whether a must be > 0."""

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    tree: Callable[[Any], Any]
    cost: float
    positive: bool = False


def _pow1(b: float) -> Unary:
    return Unary(f"(1+·)^{fmt(b)}", lambda z: (1.0 + z) ** b, lambda t: power(op("add", 1.0, t), b),
                 2.5 + exponent_penalty(Fraction(b).limit_denominator(2)))


UNARIES = (
    Unary("exp", np.exp, lambda t: op("exp", t), 2.0),
    *[_pow1(b) for b in (-1.0, 1.0, -0.5, 0.5, 2.0, -2.0)],
    Unary("sin", np.sin, lambda t: op("sin", t), 2.5),
    Unary("cos", np.cos, lambda t: op("cos", t), 2.5),
    Unary("tanh", np.tanh, lambda t: op("tanh", t), 3.0),
    Unary("log", np.log, lambda t: op("log", t), 2.5, positive=True),
    Unary("1/(exp-1)", lambda z: 1.0 / np.expm1(z), lambda t: op("div", 1.0, op("sub", op("exp", t), 1.0)), 4.0),
    Unary("1/(exp+1)", lambda z: 1.0 / (np.exp(z) + 1.0), lambda t: op("div", 1.0, op("add", op("exp", t), 1.0)), 4.0),
    Unary("exp-1", np.expm1, lambda t: op("sub", op("exp", t), 1.0), 3.0),
    Unary("1/cosh", lambda z: 1.0 / np.cosh(z), lambda t: op("div", 1.0, op("cosh", t)), 4.0),
    Unary("1-cos", lambda z: 1.0 - np.cos(z), lambda t: op("sub", 1.0, op("cos", t)), 3.0),
)


@dataclass(frozen=True)
class Factor:
    """A fixed-shape factor h(x; a) of the law (an angle feature or u(a·Q))."""

    label: str
    values: Callable[[float, dict], np.ndarray]  # (a, X) -> h
    tree: Callable[[float], Any]
    cost: float
    grid: tuple[float, ...] = ()  # values of a to screen; () for no constant
    group: bool = True  # its argument is a dimensionless group (no hidden constant needed)
    batch: Optional[Callable[[tuple], np.ndarray]] = None  # h at the observed points for a grid of a
    #: h at one X as a function of a alone, with what does not depend on a (its
    #: argument Q) worked out once: for a refit's many calls at one X (law_from)
    at: Optional[Callable[[dict], Callable[[float], np.ndarray]]] = None

    @property
    def kind(self) -> str:
        """The factor's function with its argument left out (`exp`, `sin(1·theta)^1`)."""
        return self.label.split("(a")[0]


class OutputData:
    """One output's observations, in declared units, with its tolerance scale."""

    def __init__(self, inputs: list[Input], output: Output, X: dict[str, np.ndarray], y: np.ndarray,
                 dims: Optional[Dimensions]):
        self.inputs, self.output, self.X, self.y, self.dims = inputs, output, X, y, dims
        self.n = len(y)
        self.sw = output.scale(y)
        self.w = 1.0 / self.sw ** 2
        self.positive = [i for i in inputs if i.positive and i.angle is None and i.varies]
        #: How far a constant may be rounded: half the relative tolerance the
        #: strict check allows constants (fitting.snap_decimals).
        self.snap_rel = output.tol_rel / 2 if output.tol_rel > 0 else 1e-6
        #: On exact readings (noise-free), the tolerances within which a rounded
        #: constant must still reproduce them (fitting.rounding_bound); None on noisy ones.
        self.snap_exact = None if output.noisy else exact_fit(self)
        with np.errstate(all="ignore"):
            self.logs = {i.name: np.log(X[i.name]) for i in self.positive}

    def snap(self, model: Callable[[np.ndarray, dict], np.ndarray], theta: np.ndarray) -> np.ndarray:
        """The constants rounded to short decimals these readings support
        (fitting.snap_decimals, with their relative width and, on exact
        readings, their rounding bound)."""
        return snap_decimals(model, theta, self.X, self.y, self.sw, self.snap_rel, exact=self.snap_exact)


def monomial_tree(names: list[str], p: list[Fraction]) -> list:
    return [power(var(nm), float(e)) for nm, e in zip(names, p) if e != 0]


def monomial_text(names: list[str], p: list[Fraction]) -> str:
    return "·".join(nm if e == 1 else f"{nm}^{e}" for nm, e in zip(names, p) if e != 0) or "1"


@dataclass
class Space:
    """Monomial exponents p = p0 + G·t over `names` (t fitted and snapped)."""

    names: list[str]
    p0: list[Fraction]
    directions: list[list[Fraction]]
    label: str
    cost: float  # nats for the choice of space (dimensional is cheaper)


def spaces(data: OutputData, transform: Transform) -> list[Space]:
    """The dimensional space (when the units fix the prefactor) and the free one."""
    out = []
    d = data.dims
    if d is not None and d.determined and transform.name in ("y", "1/y"):
        sign = 1 if transform.name == "y" else -1
        k = len(d.basis)
        G = [[Fraction(x) for x in g] for g in independent(d.groups, k)] if k else []
        out.append(Space(list(d.names), [sign * x for x in d.prefactor], G, "dimensional analysis", 0.0))
    names = [i.name for i in data.positive]
    eye = [[Fraction(int(i == j)) for j in range(len(names))] for i in range(len(names))]
    free_cost = 2.0 if out else 0.5
    out.append(Space(names, [Fraction(0)] * len(names), eye, "free exponents", free_cost))
    return out


@dataclass
class Screened:
    """A screened candidate: structure and first-pass constants."""

    err: float
    cost: float
    transform: Transform
    space: Space
    factor: Factor
    a: float
    p: list[Fraction]
    c: float


def z_scale(data: OutputData, tr: Transform) -> tuple[np.ndarray, np.ndarray]:
    """The transformed target and its tolerance scale (by finite differences)."""
    with np.errstate(all="ignore"):
        z = tr.forward(data.y)
        sz = np.abs(tr.forward(data.y + data.sw) - tr.forward(data.y - data.sw)) / 2
    return z, sz


def monomial_values(X: dict, names: list[str], p) -> np.ndarray:
    """Π xₖ^pₖ at the points X (the zero powers left out)."""
    n = len(next(iter(X.values()))) if X else 1
    f = np.ones(n)
    with np.errstate(all="ignore"):
        for nm, e in zip(names, p):
            if e != 0:
                f = f * np.power(X[nm], float(e))
    return f


def _monomial_values(data: OutputData, space: Space, p: list[Fraction], X: dict) -> np.ndarray:
    return monomial_values(X, space.names, p)


def _log_fit(data: OutputData, factor: Factor, grid: tuple, st: _Setup):
    """Weighted log-space least squares for every a of the grid at once:
    (coefficients, residuals, the a values kept, their factor values)."""
    base, rows, sign = st.base, st.rows, st.sign
    # one errstate for the whole fit and the arrays' own reductions (not np.all's
    # wrappers): tens of thousands of calls a search, the same operations
    with np.errstate(all="ignore"):
        H = factor.batch(grid) if factor.batch else np.column_stack([factor.values(a, data.X) for a in grid])
        # h must change sign where y does, and nowhere else (judged where y ≠ 0:
        # a controlled design often measures y = 0, e.g. at equal concentrations)
        Hr = H[rows]
        S = Hr * sign[rows][:, None]
        good = (np.isfinite(Hr) & (Hr != 0)).all(axis=0) & ((S > 0).all(axis=0) | (S < 0).all(axis=0))
        if not good.any():
            return None
        A, sw, Aw = st.design
        R = (base[:, None] - np.log(np.abs(H[:, good])))[rows]
        try:
            coef, *_ = np.linalg.lstsq(Aw, R * sw, rcond=None)
        except (np.linalg.LinAlgError, ValueError):
            return None
        resid = (((A @ coef - R) * sw) ** 2).sum(axis=0)
    return coef, resid, list(itertools.compress(grid, good)), H[:, good]


@functools.lru_cache(maxsize=64)
def _spread(step: float, num: int) -> np.ndarray:
    """np.geomspace(1 / step, step, num), made once per (step, num): _zoom and
    first_cut ask for the same few (their steps are fixed) tens of thousands
    of times a search, and geomspace's set-up costs more than the product.
    Read-only, as it is shared."""
    out = np.geomspace(1 / step, step, num)
    out.flags.writeable = False
    return out


def _zoom(data: OutputData, factor: Factor, grid: tuple, step: float, st: _Setup, rounds: int):
    """The best a on the grid, zoomed in `rounds` times: (coef, a, h) or None."""
    for _ in range(rounds):
        fit = _log_fit(data, factor, grid, st)
        if fit is None:
            return None
        coef, resid, kept, H = fit
        col = int(np.argmin(resid))
        grid = tuple(kept[col] * _spread(step, 9))
        step = step ** 0.4
    return coef[:, col], kept[col], H[:, col]


def _exponents(space: Space, ts) -> list[Fraction]:
    """p0 + G·t, exactly. The zero products are left out (the free space's G
    is the identity, and snapped exponents are often 0): the same sums, as
    rationals add exactly, for a tenth of the Fraction arithmetic."""
    moved = [(Fraction(ti), g) for ti, g in zip(ts, space.directions) if ti != 0]
    return [p0 + sum((ti * g[j] for ti, g in moved if g[j] != 0), Fraction(0))
            for j, p0 in enumerate(space.p0)]


@dataclass
class _Setup:
    """What screening one (transform, space) shares across factors."""

    z: np.ndarray
    wz: np.ndarray
    logz: np.ndarray
    base: np.ndarray
    L: list
    rows: np.ndarray
    wlog: np.ndarray
    sign: np.ndarray

    @functools.cached_property
    def design(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, √w, A·√w) of the log-space fit: the same for every factor and
        rate screened on this setup (hundreds of fits), so built once."""
        A = np.column_stack([np.ones(len(self.rows))] + self.L)[self.rows]
        sw = np.sqrt(self.wlog)[:, None]
        return A, sw, A * sw


def setup(data: OutputData, tr: Transform, space: Space) -> Optional[_Setup]:
    z, sz = z_scale(data, tr)
    with np.errstate(all="ignore"):
        L = [sum((float(g[j]) * data.logs[nm] for j, nm in enumerate(space.names) if g[j] != 0),
                 np.zeros(data.n)) for g in space.directions]
        logz = np.log(np.abs(z))
    rows = np.isfinite(logz) & np.all([np.isfinite(col) for col in L] or [np.ones(data.n, bool)], axis=0)
    if rows.sum() < len(L) + 1:
        return None
    wz = 1.0 / np.maximum(sz, 1e-300) ** 2
    wlog = np.where(np.isfinite(z), (np.abs(z) / np.maximum(sz, 1e-300)) ** 2, 0)[rows]
    sign = np.where(np.isfinite(z), np.sign(z), 1.0)
    return _Setup(z, wz, logz, logz - _log_monomial(data, space.names, space.p0), L, rows, wlog, sign)


def prescore(data: OutputData, st: _Setup, factor: Factor) -> tuple[float, Optional[float]]:
    """The best log-space residual on the factor's coarse grid, and the rate
    where it is (None without a constant): a cheap first cut."""
    fit = _log_fit(data, factor, factor.grid or (0.0,), st)
    if fit is None:
        return math.inf, None
    best = int(np.argmin(fit[1]))
    return float(fit[1][best]), (fit[2][best] if factor.grid else None)


def first_cut(data: OutputData, st: _Setup, factors: list[Factor]) -> dict[int, float]:
    """Each factor's first cut (prescore + 2·cost), the CUT_REFINED best
    refined once around their best rate: a steep factor such as 1 − cos is
    poor between grid values, however well it fits at its rate."""
    step = float(ARGUMENT_GRID[1] / ARGUMENT_GRID[0])
    coarse = {id(f): (prescore(data, st, f), f) for f in factors}
    cut = {k: r + 2 * f.cost for k, ((r, _), f) in coarse.items()}
    for k in sorted(cut, key=cut.get)[:CUT_REFINED]:
        (r, a), f = coarse[k]
        if a is None:
            continue
        near = _log_fit(data, f, tuple(a * _spread(step, 7)), st)
        if near is not None:
            cut[k] = min(r, float(np.min(near[1]))) + 2 * f.cost
    return cut


def screen(data: OutputData, tr: Transform, space: Space, factor: Factor,
           st: Optional[_Setup] = None) -> list[Screened]:
    """Log-space least squares of the monomial for every a on the factor's
    grid, zoomed in around the best a; then, for each way of snapping the
    exponents, a again with the exponents fixed."""
    st = st or setup(data, tr, space)
    if st is None:
        return []
    z, wz, logz = st.z, st.wz, st.logz
    step = float(ARGUMENT_GRID[1] / ARGUMENT_GRID[0])
    first = _zoom(data, factor, factor.grid or (0.0,), step, st, 4 if factor.grid else 1)
    if first is None:
        return []
    coef, a, h = first
    options = [snap_options(float(x)) for x in coef[1:]]
    combos = list(itertools.islice(itertools.product(*options), 2)) if len(options) <= 5 else \
        [tuple(o[0] for o in options)]
    if factor.grid and options:  # the factor alone: a rate constant and a power of the input trade off
        combos.append(tuple(Fraction(0) for _ in options))
    decimal = tuple(decimal_exponent(float(x)) for x in coef[1:])
    if decimal not in combos:  # exponents a law's author wrote as decimals (r^2.6)
        combos.append(decimal)
    best = alone = None
    for ts in combos:
        p = _exponents(space, ts)
        if factor.grid:
            # a afresh from the whole grid: with the exponents snapped, the
            # rate that fitted the free exponents may be far from this one's
            fixed = replace(st, base=logz - _log_monomial(data, space.names, p), L=[])
            again = _zoom(data, factor, tuple(factor.grid) + (a,), step, fixed, 4)
            if again is None:
                continue
            _, a_p, h_p = again
        else:
            a_p, h_p = a, h
        f = _monomial_values(data, space, p, data.X) * h_p
        ok = np.isfinite(f) & np.isfinite(z)
        c = best_scale(f[ok], z[ok], wz[ok]) if np.any(ok) else None
        if c is None:
            continue
        with np.errstate(all="ignore"):
            err = float(np.sum(scaled_errors(tr.inverse(c * f), data.y, data.sw) ** 2))
        pen = sum(exponent_penalty(Fraction(x)) for x in ts)
        if best is None or err + 2 * pen < best[0] + 2 * best[1]:
            best = (err, pen, p, c, a_p)
        if factor.grid and not any(ts):
            alone = (err, pen, p, c, a_p)
    # the factor alone is kept too: its rate constant, screened in log space
    # on rounded readings, may be off until the nonlinear refit
    return [Screened(err, space.cost + factor.cost + tr.cost + pen + 0.3 * sum(1 for x in p if x != 0),
                     tr, space, factor, a_p, p, c)
            for err, pen, p, c, a_p in ([best] if best is not None else []) + ([alone] if alone and alone is not best else [])]


def _log_monomial(data: OutputData, names: list[str], p: list[Fraction]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return sum((float(e) * data.logs[nm] for nm, e in zip(names, p) if e != 0), np.zeros(data.n))


def angle_factors(data: OutputData) -> list[Factor]:
    out = [Factor("", lambda a, X: np.ones(len(next(iter(X.values())))) if X else np.ones(1),
                  lambda a: 1.0, 0.0)]
    for inp in data.inputs:
        f = inp.angle
        if not f or not inp.varies:
            continue
        for fn, k, cost in (("sin", 1, 1.5), ("cos", 1, 1.5), ("tan", 1, 2.0), ("sin", 2, 2.5), ("cos", 2, 2.5)):
            for pw in (1.0, 2.0):
                out.append(Factor(f"{fn}({k}·{inp.name})^{pw:g}",
                                  lambda a, X, fn=fn, k=k, n=inp.name, pw=pw, f=f:
                                  getattr(np, fn)(k * f * X[n]) ** pw,
                                  lambda a, fn=fn, k=k, n=inp.name, pw=pw, f=f:
                                  power(op(fn, op("mul", k * f, var(n))), pw), cost + (pw - 1)))
    return out


@dataclass(frozen=True)
class Argument:
    """An argument Q of u(a·Q): how it is written, its tree, its values at
    given points, and its description length (0 for a dimensionless group;
    more when a hidden constant must make it dimensionless)."""

    text: str
    tree: Any
    values: Callable[[dict], np.ndarray]
    cost: float


def arguments(data: OutputData) -> list[Argument]:
    """Arguments Q of u(a·Q): dimensionless groups first, then single inputs
    and ratios, products and reciprocals of products of two (which need a
    hidden constant in a)."""
    out = []
    d = data.dims
    if d is not None:
        for g in d.groups[:6]:
            for e in (1, -1, 2, -2):
                p = [Fraction(e * x) for x in g]
                names = list(d.names)
                out.append(Argument(monomial_text(names, p), product(monomial_tree(names, p)),
                            lambda X, names=names, p=p: _mono(X, names, p), 0.0))
    hidden = 0.0 if d is None or not d.groups else 1.0
    determined = d is not None and d.determined and len(d.names) == len([i for i in data.inputs if i.angle is None])
    nonneg = [i for i in data.inputs if i.angle is None and i.varies and i.lo >= 0]
    for i in nonneg:
        for e in ((1, 2, -1) if i.positive else (1, 2)):
            p = [Fraction(e)]
            out.append(Argument(monomial_text([i.name], p), power(var(i.name), e),
                        lambda X, n=i.name, e=e: np.power(X[n], float(e)), hidden))
    for i in [i for i in data.inputs if i.angle is None and i.varies and i.lo < 0 < i.hi]:
        # an input of either sign enters an even function through its square
        # (a Gaussian): alone, or over the square of a positive input of its dimension
        out.append(Argument(f"{i.name}^2", power(var(i.name), 2), lambda X, n=i.name: np.square(X[n]),
                    0.0 if i.dim is not None and not np.any(i.dim) else hidden))
        for j in nonneg:
            if j.positive and i.dim is not None and j.dim is not None and np.allclose(i.dim, j.dim):
                out.append(Argument(f"{i.name}^2·{j.name}^-2", op("pow", op("div", var(i.name), var(j.name)), 2.0),
                            lambda X, a=i.name, b=j.name: np.square(X[a] / X[b]), 0.0))
    # pairs: only for a hidden constant (also when the units fix the prefactor but leave no group: t/(R·C))
    for i, j in itertools.permutations(nonneg if not determined or not d.groups else [], 2):
        for ei, e in ((1, 1), (1, -1), (-1, -1)) if i.positive and j.positive else \
                ((1, 1), (1, -1)) if j.positive else ((1, 1),):
            if ei == e and i.name > j.name:  # i·j and 1/(i·j) once a pair (Planck's 1/(λ·T))
                continue
            names, p = [i.name, j.name], [Fraction(ei), Fraction(e)]
            out.append(Argument(monomial_text(names, p), product(monomial_tree(names, p)),
                        lambda X, names=names, p=p: _mono(X, names, p), hidden + 0.5))
    return _unique(out)


def _unique(items: list[Argument]) -> list[Argument]:
    seen, unique = set(), []
    for item in items:
        if item.text not in seen:
            seen.add(item.text)
            unique.append(item)
    return unique


def _mono(X: dict, names: list[str], p: list[Fraction]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.prod([np.power(X[nm], float(e)) for nm, e in zip(names, p) if e != 0], axis=0)


def function_factors(data: OutputData) -> list[Factor]:
    """u(a·Q) for every unary u and argument Q, with a grid of a."""
    out = []
    for arg in arguments(data):
        text, qtree, qfn, qcost = arg.text, arg.tree, arg.values, arg.cost
        q = qfn(data.X)
        if q is None or not np.all(np.isfinite(q)):
            continue
        med = float(np.median(np.abs(q))) or 1.0
        for u in UNARIES:
            signs = (1.0,) if u.positive else (1.0, -1.0)
            grid = tuple(float(s * g / med) for s in signs for g in ARGUMENT_GRID)
            out.append(Factor(f"{u.name}(a·{text})",
                              lambda a, X, u=u, qfn=qfn, q=q: u.fn(a * (q if X is data.X else qfn(X))),
                              lambda a, u=u, qtree=qtree: u.tree(op("mul", a, qtree)),
                              u.cost + qcost, grid, qcost == 0.0,
                              lambda g, u=u, q=q: u.fn(np.outer(q, np.asarray(g, float))),
                              functools.partial(_unary_at, u.fn, qfn, q, data.X)))
        if qcost == 0.0 and text.count("^-") + text.count("·") and np.all(q > 0):
            out.append(_log_mix(text, qtree, qfn, q))
    return out


def _unary_at(fn: Callable, qfn: Callable[[dict], np.ndarray], q: np.ndarray, X0: dict,
              X: dict) -> Callable[[float], np.ndarray]:
    """u(a·Q) at X as a function of a: Factor.values' u.fn(a·Q) with Q (q at the
    readings X0, else qfn(X)) worked out once instead of at every call."""
    qX = q if X is X0 else qfn(X)
    return lambda a: fn(a * qX)


#: Mixing fractions a screened in log-mix(a·Q) = log((Q + a)/(1 + a·Q)).
MIX_GRID = tuple(float(g) for g in np.geomspace(1e-3, 0.9, 25))


def _log_mix(text: str, qtree: Any, qfn: Callable[[dict], np.ndarray], q: np.ndarray) -> Factor:
    """The log of a ratio of two mixtures, log((Q + a)/(1 + a·Q)), for a
    ratio Q of like quantities: the Goldman–Hodgkin–Katz potential, where a
    is the relative permeability of the counter path (a = 0: log Q)."""
    def fn(a, qv):
        return np.log((qv + a) / (1.0 + a * qv))
    return Factor(f"log-mix(a·{text})", lambda a, X: fn(a, qfn(X)),
                  lambda a: op("log", op("div", op("add", qtree, a), op("add", 1.0, op("mul", a, qtree)))),
                  4.0, MIX_GRID, True, lambda g: fn(np.asarray(g, float)[None, :], q[:, None]))


def law_from(data: OutputData, s: Screened) -> Optional[Law]:
    """Refine (C, a) of a screened candidate and wrap it as a Law."""
    tr, space, factor, p = s.transform, s.space, s.factor, s.p
    mono = _monomial_values(data, space, p, data.X)  # the same at every refit step at the readings

    def at(X):  # for refine's calls at one X (a held-out refit's subset): the monomial and Q there once
        m = mono if X is data.X else _monomial_values(data, space, p, X)
        h = factor.at(X) if factor.at is not None else (lambda a: factor.values(a, X))
        return lambda theta: tr.inverse(theta[0] * m * h(theta[1] if factor.grid else 0.0))

    def model(theta, X):  # its formula is at's
        return at(X)(theta)
    model.at = at

    theta0 = np.array([s.c, s.a] if factor.grid else [s.c])
    linear = not factor.grid and tr.name == "y"  # y = C·f(x): C in closed form
    if linear:
        theta = theta0
    else:
        theta = refine(model, theta0, data.X, data.y, data.sw) if data.n > len(theta0) else theta0
        theta = _recognise(model, theta0 if theta is None else theta, data)
    tree = tr.tree(product([float(theta[0])] + monomial_tree(space.names, p)
                           + ([factor.tree(float(theta[1]) if factor.grid else 0.0)] if factor.label else [])))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        if linear:
            f = mono[idx] * factor.values(0.0, {k: v[idx] for k, v in data.X.items()})
            c = best_scale(f, data.y[idx], data.w[idx])
            t = None if c is None else np.array([c])
        else:
            t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=10)
        return None if t is None else (lambda X, t=t: model(t, X))
    kind = space.label + (f", {factor.label}" if factor.label else "") + (f", {tr.name}" if tr.name != "y" else "")
    law = Law(kind, text, tree, len(theta), s.cost, refit)
    law.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    return law


_NICE = tuple(sorted({float(Fraction(n, d)) for n in range(1, 13) for d in (1, 2, 3, 4, 6)}))


def _recognise(model, theta: np.ndarray, data: OutputData) -> np.ndarray:
    """Constants of a function's argument snapped to a simple fraction, or
    to one times π, when the fit stays as good (π and e written exactly):
    its largest error at most 1.5 times the unsnapped fit's, or within the
    readings' rounding (exact_fit). Not rounding_bound's 0.3 tolerances:
    on readings exact to a tenth of a tolerance, 17 snapped to (16/3)·π
    fits within that, twelve times worse than 17."""
    if len(theta) < 2 or data.n == 0:
        return theta
    a = float(theta[1])
    bound = max(1.5 * worst_error(model, theta, data.X, data.y, data.sw), exact_fit(data))
    for scale in (1.0, math.pi, 2 * math.pi):
        r = abs(a) / scale
        nice = min(_NICE, key=lambda v: abs(v - r))
        if abs(nice - r) > 0.02 * r:
            continue
        trial = np.array([theta[0], math.copysign(nice * scale, a)])
        c = refine(lambda t, X: model(np.array([t[0], trial[1]]), X), trial[:1], data.X, data.y, data.sw)
        if c is not None:
            trial[0] = c[0]
        if worst_error(model, trial, data.X, data.y, data.sw) <= bound:
            return trial
    return theta


def _shortlist(factors: list[Factor], cut: Callable[[Factor], float]) -> list[Factor]:
    """The FUNCTIONS_SCREENED factors best by the first cut, and the best of
    each unary besides: with a free exponent beside it, many factors fit
    the coarse cut alike, and the right one may rank just below the line."""
    ranked = sorted(factors, key=cut)
    out, unaries = ranked[:FUNCTIONS_SCREENED], {f.kind for f in ranked[:FUNCTIONS_SCREENED]}
    for f in ranked[FUNCTIONS_SCREENED:]:
        if f.kind not in unaries:
            unaries.add(f.kind)
            out.append(f)
    return out


def _screened(data: OutputData, quick: bool) -> list[Screened]:
    """Every (transform, space, factor) screened; function factors only
    for the plain output, and not in the free space when the units fix
    the law up to its groups."""
    screened: list[Screened] = []
    plain = angle_factors(data)
    funcs = function_factors(data) if data.n >= 3 and not quick else []
    determined = data.dims is not None and data.dims.determined
    for tr in transforms(data.output):
        for space in spaces(data, tr):
            st = setup(data, tr, space)
            if st is None:
                continue
            for factor in plain:
                screened.extend(screen(data, tr, space, factor, st))
            if tr.name != "y" or (determined and data.dims.groups and space.label == "free exponents"):
                continue
            cut = first_cut(data, st, funcs)
            for factor in _shortlist(funcs, lambda f: cut[id(f)]):
                screened.extend(screen(data, tr, space, factor, st))
    return screened


def monomial_laws(data: OutputData, quick: bool = False) -> list[Law]:
    """The screened monomials (times one factor), the best KEEP_PER_FAMILY
    of each kind refined into Laws; hopeless ones only among the
    REFINED_ANYWAY best overall."""
    screened = _screened(data, quick)
    laws: list[Law] = []
    families: dict[str, list[Screened]] = {}
    for s in screened:
        families.setdefault(f"{s.transform.name}|{s.space.label}|{s.factor.kind}", []).append(s)
    best = sorted(screened, key=lambda s: s.err + 2 * s.cost)[:REFINED_ANYWAY]
    for group in families.values():
        group.sort(key=lambda s: s.err + 2 * s.cost)
        for s in group[:KEEP_PER_FAMILY]:
            if s.err > HOPELESS * max(data.n, 1) and not any(s is b for b in best):
                continue
            law = law_from(data, s)
            if law is not None:
                laws.append(law)
    return laws
