"""The predictor language: one row per op (SPEC.md, "Predictors: expression
trees").

Every consumer derives from `OP_TABLE`: the validator and the one numpy
evaluator (`scigame/predictor.py`), the JSON Schema
(`compiler/predictor_schema.py`, which LLM players also get as their
structured-output schema), the op listing of the player prompt
(`scigame/llm/prompts.py`), the sympy translation of the strict matcher
(`scigame/symbolic.py`) and the exact constant folding of law trees
(`compiler/trees.py`). `tests/test_predictor_ops.py` checks that they, and
the op table of `docs/predictors.md`, agree with it.

A row holds:

* `numpy`: the meaning on float64 arrays (or scalars), taking the op's
  arguments in order. Outside its domain it may give NaN or ±inf; the
  checked evaluator refuses such points first, by `domain`.
* `sympy`: the same meaning as a sympy expression, `sympy(sp, *args)` with
  `sp` the sympy module (passed in, so that importing this table costs no
  sympy import).
* `domain`: where the op is undefined: each rule is a mask of the bad
  points over the arguments and the reason given for them.
* `overflows`: whether finite arguments inside the domain can give ±inf.
* `fold`: the exact value on exact (`Fraction`) arguments, or None where it
  is not a rational or not worth computing.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from .source import node

__all__ = ["ARITY", "OP_TABLE", "Domain", "Op", "arity_text", "fold_exact"]


@node
class Domain:
    """One way an op can leave its domain: `bad(*args)` is a boolean mask of
    the offending points, `reason` what is said about them."""

    bad: Callable[..., Any]
    reason: str


@node
class Op:
    """One op of the predictor language."""

    name: str
    min_args: int
    max_args: Optional[int]  # None: any number from min_args up
    numpy: Callable[..., Any]
    sympy: Callable[..., Any]
    meaning: str  # for people: what the op computes
    domain: tuple[Domain, ...] = ()
    overflows: bool = False
    fold: Optional[Callable[[list[Fraction]], Optional[Fraction]]] = None


# -- numpy meanings that are not a single numpy function ----------------------

def _left_fold(ufunc: np.ufunc) -> Callable[..., Any]:
    """An n-ary op as `ufunc` applied left to right; the accumulator is a fresh
    temporary after the first step, so it is reused in place."""
    def apply(*args: Any) -> Any:
        value = ufunc(args[0], args[1])
        for x in args[2:]:
            if isinstance(value, np.ndarray) and value.ndim and (
                    np.ndim(x) == 0 or np.shape(x) == value.shape):
                ufunc(value, x, out=value)
            else:
                value = ufunc(value, x)
        return value
    apply.__name__ = f"left_fold_{ufunc.__name__}"
    apply.ufunc = ufunc  # what it folds: a compiled model (relax._model) applies it step by step itself
    return apply


def _step(x: Any) -> Any:
    """1 for x > 0, else 0 (also at 0)."""
    return np.where(x > 0, 1.0, 0.0) if np.ndim(x) else np.float64(x > 0)


def _atan2(y: Any, x: Any) -> Any:
    # Adding 0.0 turns -0.0 into +0.0: the reals have one zero, and IEEE
    # atan2 would otherwise answer -pi for (-0.0, -1) and pi for (0, -0.0).
    # atan2(0, 0) is 0, as in C, numpy and the compiled simulators.
    return np.arctan2(np.add(y, 0.0), np.add(x, 0.0))


def _complex_power(base: Any, exponent: Any) -> Any:
    negative = base < 0
    if not np.any(negative):
        return negative
    return negative & (exponent != np.floor(exponent))


# -- sympy meanings that are not a single sympy function ----------------------

def _sympy_cbrt(sp: Any, x: Any) -> Any:
    """The real cube root (sympy's `cbrt` is the principal, complex, one)."""
    if x.is_nonnegative:
        return sp.root(x, 3)
    return sp.sign(x) * sp.root(sp.Abs(x), 3)


@functools.cache
def _round_half_even() -> type:
    """The sympy function of `round`, built on first use (sympy is imported
    only by whoever translates to sympy)."""
    import sympy

    class RoundHalfEven(sympy.Function):
        """`round`: nearest integer, ties to even (Python's and numpy's rule)."""

        nargs = 1

        @classmethod
        def eval(cls, x):
            if x.is_integer:
                return x
            if x.is_Rational:
                return sympy.Integer(round(Fraction(int(x.p), int(x.q))))
            if x.is_Float:
                return sympy.Integer(round(float(x)))
            return None

        def _eval_evalf(self, prec):
            value = self.args[0].evalf(prec)
            if value.is_Number:
                return sympy.Float(round(sympy.Rational(value)), prec)
            return None

        def _eval_is_integer(self):
            return self.args[0].is_real

        def _sympystr(self, printer):
            return f"round({printer._print(self.args[0])})"

    # pickled by reference, as this module's attribute (see __getattr__)
    RoundHalfEven.__module__, RoundHalfEven.__qualname__ = __name__, "RoundHalfEven"
    return RoundHalfEven


def __getattr__(name: str) -> Any:
    if name == "RoundHalfEven":
        return _round_half_even()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- exact folds ---------------------------------------------------------------

def _fold_pow(a: list[Fraction]) -> Optional[Fraction]:
    if a[1].denominator == 1 and abs(a[1]) <= 64:
        return a[0] ** int(a[1])
    return None


def _fold_sqrt(a: list[Fraction]) -> Optional[Fraction]:
    if a[0] < 0:
        return None
    n, d = a[0].numerator, a[0].denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    return Fraction(rn, rd) if rn * rn == n and rd * rd == d else None


# -- the table -----------------------------------------------------------------

def _unary(name: str, numpy: Callable, sympy: Callable, meaning: str, **more: Any) -> Op:
    return Op(name, 1, 1, numpy, sympy, meaning, **more)


_NOT_POSITIVE = "of a non-positive number"
_OUTSIDE_UNIT = "of a number outside [-1, 1]"

_ROWS = (
    Op("add", 2, None, _left_fold(np.add), lambda sp, *a: sp.Add(*a), "a + b + ...",
       overflows=True, fold=lambda a: sum(a, Fraction(0))),
    Op("mul", 2, None, _left_fold(np.multiply), lambda sp, *a: sp.Mul(*a), "a · b · ...",
       overflows=True, fold=lambda a: math.prod(a, start=Fraction(1))),
    Op("min", 2, None, _left_fold(np.minimum), lambda sp, *a: sp.Min(*a), "the smallest argument"),
    Op("max", 2, None, _left_fold(np.maximum), lambda sp, *a: sp.Max(*a), "the largest argument"),
    Op("sub", 2, 2, np.subtract, lambda sp, a, b: a - b, "a − b",
       overflows=True, fold=lambda a: a[0] - a[1]),
    Op("div", 2, 2, np.divide, lambda sp, a, b: a / b, "a / b",
       domain=(Domain(lambda y, x: x == 0, "division by zero"),),
       overflows=True, fold=lambda a: a[0] / a[1]),
    Op("pow", 2, 2, np.power, lambda sp, a, b: a ** b, "a to the power b",
       domain=(Domain(lambda b, e: (b == 0) & (e < 0),
                      "division by zero (zero to a negative power)"),
               Domain(_complex_power,
                      "negative base with a non-integer exponent (complex result)")),
       overflows=True, fold=_fold_pow),
    Op("atan2", 2, 2, _atan2, lambda sp, y, x: sp.atan2(y, x),
       "the angle of the point (x, y), arguments y, x"),
    _unary("neg", np.negative, lambda sp, a: -a, "−a", fold=lambda a: -a[0]),
    _unary("abs", np.abs, lambda sp, a: sp.Abs(a), "the absolute value"),
    _unary("sqrt", np.sqrt, lambda sp, a: sp.sqrt(a), "the square root",
           domain=(Domain(lambda x: x < 0, "sqrt of a negative number"),), fold=_fold_sqrt),
    _unary("cbrt", np.cbrt, _sympy_cbrt, "the real cube root"),
    _unary("exp", np.exp, lambda sp, a: sp.exp(a), "e to the power a", overflows=True),
    _unary("log", np.log, lambda sp, a: sp.log(a), "the natural logarithm",
           domain=(Domain(lambda x: x <= 0, f"log {_NOT_POSITIVE}"),)),
    _unary("log10", np.log10, lambda sp, a: sp.log(a, 10), "the base-10 logarithm",
           domain=(Domain(lambda x: x <= 0, f"log10 {_NOT_POSITIVE}"),)),
    _unary("sin", np.sin, lambda sp, a: sp.sin(a), "sine (radians)"),
    _unary("cos", np.cos, lambda sp, a: sp.cos(a), "cosine (radians)"),
    _unary("tan", np.tan, lambda sp, a: sp.tan(a), "tangent (radians)"),
    _unary("asin", np.arcsin, lambda sp, a: sp.asin(a), "arcsine (radians)",
           domain=(Domain(lambda x: np.abs(x) > 1, f"asin {_OUTSIDE_UNIT}"),)),
    _unary("acos", np.arccos, lambda sp, a: sp.acos(a), "arccosine (radians)",
           domain=(Domain(lambda x: np.abs(x) > 1, f"acos {_OUTSIDE_UNIT}"),)),
    _unary("atan", np.arctan, lambda sp, a: sp.atan(a), "arctangent (radians)"),
    _unary("sinh", np.sinh, lambda sp, a: sp.sinh(a), "hyperbolic sine", overflows=True),
    _unary("cosh", np.cosh, lambda sp, a: sp.cosh(a), "hyperbolic cosine", overflows=True),
    _unary("tanh", np.tanh, lambda sp, a: sp.tanh(a), "hyperbolic tangent"),
    _unary("step", _step, lambda sp, a: sp.Heaviside(a, 0), "1 for a > 0, else 0"),
    _unary("sign", np.sign, lambda sp, a: sp.sign(a), "−1, 0 or 1"),
    _unary("round", np.rint, lambda sp, a: _round_half_even()(a),
           "the nearest whole number, ties to even"),
)

#: op name -> its row.
OP_TABLE: dict[str, Op] = {row.name: row for row in _ROWS}

#: op name -> (minimum arity, maximum arity or None for unbounded).
ARITY: dict[str, tuple[int, Optional[int]]] = {
    row.name: (row.min_args, row.max_args) for row in _ROWS
}


def arity_text(op: Op) -> str:
    """How many arguments `op` takes, in words: "2 or more", "exactly 1"."""
    if op.max_args is None:
        return f"{op.min_args} or more"
    if op.max_args == op.min_args:
        return f"exactly {op.min_args}"
    return f"{op.min_args} to {op.max_args}"


def fold_exact(op: str, args: list[Fraction]) -> Optional[Fraction]:
    """The exact value of `op` on exact numbers, or None when it is not a
    rational (sqrt(2)), not defined (1/0), or not worth computing."""
    row = OP_TABLE.get(op)
    if row is None or row.fold is None:
        return None
    try:
        return row.fold(args)
    except (ArithmeticError, ValueError):
        return None
