"""Identity tactics for the strict matcher: cheap, sound rewritings that
show `candidate - law` is zero where sympy's `simplify` does not (or would
take too long).

Each tactic maps the difference to an equivalent expression; the difference
is proven zero when that expression cancels to 0 as a rational function of
its atoms. The tactics are sound on the real domain where both trees are
defined (a predictor is real-valued: numpy gives NaN for the square root or
the logarithm of a negative number), which is what licenses combining
sqrt(a)·sqrt(b) into sqrt(a·b) and log(a) + log(b) into log(a·b).

- **common angle**: trigonometric and hyperbolic functions are rewritten as
  exponentials; every exp(c·u) whose arguments share the part u is written
  as W^k for one new symbol W = exp(g·u), g the greatest common divisor of
  the coefficients c (so cos(2θ) and cos(θ)^2 meet as polynomials in
  exp(iθ)). This proves double-angle, half-angle, product-to-sum and
  cosh/sinh/tanh-as-exp identities, and Planck/Bose-Einstein rearrangements
  of exp(x) - 1.
- **roots combined**: in a product, powers with the same fractional
  exponent are multiplied under one exponent (sqrt(a)·sqrt(b) = sqrt(a·b)).
- **logs combined**: sums of logarithms become the log of a product
  (sympy's `logcombine` with `force`), then the common-angle form.
- **trig rules**: sympy's `fu` (Fu et al.'s TR rules) as a last resort.
"""

from __future__ import annotations

from functools import reduce
from math import gcd, lcm
from typing import Callable

import sympy

__all__ = ["TACTICS", "exp_form_ratio", "prove_zero", "to_common_angle"]

_TRIG_HYP = (sympy.sin, sympy.cos, sympy.tan, sympy.cot, sympy.sec, sympy.csc,
             sympy.sinh, sympy.cosh, sympy.tanh, sympy.coth, sympy.sech, sympy.csch)


_MAX_POWER = 64


def _rational_gcd(values: list[sympy.Rational]) -> sympy.Rational:
    nums = [abs(int(v.p)) for v in values]
    dens = [int(v.q) for v in values]
    return sympy.Rational(reduce(gcd, nums), reduce(lcm, dens))


def to_common_angle(e: sympy.Expr) -> sympy.Expr:
    """`e` with trig/hyperbolic functions as exponentials and every exp(c·u)
    as a power of one symbol per shared part u (see the module docstring)."""
    if e.has(*_TRIG_HYP):
        e = e.rewrite(sympy.exp)
    e = sympy.expand(e, power_exp=True, mul=False, multinomial=False, deep=True)
    exps = [x for x in e.atoms(sympy.exp)]
    groups: dict[sympy.Expr, list[tuple[sympy.Expr, sympy.Expr]]] = {}
    for x in exps:
        arg = x.args[0]
        coeff, rest = arg.as_independent(*arg.free_symbols, as_Add=False) if arg.free_symbols \
            else (arg, sympy.Integer(1))
        groups.setdefault(rest, []).append((x, coeff))
    mapping: dict[sympy.Expr, sympy.Expr] = {}
    for rest, members in groups.items():
        base = members[0][1]
        ratios = [c / base for _, c in members]
        if not all(r.is_Rational for r in ratios):
            continue
        unit = _rational_gcd(ratios)
        if any(abs((r / unit).p) > _MAX_POWER for r in ratios):
            continue  # exp(0.7t) vs exp(0.69999999999999995t): no polynomial to gain
        w = sympy.Dummy("W", nonzero=True)
        for (x, c), r in zip(members, ratios):
            k = sympy.Rational(r / unit)
            mapping[x] = w ** k
    return e.xreplace(mapping) if mapping else e


def _cancels(e: sympy.Expr) -> bool:
    return e == 0 or sympy.cancel(sympy.together(e)) == 0


def _common_angle(diff: sympy.Expr) -> bool:
    return _cancels(to_common_angle(diff))


def _combine_roots(m: sympy.Mul) -> sympy.Expr:
    """a^r·b^r -> (a·b)^r for every fractional exponent r of a product."""
    by_exp: dict[sympy.Expr, list[sympy.Expr]] = {}
    others = []
    for f in m.args:
        if isinstance(f, sympy.Pow) and f.exp.is_Rational and not f.exp.is_Integer:
            by_exp.setdefault(f.exp, []).append(f.base)
        else:
            others.append(f)
    if all(len(b) < 2 for b in by_exp.values()):
        return m
    return sympy.Mul(*others, *(sympy.Pow(sympy.expand(sympy.Mul(*b)), r)
                                for r, b in by_exp.items()))


def _roots_combined(diff: sympy.Expr) -> bool:
    combined = diff.replace(lambda e: isinstance(e, sympy.Mul), _combine_roots)
    return combined != diff and _cancels(to_common_angle(combined))


def _logs_combined(diff: sympy.Expr) -> bool:
    if not diff.has(sympy.log):
        return False
    combined = sympy.logcombine(sympy.expand_log(diff), force=True)
    if isinstance(combined, sympy.log):
        return _cancels(to_common_angle(combined.args[0] - 1))
    return _cancels(to_common_angle(combined))


def _fu(diff: sympy.Expr) -> bool:
    return diff.has(sympy.sin, sympy.cos, sympy.tan) and sympy.fu(diff) == 0


#: (what the reason says was tried, test) in the order they are tried.
TACTICS: tuple[tuple[str, Callable[[sympy.Expr], bool]], ...] = (
    ("trigonometric and hyperbolic functions as exponentials of a common angle", _common_angle),
    ("roots of a product combined", _roots_combined),
    ("logarithms combined", _logs_combined),
)
#: Tried only after sympy's simplify failed (they can be slow).
LAST_RESORT = (("Fu's trigonometric rules", _fu),)


def prove_zero(diff: sympy.Expr, tactics=TACTICS) -> str | None:
    """The name of the first tactic that shows `diff` is 0, or None."""
    for name, test in tactics:
        try:
            if test(diff):
                return name
        except (sympy.PolynomialError, sympy.CoercionFailed, ValueError, TypeError,
                NotImplementedError, ZeroDivisionError, AttributeError):
            continue
    return None


def exp_form_ratio(cand: sympy.Expr, law: sympy.Expr) -> sympy.Expr | None:
    """cand/law in the common-angle form, if it is a constant (a rounded
    overall factor), else None."""
    try:
        ratio = sympy.cancel(sympy.together(to_common_angle(cand) / to_common_angle(law)))
    except (sympy.PolynomialError, ValueError, TypeError, NotImplementedError, ZeroDivisionError):
        return None
    return ratio if not ratio.free_symbols else None
