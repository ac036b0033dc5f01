"""Graded form credit: how close a predictor's formula is to the law's,
beyond the binary strict verdict.

    form_credit = 1 - min(1, TED(candidate, law) / nodes(law))

TED is the Zhang–Shasha tree edit distance (the `zss` library) between the
two expression trees, each node relabelled or inserted or deleted at cost
1; nodes(law) is the size of the law's tree. This is the normalised edit
distance of the SRSD benchmark, turned into a credit: 1 is the law's form,
0 is nothing in common (or worse). Both trees are first put in sympy's
canonical form with exact numbers (`scigame.symbolic.tree_to_sympy`, which
reads 3.141592653589793 as π): sums and products flattened and ordered,
like factors merged into powers, so writing the same formula in another
order costs nothing. Every constant subexpression is one leaf, and all
such leaves are labelled alike (2.006 and 2π/√9.81 are both "a
constant"), except small exact numbers (2, 1/2, exponents with numerator
and denominator up to 12), which keep their value; variables and
operations keep their names. A predictor
the strict check finds to be the law gets 1.
"""

from __future__ import annotations

from typing import Any, Sequence

import sympy
import zss

from .residue import law_constants
from .symbolic import TreeError, Variable, symbols_for, tree_to_sympy

__all__ = ["form_credit"]

_SMALL = 12
#: Trees larger than this (nodes) are not compared: the edit distance is
#: quadratic in size and a predictor that big is no textbook form anyway.
MAX_NODES = 400


def _label(e: sympy.Expr) -> str:
    if e.is_Symbol:
        return e.name
    if e.is_Rational and abs(e.p) <= _SMALL and e.q <= _SMALL:
        return str(e)
    if not e.free_symbols:
        return "constant"
    return type(e).__name__


def _children(e: sympy.Expr) -> list[sympy.Expr]:
    """A constant subexpression (2*pi/sqrt(9.81)) is one leaf, and so is
    the constant part of a sum or a product."""
    if e.is_Atom or not e.free_symbols:
        return []
    if isinstance(e, (sympy.Add, sympy.Mul)):
        const = [a for a in e.args if not a.free_symbols]
        rest = [a for a in e.args if a.free_symbols]
        if len(const) > 1:
            return [e.func(*const)] + rest
    return list(e.args)


def _size(e: sympy.Expr, children=_children) -> int:
    stack, n = [e], 0
    while stack:
        node = stack.pop()
        n += 1
        stack.extend(children(node))
    return n


def _cost(a: str, b: str) -> int:
    return 0 if a == b else 1


def _once(fn):
    """`fn` of a node, worked out once per node of one comparison: the edit
    distance asks for the label of each pair of nodes it compares (millions
    of calls for trees of a few dozen nodes), and a label reads the node's
    free symbols, a walk of its whole subtree. Equal subexpressions share an
    entry: a label and the children are functions of the expression alone."""
    seen: dict = {}

    def cached(e):
        try:
            return seen[e]
        except KeyError:
            value = seen[e] = fn(e)
            return value
    return cached


def form_credit(candidate: Any, reference: Any, variables: Sequence[Variable]) -> float:
    """1 - normalised tree edit distance between the candidate and the law
    (module docstring); 0.0 for a candidate that is not a valid tree or is
    too large to compare."""
    symbols = symbols_for(variables)
    law = tree_to_sympy(reference, symbols, exact=True)
    try:
        cand = tree_to_sympy(candidate, symbols, exact=True, constants=law_constants(law))
    except TreeError:
        return 0.0
    children = _once(_children)
    law_nodes, cand_nodes = _size(law, children), _size(cand, children)
    if cand_nodes > MAX_NODES or law_nodes > MAX_NODES:
        return 0.0
    distance = zss.simple_distance(cand, law, children, _once(_label), _cost)
    return max(0.0, 1.0 - distance / law_nodes)
