"""A predictor or law tree as a formula for the HTML page: presentation
MathML (sympy's printer; Chromium renders MathML natively), with the
tree's plain text (`compiler.trees.tree_text`) as the accessible label and
the fallback for a tree sympy cannot take."""

from __future__ import annotations

import html
import json

import sympy

from ..compiler.trees import tree_text
from ..symbolic import TreeError, tree_to_sympy


def _variables(tree) -> set[str]:
    names, stack = set(), [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "var" in node and isinstance(node["var"], str):
                names.add(node["var"])
            if isinstance(node.get("args"), list):
                stack.extend(node["args"])
    return names


def _integral(tree):
    """The tree with integral floats as ints, so that r^2.0 prints as r^2."""
    if isinstance(tree, float) and tree.is_integer() and abs(tree) < 1e15:
        return int(tree)
    if isinstance(tree, dict) and isinstance(tree.get("args"), list):
        return {**tree, "args": [_integral(a) for a in tree["args"]]}
    return tree


def plain_text(tree) -> str:
    try:
        return tree_text(tree)
    except (KeyError, TypeError, ValueError, AttributeError):
        return json.dumps(tree)[:500]


def formula_html(output: str, tree) -> str:
    """`output = formula` as an inline MathML element (or escaped text)."""
    text = plain_text(tree)
    try:
        symbols = {n: sympy.Symbol(n, real=True) for n in _variables(tree)}
        expr = tree_to_sympy(_integral(tree), symbols)
        from sympy.printing.mathml import mathml
        body = mathml(expr, printer="presentation")
    except (TreeError, TypeError, ValueError, RecursionError, AttributeError):
        return f'<code class="formula">{html.escape(output)} = {html.escape(text)}</code>'
    lhs = mathml(sympy.Symbol(output), printer="presentation")
    return (f'<math class="formula" aria-label="{html.escape(output)} = {html.escape(text)}" '
            f'title="{html.escape(text)}">{lhs}<mo>=</mo>{body}</math>')
