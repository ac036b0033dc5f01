"""Typing expressions of one environment (the original or the
counterfactual): dimensions from units, the rules of the card-function
table, constant folding of exponents, and the placeholder dimensions that
solve `rebalance`.

A dimension of `None` means "unknown, already reported": operations on it
stay silent, so one bad unit does not produce a cascade of mismatches.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from . import ast as A
from .checkutil import names, suggest
from .diagnostics import Reporter
from .functions import FUNCTIONS
from .model import TBinary, TCall, TConst, TExpr, TRef, TUnary, evaluate, refs
from .source import node
from .units import DIMENSIONLESS, Dim

if TYPE_CHECKING:
    from .checker import _Checker


@node
class EnvState:
    """What the typer needs to know about one environment; a mutation makes
    a new state (`with_param`, `with_let`, `with_law`)."""

    name: str
    label: str  # "" for the original, the counterfactual's label otherwise
    param_values: Mapping[str, float]
    param_dims: Mapping[str, Optional[Dim]]
    lets: Mapping[str, A.Let]  # the definitions in force
    laws: Mapping[str, A.Law]
    #: params whose SI value is an exact rational (`param k = 2/3`, `set n = 1/3`)
    param_exact: Mapping[str, Fraction] = dataclasses.field(default_factory=dict)

    @property
    def note(self) -> Optional[str]:
        return f'in the counterfactual "{self.label}"' if self.name == "counterfactual" else None

    def with_param(self, name: str, value: Optional[float] = None, exact: Optional[Fraction] = None,
                   **dim) -> "EnvState":
        """A copy with param `name` at a new value (exactly `exact` when given)
        and/or (`dim=`) dimension."""
        values = {**self.param_values, name: value} if value is not None else self.param_values
        dims = {**self.param_dims, name: dim["dim"]} if "dim" in dim else self.param_dims
        known = self.param_exact
        if value is not None:
            known = {k: v for k, v in known.items() if k != name}
            if exact is not None:
                known[name] = exact
        return dataclasses.replace(self, param_values=values, param_dims=dims, param_exact=known)

    def with_dims(self, dims: Mapping[str, Optional[Dim]]) -> "EnvState":
        return dataclasses.replace(self, param_dims={**self.param_dims, **dims})

    def with_let(self, let: A.Let) -> "EnvState":
        return dataclasses.replace(self, lets={**self.lets, let.name: let})

    def with_law(self, law: A.Law) -> "EnvState":
        return dataclasses.replace(self, laws={**self.laws, law.name: law})


@node
class Typed:
    """An environment's typed lets (in dependency order) and laws, and, when
    typed to solve `rebalance`, the dimension equations it left."""

    lets: dict[str, TExpr]
    laws: dict[str, TExpr]
    equations: tuple[tuple[Dim, str], ...] = ()
    system: object = None  # a system card's `SystemWorld` (compiler/system_check.py)
    #: output -> the typed `where` condition of its law (where it has a value)
    wheres: dict = dataclasses.field(default_factory=dict)


class Typer:
    """Types expressions of one environment.

    With `solve` set it records dimension equations that involve the
    placeholder dimensions of rebalanced params instead of reporting them
    (see `solve_placeholders`).
    """

    def __init__(self, checker: "_Checker", env: EnvState, report: Reporter,
                 solve: bool = False, typed_lets: Optional[dict[str, TExpr]] = None):
        self.c, self.env, self.report, self.solve = checker, env, report, solve
        self.typed_lets: dict[str, TExpr] = dict(typed_lets or {})
        self.equations: list[tuple[Dim, str]] = []  # (lhs/rhs must be dimensionless, where)

    # dimension equality, or an equation while solving -----------------------
    def same(self, a: Optional[Dim], b: Optional[Dim], where: str, fail: Callable[[], None]) -> bool:
        if a is None or b is None:
            return True
        if self.solve and has_placeholder(a / b):
            self.equations.append((a / b, where))
            return True
        if a != b:
            fail()
            return False
        return True

    def expr(self, e: A.Expr) -> TExpr:
        if isinstance(e, A.Number):
            if e.unit is None:
                return TConst(e.value, DIMENSIONLESS, e.span)
            unit = self.c.unit(e.unit)
            if unit is None:
                return TConst(e.value, None, e.span)
            return TConst(e.value * unit.si_factor, unit.dim, e.span)
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.Unary):
            inner = self.expr(e.operand)
            return TUnary("neg", inner, inner.dim, e.span)
        if isinstance(e, A.Binary):
            return self.binary(e)
        return self.call(e)

    def name(self, e: A.Name) -> TExpr:
        if e.name == "pi":
            return TConst(math.pi, DIMENSIONLESS, e.span)
        sym = self.c.symbols.get(e.name)
        if sym is None:
            if e.name in FUNCTIONS:
                self.report.wrong_kind(e.span, e.name, "function")
            else:
                self.report.unknown_name(e.span, e.name, suggest(e.name, self.c.symbols))
            return TRef(e.name, "unknown", None, e.span)
        if sym.kind == "output":
            self.report.wrong_kind(e.span, e.name, "output")
            return TRef(e.name, "output", None, e.span)
        if sym.kind == "param":
            return TRef(e.name, "param", self.env.param_dims.get(e.name), e.span)
        if sym.kind == "let":
            typed = self.typed_lets.get(e.name)
            return TRef(e.name, "let", typed.dim if typed is not None else None, e.span)
        return TRef(e.name, "input", sym.dim, e.span)

    def binary(self, e: A.Binary) -> TExpr:
        left, right = self.expr(e.left), self.expr(e.right)
        if e.op in ("add", "sub"):
            op = "+" if e.op == "add" else "-"
            ok = self.same(left.dim, right.dim, f"`{op}` at {e.span.line}:{e.span.column}",
                           lambda: self.report.mismatch(e.span, "operator", op, left.dim, right.dim, self.env.note))
            # after a mismatch (or an operand already in error) the sum has no known
            # dimension, so later `+`s and the law's balance stay quiet: one mistake, one error
            dim = left.dim if ok and left.dim is not None and right.dim is not None else None
            return TBinary(e.op, left, right, dim, e.span)
        if e.op in ("mul", "div"):
            dim = None
            if left.dim is not None and right.dim is not None:
                dim = left.dim * right.dim if e.op == "mul" else left.dim / right.dim
            return TBinary(e.op, left, right, dim, e.span)
        return self.power(e, left, right)

    def power(self, e: A.Binary, base: TExpr, exponent: TExpr) -> TExpr:
        if exponent.dim is not None and not exponent.dim.dimensionless:
            if not (self.solve and has_placeholder(exponent.dim)):
                self.report.dimensional_exponent(e.right.span, exponent.dim, self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        if base.dim is None or exponent.dim is None:
            return TBinary("pow", base, exponent, None, e.span)
        if base.dim.dimensionless:
            return TBinary("pow", base, exponent, DIMENSIONLESS, e.span)
        if not self.is_constant(exponent):
            self.report.variable_exponent(e.right.span, base.dim, self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        value = self.constant_exact(exponent)
        if value is None:
            value = self.constant_value(exponent)
        if value is None or not math.isfinite(value):
            self.report.bad_exponent_value(e.right.span, self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        return TBinary("pow", base, exponent, base.dim ** value, e.span)

    def call(self, e: A.Call) -> TExpr:
        args = tuple(self.expr(a) for a in e.args)
        fn = FUNCTIONS.get(e.name)
        if fn is None:
            self.report.unknown_function(e.name_span, e.name, suggest(e.name, FUNCTIONS))
            return TCall(e.name, args, None, e.span)
        if not fn.takes(len(args)):
            self.report.arity(e.span, e.name, fn.min_args, fn.max_args, len(args))
            return TCall(e.name, args, None, e.span)
        dims = [a.dim for a in args]
        where = f"`{e.name}` at {e.span.line}:{e.span.column}"
        if fn.args == "dimensionless":
            d = dims[0]
            self.same(d, DIMENSIONLESS, where,
                      lambda: self.report.needs_dimensionless(e.args[0].span, e.name, d, self.env.note))
        elif fn.args == "same":
            first = dims[0]
            for d in dims[1:]:
                self.same(first, d, where, lambda d=d: self.report.mismatch(
                    e.span, "function", e.name, first, d, self.env.note))
        return TCall(e.name, args, fn.result_dim(dims[0]), e.span)

    # constants ------------------------------------------------------------------
    def is_constant(self, e: TExpr) -> bool:
        if isinstance(e, TConst):
            return True
        if isinstance(e, TRef):
            if e.role == "param":
                return True
            if e.role == "let":
                typed = self.typed_lets.get(e.name)
                return typed is not None and self.is_constant(typed)
            return False
        if isinstance(e, TUnary):
            return self.is_constant(e.operand)
        if isinstance(e, TBinary):
            return self.is_constant(e.left) and self.is_constant(e.right)
        return all(self.is_constant(a) for a in e.args)

    def constant_exact(self, e: TExpr) -> Optional[Fraction]:
        """A constant expression's exact value, where it is a rational
        reached by `+ - * /` and whole powers from exact params and the
        decimals written in the card; None otherwise (then it is folded in
        floating point, `constant_value`). Keeps `x^(1/3)` with `param n = 1/3`
        exactly [x]^(1/3), whatever the denominator."""
        if isinstance(e, TConst):
            return Fraction(repr(e.value)) if e.dim is not None and e.dim.dimensionless and \
                math.isfinite(e.value) and e.span is not None and abs(e.value) < 1e12 else None
        if isinstance(e, TRef):
            if e.role == "param":
                return self.env.param_exact.get(e.name, _decimal(self.env.param_values.get(e.name)))
            typed = self.typed_lets.get(e.name) if e.role == "let" else None
            return self.constant_exact(typed) if typed is not None and self.is_constant(typed) else None
        if isinstance(e, TUnary):
            inner = self.constant_exact(e.operand)
            return -inner if inner is not None else None
        if isinstance(e, TBinary):
            a, b = self.constant_exact(e.left), self.constant_exact(e.right)
            if a is None or b is None:
                return None
            if e.op == "add":
                return a + b
            if e.op == "sub":
                return a - b
            if e.op == "mul":
                return a * b
            if e.op == "div":
                return a / b if b != 0 else None
            if b.denominator == 1 and abs(b) <= 64 and (a != 0 or b > 0):
                return a ** int(b)
        return None

    def constant_value(self, e: TExpr) -> Optional[float]:
        values: dict[str, object] = dict(self.env.param_values)
        if any(name not in self.typed_lets for name in refs(e, "let")):
            return None
        import numpy as np  # the reference evaluator's, loaded by the first constant folded
        try:
            with np.errstate(all="ignore"):
                for name, typed in self.typed_lets.items():
                    if self.is_constant(typed):
                        values[name] = evaluate(typed, values)
                return float(evaluate(e, values))
        except (KeyError, TypeError, ValueError, OverflowError):
            return None


def _decimal(value: Optional[float]) -> Optional[Fraction]:
    """The decimal a param's float stands for (`0.5` is 1/2), as a Fraction."""
    if value is None or not math.isfinite(value) or abs(value) >= 1e12:
        return None
    return Fraction(repr(value))


def let_order(lets: Mapping[str, A.Let], report: Reporter) -> list[str]:
    """Lets in dependency order. A cycle is reported once; its lets, and
    lets that depend on them, are left out (they stay untyped)."""
    deps = {name: {n for n in names(let.expr) if n in lets} for name, let in lets.items()}
    order: list[str] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cyclic: set[str] = set()
    for root in sorted(lets, key=lambda n: (lets[n].span.line, lets[n].span.column)):
        if state.get(root):
            continue
        stack = [(root, iter(sorted(deps[root])))]
        path = [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
                order.append(node)
            elif state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [nxt]
                report.cycle(lets[nxt].name_span, cyc)
                cyclic.update(cyc)
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(deps[nxt]))))
    tainted = set(cyclic)
    for name in order:  # dependency order: a let that uses a tainted one is tainted
        if deps[name] & tainted:
            tainted.add(name)
    return [n for n in order if n not in tainted]


# ---- solving `rebalance` -------------------------------------------------------

_PLACEHOLDER = "[rebalance "


def placeholder(name: str) -> Dim:
    """The unknown base dimension standing for the unit of a rebalanced param."""
    return Dim.of({f"{_PLACEHOLDER}{name}]": 1})


def has_placeholder(dim: Dim) -> bool:
    return any(k.startswith(_PLACEHOLDER) for k, _ in dim.items)


def solve_placeholders(equations, unknowns: list[str]) -> tuple[dict[str, Dim], set[str]]:
    """Solve `X · Π P_i^k_i = dimensionless` equations for the placeholder
    dimensions P_i: an equation with one unknown left is solved, substituted
    into the rest, and so on. Returns the solutions and the unknowns whose
    equations conflict."""
    solved: dict[str, Dim] = {}
    conflicts: set[str] = set()
    keys = {f"{_PLACEHOLDER}{n}]": n for n in unknowns}
    pending = list(equations)
    progress = True
    while pending and progress:
        progress = False
        rest = []
        for eq, where in pending:
            known = Dim.of({k: v for k, v in eq.items if k not in keys})
            unknown_powers = {}
            for k, v in eq.items:
                if k in keys:
                    if keys[k] in solved:
                        known = known * solved[keys[k]] ** v
                    else:
                        unknown_powers[keys[k]] = v
            if not unknown_powers:
                if not known.dimensionless:
                    conflicts |= {n for n in unknowns if n in solved and f"{_PLACEHOLDER}{n}]" in dict(eq.items)}
                continue
            if len(unknown_powers) > 1:
                rest.append((eq, where))
                continue
            (name, power), = unknown_powers.items()
            solved[name] = Dim.of({k: -v / power for k, v in known.items})
            progress = True
        pending = rest
    return solved, conflicts
