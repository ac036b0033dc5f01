"""The card language's functions, in one table.

Every consumer derives what it needs from `FUNCTIONS`: the checker its
arities and dimension rules, the reference evaluator (`model.evaluate`) the
numpy meaning, the code generator the call it writes into numba kernels (and
with it the runtime names a generated simulator imports), curation's prompt
and lint's E203 hint the list of names. `docs/language.md` describes the
same table in words (tests/test_functions.py holds them together).

This module imports nothing heavy: the simulator runtime (`scigame.simrt`)
reads `RUNTIME_NAMES` from it without pulling in pint or Lark, and the
checker reads arities and dimension rules without numpy, which each numpy
meaning imports when it is first called (a lint that stops at a static
error never loads numpy).
"""

from __future__ import annotations

import builtins
from fractions import Fraction
from typing import Any, Callable, Optional

from .source import node


@node
class CardFunction:
    """One function of the card language.

    Dimension rule: `args` says what the arguments must be ("dimensionless";
    "same": all of one dimension; "any"), `power` what the result is: the
    first argument's dimension to that power, or dimensionless for None.
    """

    name: str
    min_args: int
    max_args: Optional[int]  # None: any number from min_args on
    args: str  # dimensionless | same | any
    power: Optional[Fraction]
    numpy: Callable[..., Any]  # the reference evaluator's meaning, on numbers or arrays
    numba: str  # what a kernel calls: a builtin or a name the runtime exports (`math.sin`)
    libm: bool = False  # a point costs a libm call (see emit._costly)
    #: what an array twin writes (compiler/emit_array.py): numpy on whole
    #: arrays, `{0}`, `{1}` the arguments; "" for no array form
    array: str = ""

    @property
    def arity_text(self) -> str:
        """`1 argument`, `2 arguments`, `2 or more arguments` (for E204)."""
        lo = self.min_args
        if lo == self.max_args:
            return f"{lo} argument" + ("s" if lo > 1 else "")
        return f"{lo} or more arguments"

    def takes(self, count: int) -> bool:
        return count >= self.min_args and (self.max_args is None or count <= self.max_args)

    def result_dim(self, first):
        """The result's dimension given the first argument's (None: unknown)."""
        from .units import DIMENSIONLESS
        if self.power is None:
            return DIMENSIONLESS
        return first ** self.power if first is not None else None

    def sympy_function(self) -> Callable:
        """The same function in sympy: the meaning of the predictor op of the
        same name (compiler/predictor_ops.py), the one row the card language
        and predictors share (sympy imported only when asked for)."""
        import sympy

        from .predictor_ops import OP_TABLE
        op = OP_TABLE[self.name]
        return lambda *args: op.sympy(sympy, *args)


def _numpy(name: str) -> Callable:
    """numpy's function NAME (`numpy.sin`), looked up when called: the table
    names it, and numpy is imported only by an evaluation."""
    def call(*args):
        import numpy as np
        return getattr(np, name)(*args)
    call.__name__ = call.__qualname__ = name
    return call


def _unary(fn: Callable) -> Callable:
    def unary(x):
        import numpy as np
        return fn(np.asarray(x, dtype=float))
    return unary


def _fold(fn: Callable) -> Callable:
    def folded(*args):
        out = args[0]
        for a in args[1:]:
            out = fn(out, a)
        return out
    return folded


def _step(x):
    import numpy as np
    return np.where(x > 0, 1.0, 0.0)


_KEEP, _DIMLESS = Fraction(1), None


def _f(name, lo, hi, args, power, numpy, numba, libm=False, array="") -> CardFunction:
    return CardFunction(name, lo, hi, args, power, numpy, numba, libm, array)


def _transcendental(name: str, numpy_name: str) -> CardFunction:
    return _f(name, 1, 1, "dimensionless", _DIMLESS, _unary(_numpy(numpy_name)), f"math.{name}", libm=True,
              array=f"np.{numpy_name}({{0}})")


_TABLE = (
    _transcendental("sin", "sin"), _transcendental("cos", "cos"), _transcendental("tan", "tan"),
    _transcendental("asin", "arcsin"), _transcendental("acos", "arccos"),
    _transcendental("atan", "arctan"),
    _f("atan2", 2, 2, "same", _DIMLESS, _numpy("arctan2"), "math.atan2", libm=True,
       array="np.arctan2({0}, {1})"),
    _transcendental("sinh", "sinh"), _transcendental("cosh", "cosh"), _transcendental("tanh", "tanh"),
    _transcendental("exp", "exp"), _transcendental("log", "log"), _transcendental("log10", "log10"),
    _f("sqrt", 1, 1, "any", Fraction(1, 2), _unary(_numpy("sqrt")), "math.sqrt", array="np.sqrt({0})"),
    _f("cbrt", 1, 1, "any", Fraction(1, 3), _unary(_numpy("cbrt")), "np.cbrt", libm=True, array="np.cbrt({0})"),
    _f("abs", 1, 1, "any", _KEEP, _unary(_numpy("abs")), "abs", array="np.abs({0})"),
    # numba's min(a, b) is `b if b < a else a`, as Python's: a NaN first stays
    _f("min", 2, None, "same", _KEEP, _fold(_numpy("minimum")), "min",
       array="np.where({1} < {0}, {1}, {0})"),
    _f("max", 2, None, "same", _KEEP, _fold(_numpy("maximum")), "max",
       array="np.where({1} > {0}, {1}, {0})"),
    _f("step", 1, 1, "any", _DIMLESS, _unary(_step), "step",
       array="np.where({0} > 0.0, 1.0, np.where({0} != {0}, {0}, 0.0))"),
    _f("sign", 1, 1, "any", _DIMLESS, _unary(_numpy("sign")), "sign", array="np.sign({0})"),
)

#: name -> the function, in the order the language's documentation lists them.
FUNCTIONS: dict[str, CardFunction] = {f.name: f for f in _TABLE}

#: What a generated simulator imports from the runtime: the kernel decorator
#: and loop, then every module or function the kernels' (and array twins') calls name.
RUNTIME_NAMES: tuple[str, ...] = ("njit", "prange") + tuple(dict.fromkeys(
    [f.numba.split(".")[0] for f in _TABLE if not hasattr(builtins, f.numba)]
    + [f.array.split(".")[0] for f in _TABLE if f.array]))
