"""Predictor trees the baseline builds: small constructors, constant
folding, and evaluation that returns None instead of raising."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from ...compiler.trees import simplify_node
from ...predictor import PredictorInvalid, evaluate_predictor
from .task import fmt


def var(name: str) -> dict:
    return {"var": name}


def op(name: str, *args: Any) -> dict:
    return {"op": name, "args": list(args)}


def is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def product(factors: list) -> Any:
    """The product of the factors, without factors of 1."""
    factors = [f for f in factors if not (is_num(f) and f == 1.0)]
    if not factors:
        return 1.0
    return factors[0] if len(factors) == 1 else op("mul", *factors)


def power(tree: Any, p: float) -> Any:
    """tree^p, written as sqrt for 1/2 and as the tree itself for 1."""
    if p == 1:
        return tree
    if p == 0.5:
        return op("sqrt", tree)
    return op("pow", tree, float(p))


def scaled(c: float, tree: Any) -> Any:
    return float(c) * tree if is_num(tree) else (tree if c == 1.0 else op("mul", float(c), tree))


def refold(tree: Any, leaf: Callable[[Any], Any] = lambda t: t) -> Any:
    """`tree` rebuilt bottom-up with `fold`, each leaf (a number or a
    variable) replaced by what `leaf` gives for it: the one recursion under
    `substitute` and `drop_zero_terms`."""
    if isinstance(tree, dict) and "op" in tree:
        return fold(tree["op"], [refold(a, leaf) for a in tree.get("args", [])])
    return leaf(tree)


def substitute(tree: Any, name: str, value: Any) -> Any:
    """`tree` with the variable `name` replaced by `value` (a number or a
    tree), constants folded."""
    new = float(value) if is_num(value) else value
    return refold(tree, lambda t: new if isinstance(t, dict) and t.get("var") == name else t)


def drop_zero_terms(tree: Any) -> Any:
    """`tree` folded again bottom-up (`fold`) when a constant in it is 0 (a
    fit set it so): its terms drop out (0 + h0 + 0·sin(0·t) is written h0).
    A tree without a zero constant is returned as it is."""
    def has_zero(t):
        if is_num(t):
            return t == 0
        return isinstance(t, dict) and any(has_zero(a) for a in t.get("args", []))
    return refold(tree) if has_zero(tree) else tree


def fold(name: str, args: list) -> Any:
    """Constant folding plus 0·x = 0, 1·x = x, x + 0 = x, x − 0 = x, x/1 = x
    (so the s = 0 member of a candidate family drops the unused law)."""
    return simplify_node(name, args, evaluate=evaluate)


def evaluate(tree: Any, X: dict[str, np.ndarray]) -> Optional[np.ndarray]:
    """Values of one tree at the points X, or None if it leaves its domain."""
    try:
        out = evaluate_predictor({"y": tree}, X)["y"]
    except (PredictorInvalid, ValueError, KeyError, TypeError, RecursionError):
        return None
    out = np.asarray(out, dtype=float)
    return out if np.all(np.isfinite(out)) else None


#: Infix operators of a law's statement, by binding: + and − loosest, then · and /.
_INFIX = {"add": (" + ", 1), "sub": (" - ", 1), "mul": ("·", 2), "div": ("/", 2)}
#: Denominators an exponent is written with as a fraction (x^(7/3)).
_EXPONENT_DENOMINATORS = 12


def _exponent_text(p: Any) -> str:
    """An exponent: an integer or a decimal as it is (x^2, x^-2, x^2.6), a
    small rational as a fraction in parentheses (x^(7/3)), a tree in
    parentheses unless it is a name or a call."""
    if not is_num(p):
        return _wrapped(p, 4)
    q = Fraction(float(p)).limit_denominator(_EXPONENT_DENOMINATORS)
    if q.denominator > 1 and abs(float(q) - p) <= 1e-9 * max(1.0, abs(p)) and fmt(p) != f"{p:g}":
        return f"({q})"
    return fmt(p)


def _wrapped(tree: Any, binding: int) -> str:
    """tree_text(tree), in parentheses when it binds looser than `binding`
    (1: a sum, 2: a product, 3: the right side of /, 4: a power's base or
    exponent; a negative number counts as a sum)."""
    if is_num(tree):
        return f"({fmt(tree)})" if tree < 0 and binding > 1 else fmt(tree)
    name = tree.get("op") if isinstance(tree, dict) else None
    own = _INFIX[name][1] if name in _INFIX else 1 if name == "neg" else 3 if name == "pow" else 4
    return f"({tree_text(tree)})" if own < binding else tree_text(tree)


def _added(term: Any) -> str:
    """` + term`, or ` - …` for a negative constant or a product led by one."""
    if is_num(term) and term < 0:
        return f" - {fmt(-term)}"
    if isinstance(term, dict) and term.get("op") == "mul" and term["args"] and is_num(term["args"][0]) \
            and term["args"][0] < 0:
        return f" - {_wrapped(op('mul', -term['args'][0], *term['args'][1:]), 2)}"
    return f" + {_wrapped(term, 1)}"


def tree_text(tree: Any) -> str:
    """A law's statement from its tree, read as ordinary arithmetic (· times,
    ^ power, binding tighter than · and /; what needs them gets
    parentheses): the one source of every candidate's text, so the
    statement says the law the tree computes."""
    if is_num(tree):
        return fmt(tree)
    if "var" in tree:
        return tree["var"]
    name, args = tree["op"], tree.get("args", [])
    if name == "pow":
        return f"{_wrapped(args[0], 4)}^{_exponent_text(args[1])}"
    if name == "neg":
        return f"-{_wrapped(args[0], 2)}"
    if name == "mul":  # c·x, -x for c = -1, and a factor 1/d as a division: 3/(1 + x)
        kept = [a for a in args if not (is_num(a) and a == 1.0)]
        if not kept:
            return "1"
        minus = is_num(kept[0]) and kept[0] == -1.0 and len(kept) > 1
        kept = kept[1:] if minus else kept
        if len(kept) == 1 and not minus:
            return tree_text(kept[0])
        out = fmt(kept[0]) if is_num(kept[0]) else _wrapped(kept[0], 2)
        for a in kept[1:]:
            reciprocal = isinstance(a, dict) and a.get("op") == "div" and is_num(a["args"][0]) and a["args"][0] == 1.0
            out += f"/{_wrapped(a['args'][1], 3)}" if reciprocal else f"·{_wrapped(a, 2)}"
        return f"-{out}" if minus else out
    if name in _INFIX:  # add, sub, div: the right operands of − and / bind tighter than their own level
        symbol, binding = _INFIX[name]
        first = fmt(args[0]) if is_num(args[0]) else _wrapped(args[0], binding)
        if name == "add":  # a negative term as a difference: x - 3 and x - 2·s, not x + -3 and x + -2·s
            return first + "".join(_added(a) for a in args[1:])
        if name == "sub":  # a negative number taken away as a sum: h0 + 0.765, not h0 - (-0.765)
            return first + "".join(f" + {fmt(-a)}" if is_num(a) and a < 0 else f"{symbol}{_wrapped(a, binding + 1)}"
                                   for a in args[1:])
        return symbol.join([first] + [_wrapped(a, binding + 1) for a in args[1:]])
    return f"{name}({', '.join(tree_text(a) for a in args)})"
