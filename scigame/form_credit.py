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
import zss.compare

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
    distance = edit_distance(cand, law, children, _once(_label))
    return max(0.0, 1.0 - distance / law_nodes)


def edit_distance(a: sympy.Expr, b: sympy.Expr, children, label) -> float:
    """`zss.simple_distance(a, b, children, label, _cost)`: Zhang and Shasha's
    dynamic programme on zss's own annotation of the trees (post-order,
    leftmost descendants, keyroots), each label read once per node, without
    the list of edit operations zss builds at every cell of every subproblem
    whether asked for or not (most of its time). The same minima of the same
    integer costs, so the same distance."""
    A, B = zss.compare.AnnotatedTree(a, children), zss.compare.AnnotatedTree(b, children)
    la, lb = [label(n) for n in A.nodes], [label(n) for n in B.nodes]
    remove, insert = [_cost(x, "") for x in la], [_cost("", y) for y in lb]
    Al, Bl = A.lmds, B.lmds
    tree = [[0] * len(lb) for _ in la]
    for i in A.keyroots:
        for j in B.keyroots:
            ioff, joff = Al[i] - 1, Bl[j] - 1
            m, n = i - Al[i] + 2, j - Bl[j] + 2
            fd = [[0] * n for _ in range(m)]
            for x in range(1, m):
                fd[x][0] = fd[x - 1][0] + remove[x + ioff]
            for y in range(1, n):
                fd[0][y] = fd[0][y - 1] + insert[y + joff]
            for x in range(1, m):
                xi = x + ioff
                row, above = fd[x], fd[x - 1]
                whole_a = Al[i] == Al[xi]
                for y in range(1, n):
                    yj = y + joff
                    if whole_a and Bl[j] == Bl[yj]:
                        row[y] = min(above[y] + remove[xi], row[y - 1] + insert[yj],
                                     above[y - 1] + _cost(la[xi], lb[yj]))
                        tree[xi][yj] = row[y]
                    else:
                        row[y] = min(above[y] + remove[xi], row[y - 1] + insert[yj],
                                     fd[Al[xi] - 1 - ioff][Bl[yj] - 1 - joff] + tree[xi][yj])
    return float(tree[-1][-1])
