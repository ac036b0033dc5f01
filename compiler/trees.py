"""Laws as expression trees over the inputs in their declared units.

The same JSON shape as a player's predictor (SPEC.md): a number,
`{"var": NAME}`, or `{"op": OP, "args": [...]}`. Params and lets are
inlined, SI factors made explicit, so a tree maps the numbers a player sees
to the number the player must predict. Used for the Identification
candidate G(x; s) and as the reference for strict symbolic scoring.

Law trees are **exact**: a number leaf means the decimal it prints as
(`9.81` is 981/100), π is the node `acos(-1)` (which numpy and sympy both
evaluate to π), and constants are folded only where the exact result is
again such a decimal. So `2*pi` stays `2*acos(-1)` and the degree factor is
`acos(-1)/180`, never a 15-digit approximation (see `exact_constant`).
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction
from typing import Optional

from .ast import BINARY_OPERATORS, OPERATORS
from .model import CheckedCard, Environment, TBinary, TCall, TConst, TExpr, TRef, TUnary
from .predictor_ops import fold_exact as _fold_exact

Tree = object  # float | {"var": str} | {"op": str, "args": list}

#: The tree of π: acos(-1) is π exactly for sympy and 3.141592653589793 for numpy.
PI_TREE = {"op": "acos", "args": [-1.0]}

#: A float within this many units in the last place of an exact constant
#: (a short decimal, or a simple multiple of π) is read as that constant:
#: one or two roundings (a card value times an SI factor) stay inside it.
EXACT_ULPS = 4
#: Decimals of at most this many significant digits are candidates: card
#: literals and SI factors are short; a random double is within a few ulps
#: of such a decimal with odds below 1e-4.
_SHORT_DIGITS = 12
_PI_DENOMINATOR = 1000
#: Fractions up to this denominator are candidates too: a card value times
#: an SI factor such as 1/3600 (0.7 [1/h] is 7/36000 s^-1).
_DENOMINATOR = 10 ** 6


def _short_decimal(value: float, ulps: float) -> Fraction | None:
    """The shortest decimal (<= 12 digits) within `ulps` ulps of `value`."""
    slack = ulps * math.ulp(value)
    for digits in range(1, _SHORT_DIGITS + 1):
        d = Decimal(f"{value:.{digits}g}")
        if abs(float(d) - value) <= slack:
            return Fraction(d)
    return None


@functools.lru_cache(maxsize=65536)
def exact_constant(value: float, ulps: float = EXACT_ULPS) -> tuple[Fraction, int]:
    """The exact constant a float stands for, as (q, k) meaning q·π^k.

    A float within `ulps` ulps of a short decimal is that decimal
    (`0.30000000000000004` is 3/10); one within `ulps` ulps of a short
    decimal or a simple fraction (denominator <= 1000) times π is that
    multiple of π (`0.017453292519943295` is π/180, `6.283185307179586` is
    2π); one within `ulps` ulps of a fraction with denominator up to 10^6 is
    that fraction (`0.7/3600` is 7/36000). Any other float is the decimal it
    prints as (k = 0).
    """
    if value == 0 or not math.isfinite(value):
        return Fraction(0 if value == 0 else repr(value)), 0
    short = _short_decimal(value, ulps)
    if short is not None:
        return short, 0
    slack = ulps * math.ulp(value)
    ratio = value / math.pi
    nice = Fraction(ratio).limit_denominator(_PI_DENOMINATOR)
    for q in (nice, _short_decimal(ratio, ulps)):
        if q is not None and q != 0 and abs(float(q) * math.pi - value) <= slack:
            return q, 1
    fraction = Fraction(value).limit_denominator(_DENOMINATOR)
    if abs(float(fraction) - value) <= slack:
        return fraction, 0
    return Fraction(repr(value)), 0


def _representable(q: Fraction) -> bool:
    """Whether a float leaf can carry `q` exactly (its repr is q)."""
    try:
        f = float(q)
    except OverflowError:
        return False
    return math.isfinite(f) and Fraction(repr(f)) == q


def _check_finite(op: str, q: Optional[Fraction]) -> None:
    """Raise FoldError when exact constants fold to a number beyond a float."""
    if q is None:
        return
    try:
        f = float(q)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise FoldError(op)


def _rational_tree(q: Fraction) -> Tree:
    if _representable(q):
        return float(q)
    return {"op": "div", "args": [float(q.numerator), float(q.denominator)]}


def _num(value: float) -> Tree:
    """A float of the checked card (SI value, factor) as an exact tree."""
    q, k = exact_constant(float(value))
    if k == 0:
        return _rational_tree(q)
    if q == 1:
        return PI_TREE
    if _representable(q):
        return {"op": "mul", "args": [float(q), PI_TREE]}
    num = PI_TREE if q.numerator == 1 else {"op": "mul", "args": [float(q.numerator), PI_TREE]}
    return {"op": "div", "args": [num, float(q.denominator)]}


def _scale(tree: Tree, factor: float) -> Tree:
    if factor == 1.0:
        return tree
    return {"op": "mul", "args": [tree, _num(factor)]}


def expr_tree(card: CheckedCard, env: Environment, expr: TExpr) -> Tree:
    """A typed expression of `env` as a tree over inputs in declared units;
    its value is in SI."""
    factors = {s.name: s.unit.si_factor for s in card.inputs}
    lets = dict(env.lets)
    memo: dict[str, Tree] = {}

    def conv(e: TExpr) -> Tree:
        if isinstance(e, TConst):
            return _num(e.value)
        if isinstance(e, TRef):
            if e.role == "input":
                return _scale({"var": e.name}, factors[e.name])
            if e.role == "param":
                p = env.params[e.name]
                return _rational_tree(p.exact) if p.exact is not None else _num(p.value)
            if e.name not in memo:
                memo[e.name] = conv(lets[e.name])
            return memo[e.name]
        if isinstance(e, TUnary):
            return {"op": "neg", "args": [conv(e.operand)]}
        if isinstance(e, TBinary):
            return {"op": e.op, "args": [conv(e.left), conv(e.right)]}
        assert isinstance(e, TCall)
        return {"op": e.fn, "args": [conv(a) for a in e.args]}

    return simplify_tree(conv(expr))


def law_tree(card: CheckedCard, env: Environment, output: str) -> Tree:
    """The law of `output` in `env` as a tree from inputs to the output, all
    in declared units, simplified for people to read."""
    out_factor = next(o.unit.si_factor for o in card.outputs if o.name == output)
    tree = expr_tree(card, env, env.laws[output])
    return simplify_tree(tree if out_factor == 1.0 else {"op": "div", "args": [tree, _num(out_factor)]})


def _is_const(t: Tree) -> bool:
    return not isinstance(t, dict)


def _exact(t: float) -> Fraction:
    return Fraction(repr(float(t)))


def _has_var(t: Tree) -> bool:
    stack = [t]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "var" in node:
                return True
            stack.extend(node["args"])
    return False


def _fold_leaves(op: str, leaves: list[float]) -> list[float]:
    """The number leaves of a flat sum or product: one leaf when their exact
    sum/product is a decimal a float carries, else all of them, unfolded."""
    value = _fold_exact(op, [_exact(a) for a in leaves])
    _check_finite(op, value)
    if value is not None and _representable(value):
        return [float(value)]
    return leaves


def _flat(op: str, args: list[Tree]) -> list[Tree]:
    """The terms of a sum or factors of a product, nested ones lifted, the
    number leaves folded exactly, and (a product) constants first."""
    flat = []
    for a in args:
        flat.extend(a["args"] if isinstance(a, dict) and a.get("op") == op else [a])
    leaves = _fold_leaves(op, [a for a in flat if _is_const(a)]) if any(map(_is_const, flat)) else []
    rest = [a for a in flat if not _is_const(a)]
    # constants first, constant subtrees (pi) before the variable factors
    return leaves + sorted(rest, key=_has_var) if op == "mul" else rest + leaves


def _without_units(op: str, args: list[Tree]) -> Tree:
    """A sum without its terms of 0, a product without its factors of 1
    (0 if a factor is 0)."""
    if op == "mul" and any(_is_const(a) and a == 0 for a in args):
        return 0.0
    unit = 0.0 if op == "add" else 1.0
    rest = [a for a in args if not (_is_const(a) and a == unit)]
    if not rest:
        return unit
    return rest[0] if len(rest) == 1 else {"op": op, "args": rest}


class FoldError(ArithmeticError):
    """Folding a law's constants overflows: the tree would hold inf or NaN.
    `op` is the operation that overflowed; the words are diagnostics.fold_reason's."""

    def __init__(self, op: str):
        super().__init__(op)
        self.op = op

    def __str__(self) -> str:
        from .diagnostics import fold_reason
        return fold_reason(self.op)


def simplify_tree(tree: Tree) -> Tree:
    """Fold constants exactly, drop factors of 1 and terms of 0, flatten
    sums and products. The value is unchanged, exactly: a constant
    subexpression is folded only when its exact value is a decimal that a
    float leaf carries (2*9.81 is 19.62; 2*pi and sqrt(9.81) stay trees)."""
    if _is_const(tree):
        return float(tree)
    if "var" in tree:
        return tree
    return simplify_node(tree["op"], [simplify_tree(a) for a in tree["args"]])


def simplify_node(op: str, args: list[Tree], evaluate=None) -> Tree:
    """The node `op` over `args` (each simplified already), simplified: the
    one simplifier of predictor trees, the compiler's and the baseline's.

    Both drop factors of 1 and terms of 0 (a factor of 0 makes 0), x - 0 and
    x / 1. Without `evaluate` (simplify_tree, the compiler's laws) constants
    fold exactly, sums and products are flattened and 0 / x is 0. With it (a
    function of a tree and points giving its values, or None outside its
    domain: the baseline's candidates) a node of numbers folds to its float
    value when that is finite, and no node is flattened or reordered."""
    if evaluate is not None and all(_is_const(a) for a in args):
        return _float_value(op, args, evaluate)
    if op in ("add", "mul"):
        return _without_units(op, _flat(op, args) if evaluate is None else args)
    if evaluate is None and all(_is_const(a) for a in args):
        value = _fold_exact(op, [_exact(a) for a in args])
        _check_finite(op, value)
        if value is not None and _representable(value):
            return float(value)
    if op in ("sub", "div") and _is_const(args[1]) and args[1] == (0.0 if op == "sub" else 1.0):
        return args[0]
    if evaluate is None and op == "div" and _is_const(args[0]) and args[0] == 0.0:
        return 0.0
    return {"op": op, "args": list(args)}


def _float_value(op: str, args: list[float], evaluate) -> Tree:
    """A node of numbers as its float value, or as it is where that is not finite."""
    import numpy as np

    value = evaluate({"op": op, "args": [float(a) for a in args]}, {})
    if value is not None and np.size(value) and math.isfinite(float(np.ravel(value)[0])):
        return float(np.ravel(value)[0])
    return {"op": op, "args": list(args)}


def tree_text(tree: Tree) -> str:
    """A readable infix rendering of a tree (for people; not parsed back)."""
    prec = {name: op.precedence for name, op in OPERATORS.items()}
    # the loosest operators spaced, as a card is usually written
    sym = {name: f" {OPERATORS[name].text} " if prec[name] == 1 else OPERATORS[name].text
           for name in BINARY_OPERATORS}
    out: list[str] = []

    def go(t: Tree, outer: int) -> str:
        if isinstance(t, dict) and "var" in t:
            return t["var"]
        if not isinstance(t, dict):
            return f"{t:.10g}"
        if t == PI_TREE:
            return "pi"
        op, args = t["op"], t["args"]
        if op == "neg":
            s = "-" + go(args[0], 3)
            p = 3
        elif op in sym:
            p = prec[op]
            if op == "pow":
                s = go(args[0], p + 1) + "^" + go(args[1], p)
            else:
                parts = [go(args[0], p)] + [go(a, p + 1) for a in args[1:]]
                s = sym[op].join(parts)
        else:
            return f"{op}(" + ", ".join(go(a, 0) for a in args) + ")"
        return f"({s})" if p < outer else s

    out.append(go(tree, 0))
    return out[0]
