"""Predictor evaluation against sympy.lambdify, end to end.

    python benchmarks/predictor_eval.py [--points N] [--repeat R] [--seed S]

For a random valid 20-node and 1000-node tree over three inputs, times in one
run (best of R):
  validate  - validate_predictor on the parsed tree
  evaluate  - evaluate_predictor on N points (the interpreter alone)
  ours      - validate + evaluate, what scoring a predictor costs
  sympy     - tree -> sympy conversion + lambdify + the call on N points,
              the alternative of compiling each predictor through sympy
Prints the times and the ratio sympy/ours, and checks the two results agree.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import sympy as sp

from scigame.predictor import (
    MAX_DEPTH,
    OPS,
    PredictorInvalid,
    count_nodes,
    evaluate_predictor,
    tree_depth,
    validate_predictor,
)

INPUTS = ("x", "y", "z")
# Ops defined and bounded on all finite reals: a large random tree built from
# these alone is almost always valid, while one drawing from every op nearly
# always hits a domain error (log of a negative, overflow) somewhere.
TOTAL_OPS = {
    "unary": ["neg", "abs", "cbrt", "sin", "cos", "atan", "tanh", "step", "sign", "round"],
    "binary": ["sub", "atan2"],
    "nary": ["add", "mul", "min", "max"],
}
ALL_OPS = {
    "unary": [op for op, (lo, hi) in OPS.items() if hi == 1],
    "binary": [op for op, (lo, hi) in OPS.items() if lo == 2 and hi == 2],
    "nary": [op for op, (lo, hi) in OPS.items() if hi is None],
}


def random_tree(rng: random.Random, size: int, ops: dict[str, list[str]], depth: int = 0) -> object:
    """A random tree of exactly `size` nodes, no deeper than MAX_DEPTH."""
    if size == 1:
        return {"var": rng.choice(INPUTS)} if rng.random() < 0.6 else rng.uniform(-3, 3)
    if depth >= MAX_DEPTH - 2:
        # Close off with a flat sum of leaves to stay within the depth limit.
        if size == 2:
            return {"op": "neg", "args": [{"var": rng.choice(INPUTS)}]}
        return {"op": "add", "args": [{"var": rng.choice(INPUTS)} for _ in range(size - 1)]}
    kind = rng.random()
    if kind < 0.45 or size == 2:
        return {"op": rng.choice(ops["unary"]), "args": [random_tree(rng, size - 1, ops, depth + 1)]}
    if kind < 0.85 or size < 4:
        left = rng.randint(1, size - 2)
        return {
            "op": rng.choice(ops["binary"] + ops["nary"]),
            "args": [
                random_tree(rng, left, ops, depth + 1),
                random_tree(rng, size - 1 - left, ops, depth + 1),
            ],
        }
    arity = rng.randint(3, min(5, size - 1))
    cuts = sorted(rng.sample(range(1, size - 1), arity - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, size - 1])]
    return {
        "op": rng.choice(ops["nary"]),
        "args": [random_tree(rng, s, ops, depth + 1) for s in sizes],
    }


def random_valid_tree(
    seed: int, size: int, ops: dict[str, list[str]], inputs: dict[str, np.ndarray]
) -> tuple[object, int]:
    """The first random tree (seeds from `seed` on) that evaluates fine on `inputs`."""
    for attempt in range(1000):
        tree = random_tree(random.Random(seed + attempt), size, ops)
        try:
            evaluate_predictor(validate_predictor({"F": tree}, INPUTS, ["F"]), inputs)
        except PredictorInvalid:
            continue
        return tree, attempt + 1
    raise RuntimeError(f"no valid {size}-node tree found in 1000 attempts")


# The same conversion a sympy-based pipeline would need; iterative so a
# 1000-node tree cannot hit the recursion limit.
_SYMBOLS = {name: sp.Symbol(name, real=True) for name in INPUTS}
# Opaque functions mapped to numpy at lambdify time. sympy's own forms do
# not scale: lambdify prints Heaviside by rewriting it as a Piecewise and
# simplifying that (which does not finish on a 1000-node tree), and
# real_root builds a Piecewise that fails on arguments of unknown sign.
_STEP = sp.Function("step")
_CBRT = sp.Function("cbrt")
_RINT = sp.Function("rint")
_NUMPY_EXTRAS = {"step": lambda x: np.heaviside(x, 0.0), "cbrt": np.cbrt, "rint": np.rint}
_SYMPY = {
    "add": sp.Add, "mul": sp.Mul, "min": sp.Min, "max": sp.Max,
    "sub": lambda a, b: a - b, "div": lambda a, b: a / b, "pow": sp.Pow, "atan2": sp.atan2,
    "neg": lambda a: -a, "abs": sp.Abs, "sqrt": sp.sqrt, "cbrt": _CBRT,
    "exp": sp.exp, "log": sp.log, "log10": lambda a: sp.log(a, 10),
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos,
    "atan": sp.atan, "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh,
    "step": _STEP, "sign": sp.sign, "round": _RINT,
}  # fmt: skip


def to_sympy(tree: object) -> sp.Expr:
    values: list[sp.Expr] = []
    stack: list[tuple[object, bool]] = [(tree, False)]
    while stack:
        node, expanded = stack.pop()
        if isinstance(node, dict) and "op" in node:
            if expanded:
                n = len(node["args"])
                args = values[-n:]
                del values[-n:]
                values.append(_SYMPY[node["op"]](*args))
            else:
                stack.append((node, True))
                stack.extend((a, False) for a in reversed(node["args"]))
        elif isinstance(node, dict):
            values.append(_SYMBOLS[node["var"]])
        else:
            values.append(sp.Float(node))
    return values[0]


def sympy_end_to_end(tree: object, inputs: dict[str, np.ndarray]) -> np.ndarray:
    expr = to_sympy(tree)
    fn = sp.lambdify(
        [_SYMBOLS[n] for n in INPUTS], expr, modules=[_NUMPY_EXTRAS, "numpy"]
    )
    with np.errstate(all="ignore"):
        return np.broadcast_to(fn(*(inputs[n] for n in INPUTS)), inputs["x"].shape)


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10_000, help="evaluation points")
    ap.add_argument("--repeat", type=int, default=5, help="take the best of this many runs")
    ap.add_argument("--seed", type=int, default=1, help="first seed for the random trees")
    args = ap.parse_args()

    gen = np.random.default_rng(args.seed)
    inputs = {name: gen.uniform(0.5, 2.0, args.points) for name in INPUTS}

    print(f"{args.points} points, best of {args.repeat}; times in ms")
    header = f"{'nodes':>6} {'depth':>5} {'validate':>9} {'evaluate':>9} {'ours':>9} {'sympy':>10} {'sympy/ours':>11}"
    print(header)
    for size, ops in ((20, ALL_OPS), (1000, TOTAL_OPS)):
        tree, _ = random_valid_tree(args.seed * 1_000_003, size, ops, inputs)
        t_val, pred = best_of(lambda: validate_predictor({"F": tree}, INPUTS, ["F"]), args.repeat)
        t_eval, ours = best_of(lambda: evaluate_predictor(pred, inputs), args.repeat)
        t_ours, _ = best_of(
            lambda: evaluate_predictor(validate_predictor({"F": tree}, INPUTS, ["F"]), inputs),
            args.repeat,
        )
        # sympy caches expression construction, so only the first run is a
        # fair "new predictor" time; the best of R is reported alongside.
        t_first, ref = best_of(lambda: sympy_end_to_end(pred["F"], inputs), 1)
        t_sympy, _ = best_of(lambda: sympy_end_to_end(pred["F"], inputs), args.repeat)
        ok = np.isfinite(ref)
        agree = np.allclose(ours["F"][ok], ref[ok], rtol=1e-9, atol=1e-9)
        print(
            f"{count_nodes(tree):>6} {tree_depth(tree):>5} {t_val * 1e3:>9.3f} {t_eval * 1e3:>9.3f} "
            f"{t_ours * 1e3:>9.3f} {t_sympy * 1e3:>10.2f} {t_sympy / t_ours:>10.1f}x"
            f"   (sympy first run {t_first * 1e3:.1f} ms = {t_first / t_ours:.0f}x; "
            f"agree={agree} on {ok.sum()} points)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
