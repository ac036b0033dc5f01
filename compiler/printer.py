"""Expressions back to `.sci` text, with only the parentheses they need.

Used in messages, to compare expressions regardless of layout, and to show
the Identification candidate G(x; s) to players.
"""

from __future__ import annotations

from . import ast as A

_PRECEDENCE = {name: op.precedence for name, op in A.OPERATORS.items()}
_SYMBOL = {name: A.OPERATORS[name].text for name in A.BINARY_OPERATORS}


def format_expr(e: A.Expr) -> str:
    """Render an AST expression; parse(format_expr(e)) gives back e's shape."""
    return _fmt(e)


def _fmt(e: A.Expr) -> str:
    if isinstance(e, A.Number):
        return e.text + (f" [{e.unit.text}]" if e.unit else "")
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Call):
        return f"{e.name}(" + ", ".join(_fmt(a) for a in e.args) + ")"
    if isinstance(e, A.Unary):
        return "-" + _wrap(e.operand, _PRECEDENCE["neg"], right=True)
    prec = _PRECEDENCE[e.op]
    if e.op == "pow":  # right-associative: the left side needs parentheses at equal precedence
        left = _wrap(e.left, prec + 1)
        right = _wrap(e.right, prec - 1 if isinstance(e.right, A.Unary) else prec)
        return f"{left}^{right}"
    left = _wrap(e.left, prec)
    right = _wrap(e.right, prec + 1)
    return f"{left} {_SYMBOL[e.op]} {right}"


def _wrap(e: A.Expr, min_prec: int, right: bool = False) -> str:
    text = _fmt(e)
    if isinstance(e, A.Binary):
        prec = _PRECEDENCE[e.op]
    elif isinstance(e, A.Unary):
        prec = _PRECEDENCE["neg"]
    else:  # names, numbers (with or without a unit) and calls are atoms
        return text
    return text if prec >= min_prec else f"({text})"
