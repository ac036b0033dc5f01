"""A predictor or law tree as a formula for the HTML page: presentation
MathML (sympy's printer; Chromium renders MathML natively), with the
tree's plain text (`compiler.trees.tree_text`) as the accessible label and
the fallback for a tree sympy cannot take.

Names come from a model's reply and are untrusted, and sympy's printer
writes a symbol's name into `<mi>` unescaped. So sympy only ever sees
names that print as plain markup: a short identifier keeps its own symbol
(sympy then sets `m1` as m with subscript 1 and `alpha` as α), any other
name stands in as a placeholder symbol of letters whose `<mi>` is replaced
by `markup.mathml_identifier` of the real name."""

from __future__ import annotations

import json
import re

import sympy

from ..compiler.trees import tree_text
from ..symbolic import TreeError, tree_to_sympy
from .markup import attr, mathml_identifier, text as esc


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


_PRINTABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def _placeholder(i: int) -> str:
    letters = ""
    while True:
        letters = "abcdefghijklmnopqrstuvwxyz"[i % 26] + letters
        i //= 26
        if not i:
            return "Zscigameplaceholder" + letters


def _symbols(names) -> tuple[dict[str, sympy.Symbol], dict[str, str]]:
    """A sympy symbol per name, and the placeholders' `<mi>` → the real name's."""
    symbols, swaps = {}, {}
    for i, name in enumerate(sorted(names)):
        if _PRINTABLE.fullmatch(name) and not name.startswith("Zscigameplaceholder"):
            symbols[name] = sympy.Symbol(name, real=True)
        else:
            symbols[name] = sympy.Symbol(_placeholder(i), real=True)
            swaps[f"<mi>{_placeholder(i)}</mi>"] = mathml_identifier(name)
    return symbols, swaps


def _swap(markup: str, swaps: dict[str, str]) -> str:
    if not swaps:
        return markup
    return re.sub("<mi>Zscigameplaceholder[a-z]+</mi>", lambda m: swaps.get(m.group(0), m.group(0)), markup)


def formula_html(output: str, tree) -> str:
    """`output = formula` as an inline MathML element (or escaped text)."""
    label = plain_text(tree)
    try:
        from sympy.printing.mathml import mathml
        symbols, swaps = _symbols(_variables(tree) | {output})
        expr = tree_to_sympy(_integral(tree), symbols)
        body = mathml(expr, printer="presentation")
        lhs = mathml(symbols[output], printer="presentation")
    except (TreeError, TypeError, ValueError, RecursionError, AttributeError):
        return f'<code class="formula">{esc(output)} = {esc(label)}</code>'
    return (f'<math class="formula" aria-label="{attr(output)} = {attr(label)}" '
            f'title="{attr(label)}">{_swap(lhs, swaps)}<mo>=</mo>{_swap(body, swaps)}</math>')
