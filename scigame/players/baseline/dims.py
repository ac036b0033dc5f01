"""Dimensional analysis on the SI dimension vectors of the public view.

Buckingham π: the inputs' dimension matrix D (base dimensions × inputs),
its nullspace (the dimensionless groups, exact, with sympy), and a
particular solution of D·p = dim(output) (the dimensional prefactor).
When the output's dimension is outside the span of the inputs' dimensions
the law must carry a hidden dimensional constant, and the prefactor's
exponents are left to the data.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

import numpy as np

from ...compiler.units import BASE_DIMENSIONS
from .task import Input, Output

#: Largest exponent of an input in an enumerated dimensionless group.
GROUP_EXPONENT = 3
#: Dimensionless groups kept, simplest first.
MAX_GROUPS = 24


@dataclass(frozen=True)
class Dimensions:
    """What the units say about one output's law."""

    names: tuple[str, ...]  # the inputs the analysis covers (positive, not angles)
    prefactor: Optional[tuple[Fraction, ...]]  # exponents with exactly the output's dimension, or None
    basis: tuple[tuple[Fraction, ...], ...]  # a nullspace basis (one vector per group)
    groups: tuple[tuple[int, ...], ...]  # small integer dimensionless groups, simplest first

    @property
    def determined(self) -> bool:
        """True when no hidden dimensional constant is needed."""
        return self.prefactor is not None


def _key(vectors: list[np.ndarray]) -> tuple:
    return tuple(tuple(Fraction(v).limit_denominator(1000) for v in vec) for vec in vectors)


def analyse(inputs: list[Input], output: Output) -> Optional[Dimensions]:
    """The analysis for the positive, non-angle inputs with known dimensions;
    None when the task carries no dimension vectors."""
    usable = [i for i in inputs if i.dim is not None and i.positive and i.angle is None and i.varies]
    if output.dim is None or not usable:
        return None
    cols = _key([i.dim for i in usable])
    target = _key([output.dim])[0]
    prefactor, basis = _solve(cols, target)
    groups = _groups(basis, len(usable))
    return Dimensions(tuple(i.name for i in usable), prefactor, basis, groups)


@functools.lru_cache(maxsize=256)
def _solve(cols: tuple, target: tuple) -> tuple[Optional[tuple], tuple]:
    """(simplest particular solution or None, nullspace basis), exactly."""
    import sympy

    D = sympy.Matrix([[sympy.Rational(c[r].numerator, c[r].denominator) for c in cols]
                      for r in range(len(target))])
    b = sympy.Matrix([sympy.Rational(t.numerator, t.denominator) for t in target])
    basis = [tuple(Fraction(int(x.p), int(x.q)) for x in v) for v in D.nullspace()]
    try:
        sol, params = D.gauss_jordan_solve(b)
    except ValueError:
        return None, tuple(basis)
    base = [Fraction(int(x.p), int(x.q)) for x in sol.subs({p: 0 for p in params})]
    return _simplest(base, basis), tuple(basis)


def _simplest(base: list[Fraction], basis: list[tuple]) -> tuple[Fraction, ...]:
    """The particular solution with the fewest and smallest exponents among
    base + Σ t·basis for small integer t (the textbook prefactor is usually
    the simplest monomial with the right units)."""
    best, best_cost = tuple(base), None
    span = range(-2, 3) if len(basis) <= 4 else range(-1, 2)
    for ts in itertools.product(span, repeat=min(len(basis), 5)):
        p = [b + sum((t * v[j] for t, v in zip(ts, basis)), Fraction(0)) for j, b in enumerate(base)]
        cost = (sum(1 for x in p if x != 0), sum(abs(x) for x in p), sum(x.denominator != 1 for x in p))
        if best_cost is None or cost < best_cost:
            best, best_cost = tuple(p), cost
    return best


@functools.lru_cache(maxsize=256)
def _groups(basis: tuple, m: int) -> tuple[tuple[int, ...], ...]:
    """Small integer vectors in the nullspace: combinations of the basis
    with small coefficients, scaled to integers, one sign, simplest first."""
    if not basis:
        return ()
    found: dict[tuple[int, ...], tuple] = {}
    span = range(-2, 3) if len(basis) <= 3 else range(-1, 2)
    for ts in itertools.product(span, repeat=min(len(basis), 6)):
        if not any(ts):
            continue
        v = [sum((t * b[j] for t, b in zip(ts, basis)), Fraction(0)) for j in range(m)]
        den = np.lcm.reduce([x.denominator for x in v])
        ints = [int(x * den) for x in v]
        g = np.gcd.reduce([abs(x) for x in ints if x]) or 1
        ints = [x // g for x in ints]
        first = next(x for x in ints if x)
        ints = tuple(-x if first < 0 else x for x in ints)
        if max(abs(x) for x in ints) > GROUP_EXPONENT:
            continue
        found[ints] = (sum(1 for x in ints if x), sum(abs(x) for x in ints))
    return tuple(sorted(found, key=lambda v: (found[v], v))[:MAX_GROUPS])


def independent(groups: tuple[tuple[int, ...], ...], k: int) -> list[tuple[int, ...]]:
    """The first k linearly independent groups (a basis of simple groups)."""
    chosen: list[tuple[int, ...]] = []
    for g in groups:
        trial = np.array(chosen + [g], dtype=float)
        if np.linalg.matrix_rank(trial) == len(trial):
            chosen.append(g)
        if len(chosen) == k:
            break
    return chosen


#: Universal constants for the no-data guess: (symbol, SI value, dimension by base name).
CONSTANTS = (
    ("G", 6.674e-11, {"mass": -1, "length": 3, "time": -2}),
    ("g", 9.81, {"length": 1, "time": -2}),
    ("c", 2.998e8, {"length": 1, "time": -1}),
    ("R", 8.314, {"mass": 1, "length": 2, "time": -2, "temperature": -1, "substance": -1}),
    ("k_B", 1.381e-23, {"mass": 1, "length": 2, "time": -2, "temperature": -1}),
    ("sigma", 5.670e-8, {"mass": 1, "time": -3, "temperature": -4}),
    ("h", 6.626e-34, {"mass": 1, "length": 2, "time": -1}),
    ("e", 1.602e-19, {"time": 1, "current": 1}),
)
BASE_NAMES = tuple(sorted(BASE_DIMENSIONS))


def constant_vector(dim: dict[str, int]) -> np.ndarray:
    return np.array([float(dim.get(b, 0)) for b in BASE_NAMES])
