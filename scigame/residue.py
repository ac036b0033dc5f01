"""Exact numbers and floating-point noise for the strict matcher.

A predictor's literals are 64-bit floats. `literal_number` reads each one
as the exact constant it stands for: a law constant it equals to double
precision (0.017453292519943295 is the law's π/180), a simple fraction, a
short decimal or a simple multiple of π (`scigame.compiler.trees.
exact_constant`), otherwise the decimal it prints as.

What is left after that can still carry rounding noise: a literal printed
with 15 digits, or computed in floating point, is off by a few units in the
last place. `noise_explains` decides whether a leftover difference is such
noise: it is, when perturbing the candidate's own literals by at most
`NOISE_REL` (relative) each removes it at every sample point, to first order.
A term the law does not have (`x + 1e-20`) is never noise: no perturbation
of 1e-12 of a literal produces it.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from .compiler.trees import EXACT_ULPS, exact_constant
from .identities import LAST_RESORT, TACTICS

__all__ = ["NOISE_REL", "RESIDUE_ZERO", "law_constants", "literal_number", "noise_explains",
           "noise_verdict", "residue_verdict", "show_residue", "value_of", "worst_residue"]

#: The largest relative error of a literal that counts as floating-point
#: noise: a constant printed with 12 significant digits is off by at most
#: 5e-13, one computed through a few dozen float operations by ~1e-14; the
#: smallest tolerance the matcher applies is 1e-9 (exponents), far above.
NOISE_REL = 1e-12
#: Floats this close (relative) to a fraction with a small denominator are
#: taken to mean that fraction: 0.5 is 1/2, 0.3333333333333333 is 1/3.
NICE_DENOMINATOR = 1000
_STRUCTURAL = 12
# A leftover difference smaller than this (relative to the law, evaluated with
# _RESIDUE_DIGITS digits on exact constants) is numerically zero: most likely
# an identity sympy missed, reported as undecided rather than guessed True.
_RESIDUE_DIGITS = 60
RESIDUE_ZERO = 1e-40
_RESIDUE_POINTS = 16



def _structural(n: sympy.Rational) -> bool:
    return abs(int(n.p)) <= _STRUCTURAL and int(n.q) <= _STRUCTURAL


@functools.lru_cache(maxsize=1024)
def law_constants(law: sympy.Expr) -> tuple[tuple[float, sympy.Expr], ...]:
    """Every constant subexpression of the law (and its negative and
    reciprocal) with its double value, for double-precision matching."""
    found: dict[sympy.Expr, float] = {}
    for sub in sympy.preorder_traversal(law):
        parts = [sub]
        if isinstance(sub, (sympy.Mul, sympy.Add)) and sub.free_symbols:
            parts.append(sub.as_independent(*sub.free_symbols, as_Add=isinstance(sub, sympy.Add))[0])
        for c in parts:
            if c.free_symbols or c.is_Integer or c in found:
                continue
            for form in (c, -c, 1 / c):
                try:
                    value = float(form)
                except (TypeError, ValueError, ZeroDivisionError):
                    continue
                if math.isfinite(value) and value != 0:
                    found.setdefault(form, value)
    return tuple((v, c) for c, v in found.items())


def literal_number(value: float, constants: list[tuple[float, sympy.Expr]] = ()) -> sympy.Expr:
    """A JSON number as the exact constant it stands for (module docstring)."""
    if value == int(value) and abs(value) < 2 ** 53:
        return sympy.Integer(int(value))
    exact = Fraction(value)
    nice = exact.limit_denominator(NICE_DENOMINATOR)
    if abs(exact - nice) <= NOISE_REL * abs(exact):
        return sympy.Rational(nice.numerator, nice.denominator)
    slack = EXACT_ULPS * math.ulp(value)
    for v, c in constants:
        if abs(v - value) <= slack:
            return c
    q, k = exact_constant(value)
    return sympy.Rational(q.numerator, q.denominator) * sympy.pi ** k


def _evaluator(expr: sympy.Expr, args: list[sympy.Symbol]):
    return sympy.lambdify(args, expr, modules="mpmath")


def noise_explains(cand: sympy.Expr, law: sympy.Expr, symbols: dict[str, sympy.Symbol],
                   points: dict[str, np.ndarray], n_points: int = 16) -> float | None:
    """The largest relative literal perturbation that explains `cand - law`
    at the sample points, if one of at most NOISE_REL does; else None."""
    nums = sorted((n for n in cand.atoms(sympy.Rational) if not _structural(n)), key=abs)
    n = min(n_points, len(next(iter(points.values()), [])))
    if not nums or len(nums) >= n:
        return None
    eps = [sympy.Dummy(f"e{i}") for i in range(len(nums))]
    perturbed = cand.xreplace({q: q * (1 + e) for q, e in zip(nums, eps)})
    names = sorted(symbols)
    args = [symbols[k] for k in names] + eps
    zero = [0] * len(eps)
    jac = [_evaluator(sympy.diff(perturbed, e), args) for e in eps]
    f_diff, f_law = _evaluator(cand - law, args), _evaluator(law, args)
    rows, rhs = [], []
    with mpmath.workdps(_RESIDUE_DIGITS):
        for i in range(n):
            xs = [mpmath.mpf(float(points[k][i])) for k in names] + zero
            try:
                scale = abs(complex(f_law(*xs)))
                if scale == 0:
                    continue
                rhs.append(complex(f_diff(*xs)) / scale)
                rows.append([complex(j(*xs)) / scale for j in jac])
            except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                continue
    if len(rows) <= len(nums):
        return None
    a, r = np.array(rows), np.array(rhs)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(r))) or not np.any(r):
        return None
    delta, *_ = np.linalg.lstsq(a, r, rcond=None)
    left = np.linalg.norm(a @ delta - r)
    size = float(np.max(np.abs(delta)))
    return size if size <= NOISE_REL and left <= 1e-6 * np.linalg.norm(r) else None


def show_residue(diff: sympy.Expr, limit: int = 160) -> str:
    """A difference for a reason sentence: its constants evaluated (to 4
    digits, after cancellation), so a tiny residue shows its size."""
    try:
        text = sympy.sstr(sympy.N(sympy.expand(diff), 4))
    except (TypeError, ValueError):
        text = sympy.sstr(diff)
    if text in ("0", "0.0", "-0.0"):
        text = "a residue"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def value_of(e: sympy.Expr) -> complex | None:
    """The numeric value of a constant expression, or None if not finite."""
    try:
        v = complex(e.evalf(30))
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v.real) and math.isfinite(v.imag) else None


def worst_residue(diff: sympy.Expr, law: sympy.Expr, symbols: dict[str, sympy.Symbol],
                  points: dict[str, np.ndarray]) -> float:
    """The largest |diff| / |law| at the sample points, to 60 digits or more
    (mpmath at 80 digits; sympy's evalf where mpmath cannot evaluate)."""
    n = max(min(_RESIDUE_POINTS, len(next(iter(points.values()), []))), 1)
    try:
        pairs = _mpmath_values(diff, law, symbols, points, n)
    except Exception:  # a function mpmath lacks (Heaviside, round): evalf it
        pairs = _evalf_values(diff, law, symbols, points, n)
    worst = 0.0
    for d, g in pairs:
        if d is None or g is None:
            continue
        worst = max(worst, abs(d) / abs(g) if g else abs(d))
    return worst


def _mpmath_values(diff, law, symbols, points, n) -> list:
    names = sorted(symbols)
    args = [symbols[k] for k in names]
    f_diff, f_law = _evaluator(diff, args), _evaluator(law, args)
    out = []
    with mpmath.workdps(_RESIDUE_DIGITS + 20):
        for i in range(n):
            xs = [mpmath.mpf(float(points[k][i])) for k in names]
            try:
                d, g = complex(f_diff(*xs)), complex(f_law(*xs))
            except (ZeroDivisionError, ValueError, OverflowError):
                out.append((None, None))
                continue
            finite = all(math.isfinite(v.real) and math.isfinite(v.imag) for v in (d, g))
            out.append((d, g) if finite else (None, None))
    return out


def _evalf_values(diff, law, symbols, points, n) -> list:
    out = []
    for i in range(n):
        subs = {symbols[k]: sympy.Rational(Fraction(float(v[i]))) for k, v in points.items()}
        out.append((value_of(diff.evalf(_RESIDUE_DIGITS, subs=subs)),
                    value_of(law.evalf(_RESIDUE_DIGITS, subs=subs))))
    return out


def noise_verdict(diff: sympy.Expr, cand: sympy.Expr, law: sympy.Expr,
                   symbols: dict[str, sympy.Symbol], points: dict[str, np.ndarray],
                   worst: float | None = None) -> tuple[bool, str] | None:
    """True when the difference is floating-point noise of the candidate's
    literals (scigame.residue.noise_explains), else None."""
    if worst is None:
        worst = worst_residue(diff, law, symbols, points)
    if not RESIDUE_ZERO < worst < 1e-9:
        return None
    moved = noise_explains(cand, law, symbols, points)
    if moved is None:
        return None
    return True, (f"is the law up to floating-point noise in its literals: the "
                  f"difference (relative size up to {worst:.2g} at the sample points) "
                  f"goes away when its literals move by {moved:.2g} or less "
                  f"(noise is up to {NOISE_REL:g})")


def residue_verdict(diff: sympy.Expr, cand: sympy.Expr, law: sympy.Expr,
                     symbols: dict[str, sympy.Symbol], points: dict[str, np.ndarray]
                     ) -> tuple[bool | None, str]:
    """Judge a difference sympy could not remove, by high-precision evaluation."""
    worst = worst_residue(diff, law, symbols, points)
    if worst > RESIDUE_ZERO:
        noise = noise_verdict(diff, cand, law, symbols, points, worst)
        if noise is not None:
            return noise
        return False, (f"is not the law: it differs from the law by {show_residue(diff)} "
                       f"(relative size up to {worst:.2g} at the sample points)")
    tried = "expanding, simplifying, " + ", ".join(name for name, _ in TACTICS + LAST_RESORT)
    return None, ("is undecided: it agrees with the law to "
                  f"{_RESIDUE_DIGITS} digits at the sample points, but sympy could not "
                  f"show that {show_residue(diff)} is zero (tried {tried})")
