"""Predictor trees the baseline builds: small constructors, constant
folding, and evaluation that returns None instead of raising."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...compiler.trees import simplify_node
from ...predictor import PredictorInvalid, evaluate_predictor


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


def substitute(tree: Any, name: str, value: Any) -> Any:
    """`tree` with the variable `name` replaced by `value` (a number or a
    tree), constants folded."""
    if isinstance(tree, dict) and "var" in tree:
        return (float(value) if is_num(value) else value) if tree["var"] == name else tree
    if isinstance(tree, dict) and "op" in tree:
        return fold(tree["op"], [substitute(a, name, value) for a in tree.get("args", [])])
    return tree


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
