"""The one size policy of every stage: how large and how deep an expression
may be, checked once, iteratively, on the parse tree before anything walks
it recursively; and the recursion allowance every stage runs under.

A card within these limits goes through lint, build, emit, load, simulate
and score; a card beyond them gets E104 at the expression. The numbers are
set by the slowest consumer: trees are stored as nested JSON, which
pydantic reads only about 200 containers deep (so at most MAX_DEPTH
operations deep), and numba compiles a few hundred operations a second
on a busy machine (so at most MAX_OPERATIONS in a card: its simulator
compiles within seconds).

Depth counts nested operations the way the stored law trees nest them: the
terms of one sum and the factors of one product are flat (a 500-term sum
is one level), parentheses cost nothing, everything else (`-`, `/`, `^`, a
function call, unary minus) is a level.
"""

from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from .ast import OPERATORS

if TYPE_CHECKING:
    from lark import Tree

#: The deepest nesting of operations in one expression.
MAX_DEPTH = 64
#: Operations in all the expressions of one card together.
MAX_OPERATIONS = 600
#: The largest relative measurement noise a card or `eval --noise` may ask for
#: (1000%: beyond it the noise swamps any law, and near 1e308 it overflows).
MAX_NOISE_REL = 10.0
#: The largest absolute noise, in the output's unit.
MAX_NOISE_ABS = 1e100


def widened_bounds(kind: str, lo: float, hi: float, factor: float) -> tuple[float, float]:
    """A `range`/`integer` domain widened `factor` times about its centre, or a
    `log` domain widened in the logarithm (see sampling.widened); OverflowError
    when the widened domain reaches past the largest float."""
    import math
    if kind == "log":
        centre, half = (math.log(lo) + math.log(hi)) / 2, (math.log(hi) - math.log(lo)) / 2
        lo, hi = math.exp(centre - factor * half), math.exp(centre + factor * half)
    else:
        centre, half = (lo + hi) / 2, (hi - lo) / 2
        lo, hi = centre - factor * half, centre + factor * half
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise OverflowError("the widened domain is not finite")
    return lo, hi


#: Tokens in one card: the parser handles about 20,000 a second, so this
#: bounds lint's time on any text. Counted before parsing (count_tokens).
MAX_TOKENS = 50_000
#: Python frames every stage may use: a few per level of the deepest chain
#: a card within the limits can hold (a sum of MAX_OPERATIONS terms is a
#: left-leaning chain in the AST), plus headroom for the libraries.
RECURSION_LIMIT = 8 * MAX_OPERATIONS + 5000

#: The lexer's tokens, closely enough to count them in one C-speed pass:
#: strings, comments and units are one token each, as in grammar/sci.lark.
_TOKEN = re.compile(r'"""[\s\S]*?"""|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|#[^\n]*|\[[^\]\n]*\]'
                    r'|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\.|[<>]=|\S')


def count_tokens(text: str, stop: int = MAX_TOKENS + 1) -> int:
    """About how many tokens the card text holds (comments included),
    counting no further than `stop`."""
    n = 0
    for _ in _TOKEN.finditer(text):
        n += 1
        if n >= stop:
            break
    return n


_EXPRESSION_RULES = frozenset(OPERATORS) | {"call"}
_FLAT = {"add": "add", "mul": "mul"}


@contextlib.contextmanager
def recursion_allowance() -> Iterator[None]:
    """Run a stage with the recursion limit of this policy (never lowered)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@dataclass
class ExpressionSize:
    operations: int = 0                      # in the whole card
    largest: Optional["Tree"] = None           # the expression with the most operations
    largest_operations: int = 0
    deepest: Optional["Tree"] = None           # the most deeply nested operation
    depth: int = 0


def expression_size(tree: "Tree") -> ExpressionSize:
    """Count the operations of every expression of a parse tree and find
    the deepest one. Iterative: works on trees of any depth."""
    size = ExpressionSize()
    per_root: dict[int, list] = {}
    stack: list = [(tree, 0, None, None)]
    while stack:
        node, depth, parent, root = stack.pop()
        if not hasattr(node, "data"):
            continue
        kind = node.data
        if kind in _EXPRESSION_RULES:
            root = root if root is not None else node
            entry = per_root.setdefault(id(root), [root, 0])
            entry[1] += 1
            size.operations += 1
            if not (parent is not None and _FLAT.get(kind) == parent):
                depth += 1
            if depth > size.depth:
                size.depth, size.deepest = depth, node
            parent = kind
        elif kind not in ("number", "name"):
            depth, parent, root = 0, None, None
        for child in node.children:
            if hasattr(child, "data"):
                stack.append((child, depth, parent, root))
    if per_root:
        size.largest, size.largest_operations = max(per_root.values(), key=lambda e: e[1])
    return size


def tree_depth(tree: object) -> int:
    """How deep a stored law tree (the predictor JSON shape) nests
    operations; iterative."""
    deepest, stack = 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict) and "op" in node:
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((a, depth) for a in node.get("args", ()))
    return deepest
