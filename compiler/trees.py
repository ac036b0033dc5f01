"""Laws as expression trees over the inputs in their declared units.

The same JSON shape as a player's predictor (SPEC.md): a number,
`{"var": NAME}`, or `{"op": OP, "args": [...]}`. Params and lets are
inlined, SI factors made explicit, so a tree maps the numbers a player sees
to the number the player must predict. Used for the Identification
candidate G(x; s) and as the reference for strict symbolic scoring.
"""

from __future__ import annotations

import math

from .model import CheckedCard, Environment, TBinary, TCall, TConst, TExpr, TRef, TUnary

Tree = object  # float | {"var": str} | {"op": str, "args": list}


def _num(value: float) -> float:
    return float(value)


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
                return _num(env.params[e.name].value)
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


def _clean(value: float) -> float:
    """Drop floating-point noise from unit conversions (0.019999999999999997
    -> 0.02): 15 significant digits, well inside every tolerance."""
    return float(f"{value:.15g}")


def _is_const(t: Tree) -> bool:
    return not isinstance(t, dict)


_FOLD = {
    "add": lambda a: sum(a), "sub": lambda a: a[0] - a[1], "mul": lambda a: math.prod(a),
    "div": lambda a: a[0] / a[1], "neg": lambda a: -a[0],
    "pow": lambda a: a[0] ** a[1], "sqrt": lambda a: math.sqrt(a[0]), "exp": lambda a: math.exp(a[0]),
    "log": lambda a: math.log(a[0]), "log10": lambda a: math.log10(a[0]), "sin": lambda a: math.sin(a[0]),
    "cos": lambda a: math.cos(a[0]), "tan": lambda a: math.tan(a[0]),
}


class FoldError(ArithmeticError):
    """Folding a law's constants overflows: the tree would hold inf or NaN."""


def simplify_tree(tree: Tree) -> Tree:
    """Fold constants, drop factors of 1 and terms of 0, flatten sums and
    products. The value is unchanged (up to the 15-digit cleaning)."""
    if _is_const(tree):
        return _clean(tree)
    if "var" in tree:
        return tree
    op = tree["op"]
    args = [simplify_tree(a) for a in tree["args"]]
    if op in ("add", "mul"):
        flat = []
        for a in args:
            flat.extend(a["args"] if isinstance(a, dict) and a.get("op") == op else [a])
        consts = [a for a in flat if _is_const(a)]
        rest = [a for a in flat if not _is_const(a)]
        c = _clean(_FOLD[op](consts)) if consts else (0.0 if op == "add" else 1.0)
        if not math.isfinite(c):
            raise FoldError(f"its constant {'terms add' if op == 'add' else 'factors multiply'} up to {c}")
        if op == "mul" and c == 0.0:
            return 0.0
        if (op == "add" and c != 0.0) or (op == "mul" and c != 1.0):
            rest = [c] + rest if op == "mul" else rest + [c]
        if not rest:
            return c
        return rest[0] if len(rest) == 1 else {"op": op, "args": rest}
    if all(_is_const(a) for a in args) and op in _FOLD:
        try:
            value = _FOLD[op](args)
            if isinstance(value, float) and math.isfinite(value):
                return _clean(value)
        except (ArithmeticError, ValueError):
            pass
    if op == "div" and _is_const(args[1]) and args[1] == 1.0:
        return args[0]
    if op == "div" and _is_const(args[0]) and args[0] == 0.0:
        return 0.0
    if op == "sub" and _is_const(args[1]) and args[1] == 0.0:
        return args[0]
    return {"op": op, "args": args}


def tree_text(tree: Tree) -> str:
    """A readable infix rendering of a tree (for people; not parsed back)."""
    prec = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
    sym = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "^"}
    out: list[str] = []

    def go(t: Tree, outer: int) -> str:
        if isinstance(t, dict) and "var" in t:
            return t["var"]
        if not isinstance(t, dict):
            return f"{t:.10g}"
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
