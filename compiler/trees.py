"""Laws as expression trees over the inputs in their declared units.

The same JSON shape as a player's predictor (SPEC.md): a number,
`{"var": NAME}`, or `{"op": OP, "args": [...]}`. Params and lets are
inlined, SI factors made explicit, so a tree maps the numbers a player sees
to the number the player must predict. Used for the Identification
candidate G(x; s) and as the reference for strict symbolic scoring.
"""

from __future__ import annotations

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

    return conv(expr)


def law_tree(card: CheckedCard, env: Environment, output: str) -> Tree:
    """The law of `output` in `env` as a tree from inputs to the output, all
    in declared units."""
    out_factor = next(o.unit.si_factor for o in card.outputs if o.name == output)
    tree = expr_tree(card, env, env.laws[output])
    return tree if out_factor == 1.0 else {"op": "div", "args": [tree, _num(out_factor)]}


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
