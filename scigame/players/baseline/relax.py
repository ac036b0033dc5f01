"""Relaxing a found structure: one exponent of a candidate law made a real
number, refined continuously, then snapped to what the evidence supports.

The families of search.py write their exponents as small rationals (an
integer, a half, a third) and their functions bare (exp(a·Q), log(a·Q),
1 − exp(a·Q), (1 + a·Q)^b with b in a short list). A law nobody has seen
moves one of them: r^2.6 for r², (1 + θ²)^0.3 for √(1 + θ²),
log(Q)^1.5, exp(−a·T^−0.7), (1 − e^(−t/τ))^2. The grammar here composes
one real exponent onto any candidate the search found, at any of its
places:

- the exponent of every power in the tree (√ counts as the power ½);
- a power put around every function of the inputs (exp, log, sin, cos,
  tanh) and around every sum or difference (a power of a sum);
- a power put on every input inside a function's argument or a sum.

For each place the exponent and the law's coefficients (the numbers
multiplying its factors) are refined together by nonlinear least squares
on the errors in tolerance units, from the rational guess; a relaxed law
is kept only when it fits every point within the tolerance where its
parent did not. Its exponent is then snapped to the simplest value the data
support: a small rational (fitting.snap_options), else the shortest decimal
(fitting.snap_decimals: the author wrote 1.3, not 1.2987). Its description
length is its parent's plus RELAX_COST nats and the digits of the new
exponent, and it carries one more fitted constant, so the model choice
(select.py) prefers the parent whenever the parent predicts as well.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from ...compiler.predictor_ops import OP_TABLE
from ...predictor import evaluate_unchecked
from .fitting import (Law, exponent_penalty, refine, rounding_bound, scaled_errors, snap_options,
                      worst_error)
from .monomials import exact_fit
from .task import fmt
from .trees import drop_zero_terms, is_num, op, tree_text, var

#: Candidate laws relaxed (the best by in-sample fit and description length).
RELAXED_LAWS = 4
#: Laws of one family (their kind, numbers aside) relaxed at most.
PER_FAMILY = 2
#: Places relaxed per law at most.
PLACES = 8
#: Nats for a relaxed exponent, besides the digits it is written with.
RELAX_COST = 1.5
#: A relaxed law is kept only if its sum of squared errors is below this
#: fraction of its parent's.
IMPROVEMENT = 0.25
#: Readings the sum, angle and input passes need at least: with fewer, a law of
#: three or four constants fits them whatever its structure (and the passes,
#: run on every short episode, would cost more than they find).
PASS_READINGS = 7
#: Sums of at most this many terms have their exponents relaxed (sum_places);
#: a longer sum fits many shapes with its own coefficients.
SUM_TERMS = 2
#: Sums relaxed at most (the best by in-sample fit and description length).
SUM_LAWS = 3
#: Functions a power may be put around.
FUNCTIONS = ("exp", "log", "sin", "cos", "tanh", "sub", "add")

Path = tuple


def _get(tree: Any, path: Path) -> Any:
    for i in path:
        tree = tree["args"][i]
    return tree


def _set(tree: Any, path: Path, value: Any) -> Any:
    """A copy of tree with the node at path replaced (the rest shared)."""
    if not path:
        return value
    args = list(tree["args"])
    args[path[0]] = _set(args[path[0]], path[1:], value)
    return {**tree, "args": args}


def normal(tree: Any) -> Any:
    """sqrt(t) written as t^0.5, so that its exponent is one place among the others."""
    if isinstance(tree, dict) and "op" in tree:
        args = [normal(a) for a in tree.get("args", [])]
        if tree["op"] == "sqrt":
            return op("pow", args[0], 0.5)
        return {**tree, "args": args}
    return tree


def _walk(tree: Any, path: Path = (), inside: bool = False):
    """(path, node, parent op, inside a function or a sum) for every node."""
    yield path, tree, inside
    if isinstance(tree, dict) and "op" in tree:
        deeper = inside or tree["op"] in FUNCTIONS
        for i, a in enumerate(tree.get("args", [])):
            yield from _walk(a, path + (i,), deeper)


def coefficients(tree: Any) -> list[Path]:
    """Paths of the numbers that multiply a factor (the law's fitted scales),
    but the whole multiples of an angle inside a trigonometric function
    (sin(2·θ) is a structure, not a constant)."""
    out = []
    for path, node, _ in _walk(tree):
        if not (isinstance(node, dict) and node.get("op") in ("mul", "div")):
            continue
        trig = bool(path) and _get(tree, path[:-1]).get("op") in ("sin", "cos", "tan")
        out.extend(path + (i,) for i, a in enumerate(node["args"])
                   if is_num(a) and a not in (0.0, 1.0) and not (trig and float(a).is_integer()))
    return out


def places(tree: Any, X: Optional[dict] = None) -> list[tuple[Any, Path]]:
    """(tree with the exponent in place, path of the exponent) for every place.
    A function or sum negative at every observed point (e^(−x) − 1) gets its
    power with the sign outside: −(−(e^(−x) − 1))^b."""
    out = []
    for path, node, inside in _walk(tree):
        if not isinstance(node, dict):
            continue
        if node.get("op") == "pow" and is_num(node["args"][1]):
            out.append((tree, path + (1,)))
        elif node.get("op") in FUNCTIONS and not (path and _get(tree, path[:-1]).get("op") == "pow"):
            with np.errstate(all="ignore"):
                v = np.asarray(evaluate_unchecked(node, X), dtype=float) if X else np.ones(1)
            if np.all(v < 0):
                out.append((_set(tree, path, op("sub", 0.0, op("pow", op("sub", 0.0, node), 1.0))), path + (1, 1)))
            else:
                out.append((_set(tree, path, op("pow", node, 1.0)), path + (1,)))
        elif "var" in node and inside and not (path and _get(tree, path[:-1]).get("op") == "pow"):
            out.append((_set(tree, path, op("pow", node, 1.0)), path + (1,)))
    return out


#: Laws with a sine or cosine whose frequency and phase are refined at most.
ANGLE_LAWS = 3
#: Where a phase refined by angle_places starts (radians, either sign reachable).
PHASE_START = 0.2


def angle_places(tree: Any) -> list[tuple[Any, Path, str, tuple[Path, ...]]]:
    """(tree, path, what, extra) for the power, the frequency and the phase of
    every sine or cosine of one input: sin(k·θ) → sin(k·θ)^b, sin(a·θ),
    sin(k·θ + φ) and, the frequency or the phase refitted with the power (extra:
    the paths of further numbers refined; the power, last, is the one snapped
    first), sin(a·θ)^b and sin(k·θ + φ)^b; k a whole number (a fitted frequency is
    a coefficient already). cos(θ)² moved to cos(0.82·θ)², cos(θ − 0.28)² or
    sin(θ)^0.7: a Malus or Bragg law with another frequency, phase or power."""
    out = []
    for path, node, _ in _walk(tree):
        if not (isinstance(node, dict) and node.get("op") in ("sin", "cos")):
            continue
        arg = node["args"][0]
        whole = isinstance(arg, dict) and arg.get("op") == "mul" and len(arg["args"]) == 2 \
            and is_num(arg["args"][0]) and float(arg["args"][0]).is_integer() and "var" in arg["args"][1]
        if not (whole or isinstance(arg, dict) and "var" in arg):
            continue
        scaled, shifted = arg if whole else op("mul", 1.0, arg), op("add", arg, PHASE_START)
        if path and _get(tree, path[:-1]).get("op") == "pow":  # its power is a place of relax's own
            power = (path[:-1] + (1,),)
            out += [(_set(tree, path + (0,), scaled), path + (0, 0), "frequency", ()),
                    (_set(tree, path + (0,), shifted), path + (0, 1), "phase", ()),
                    (_set(tree, path + (0,), scaled), power[0], "frequency and power", (path + (0, 0),)),
                    (_set(tree, path + (0,), shifted), power[0], "phase and power", (path + (0, 1),))]
            continue
        fn, power = node["op"], (path + (1,),)
        out += [(_set(tree, path, op("pow", node, 1.0)), path + (1,), "exponent", ()),
                (_set(tree, path + (0,), scaled), path + (0, 0), "frequency", ()),
                (_set(tree, path + (0,), shifted), path + (0, 1), "phase", ()),
                (_set(tree, path, op("pow", op(fn, scaled), 1.0)), power[0], "frequency and power", (path + (0, 0, 0),)),
                (_set(tree, path, op("pow", op(fn, shifted), 1.0)), power[0], "phase and power", (path + (0, 0, 1),))]
    return out


#: Laws given a new power of an input or a shift inside a function at most.
INPUT_LAWS = 3
#: What input_places moves: numbers of either sign (relax_one starts them at both).
SIGNED = ("power of an input", "shift", "shift and power", "correction factor", "correction term")
#: New numbers that are coefficients, not exponents (corrections.py): snapped to
#: their shortest decimal only (a leak of 0.032, not 1/30) and costed by their digits.
COEFFICIENTS = ("correction factor", "correction term")
#: Refinement steps for a new power of an input: its constant and the law's
#: scale trade off along a narrow valley (C·T^b over a short range of T).
LONG_NFEV = 300
#: Where input_places starts a new power of an input, and a shift (as a fraction
#: of the input's smallest value).
POWER_START, SHIFT_START = 0.5, 0.1


def _outer_inputs(tree: Any) -> set[str]:
    """The inputs that are factors, or powers, of the law's outermost product."""
    args = tree["args"] if isinstance(tree, dict) and tree.get("op") == "mul" else [tree]
    return {a["var"] if "var" in a else a["args"][0]["var"] for a in args if isinstance(a, dict)
            and ("var" in a or a.get("op") == "pow" and isinstance(a["args"][0], dict) and "var" in a["args"][0])}


def _shifted(node: Any, name: str, c: float) -> Any:
    """node with every `name` replaced by (name − c)."""
    if isinstance(node, dict) and node.get("var") == name:
        return op("sub", node, c)
    if isinstance(node, dict) and "op" in node:
        return {**node, "args": [_shifted(a, name, c) for a in node["args"]]}
    return node


def input_places(tree: Any, inputs: list) -> list[tuple[Any, Path, str, tuple[Path, ...], tuple[Path, ...]]]:
    """(tree, path, what, tied, extra) for a new power of an input the law's
    outer product lacks (C·exp(−a/T) → C·T^b·exp(−a/T), a modified Arrhenius
    law); a shift of an input inside a function (exp(−a/T) → exp(−a/(T − c)),
    Antoine's; every occurrence in that function shifted as one, the tied
    paths); and a shift of an input the outer product raises to a power, that
    power refitted with it (γ^(2/3) → (γ − c)^b; the shift is the extra number,
    the power, snapped first, the relaxed one). The new numbers may have either sign."""
    out = []
    outer = _outer_inputs(tree)
    factors = tree["args"] if isinstance(tree, dict) and tree.get("op") == "mul" else [tree]
    lows = {i.name: i.lo for i in inputs}
    for i in inputs:
        if i.name not in outer and i.lo > 0:
            grown = op("mul", *factors, op("pow", var(i.name), POWER_START))
            out.append((grown, (len(factors), 1), "power of an input", (), ()))
    for k, f in enumerate(factors):
        base = f if isinstance(f, dict) and "var" in f else f["args"][0] if isinstance(f, dict) \
            and f.get("op") == "pow" and is_num(f["args"][1]) and isinstance(f["args"][0], dict) else None
        if base is None or "var" not in base or not lows.get(base["var"], 0) > 0:
            continue
        e = 1.0 if f is base else float(f["args"][1])
        moved = op("pow", op("sub", base, SHIFT_START * lows[base["var"]]), e)
        if len(factors) == 1:
            out.append((moved, (1,), "shift and power", (), ((0, 1),)))
        else:
            out.append((op("mul", *factors[:k], moved, *factors[k + 1:]), (k, 1), "shift and power", (), ((k, 0, 1),)))
    for path, node, _ in _walk(tree):
        if not (isinstance(node, dict) and node.get("op") in ("exp", "log", "sin", "cos", "tanh")):
            continue
        for i in inputs:
            c = SHIFT_START * i.lo
            moved = _set(tree, path, _shifted(node, i.name, c))
            spots = [p + (1,) for p, n, _ in _walk(_get(moved, path), path) if n == op("sub", var(i.name), c)]
            if c and spots:
                out.append((moved, spots[0], "shift", tuple(spots[1:]), ()))
    return out


def _terms(tree: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """(path, term) of the sum at the law's core: the sum itself, or the sum a
    coefficient multiplies or a power or a quotient holds (1/(c·(a + b)),
    √(c·(a − b))); [] when there is none."""
    if not isinstance(tree, dict) or "op" not in tree:
        return []
    if tree["op"] in ("add", "sub"):
        return [(path + (i,), a) for i, a in enumerate(tree["args"])]
    if tree["op"] in ("mul", "div", "pow"):
        for i, a in enumerate(tree["args"]):
            found = _terms(a, path + (i,))
            if found:
                return found
    return []


def _factors(node: Any, path: Path):
    """(path, input, exponent or None for a bare input) of the inputs a term
    multiplies, through products, quotients and numeric powers."""
    if not isinstance(node, dict):
        return
    if "var" in node:
        yield path, node["var"], None
    elif node.get("op") in ("mul", "div"):
        for i, a in enumerate(node["args"]):
            yield from _factors(a, path + (i,))
    elif node.get("op") == "pow" and is_num(node["args"][1]) and isinstance(node["args"][0], dict) \
            and "var" in node["args"][0]:
        yield path, node["args"][0]["var"], float(node["args"][1])


def _unpowered(tree: Any) -> Any:
    """The law with the powers 1 sum_places put on bare inputs, and left, taken off again."""
    if not isinstance(tree, dict) or "op" not in tree:
        return tree
    if tree["op"] == "pow" and tree["args"][1] == 1.0 and isinstance(tree["args"][0], dict) \
            and "var" in tree["args"][0]:
        return tree["args"][0]
    return {**tree, "args": [_unpowered(a) for a in tree["args"]]}


def sum_places(tree: Any, dims: dict[str, Any]) -> list[tuple[Any, Path, tuple[Path, ...]]]:
    """(tree, path, tied paths) for the exponents of a sum of at most SUM_TERMS
    terms: each input's exponent in each term (a bare input as the power 1), and
    one exponent for a like input (the same units) in each term where the two
    are equal (T^4 − Tₛ^4 moves as T^e − Tₛ^e). `dims` maps an input to its units."""
    terms = _terms(tree)
    if not 2 <= len(terms) <= SUM_TERMS or any(isinstance(t, dict) and t.get("op") in ("add", "sub")
                                               for _, t in terms):
        return []
    powered, spots = tree, []
    for k, (tpath, term) in enumerate(terms):
        for path, name, e in _factors(term, tpath):
            if e is None:
                powered = _set(powered, path, op("pow", var(name), 1.0))
            spots.append((k, path + (1,), name, 1.0 if e is None else e))
    out = [(powered, p, ()) for _, p, _, _ in spots]
    for k1, p1, n1, e1 in spots:
        out.extend((powered, p1, (p2,)) for k2, p2, n2, e2 in spots
                   if k2 > k1 and e1 == e2 and np.array_equal(dims.get(n1), dims.get(n2)))
    return out


def bare(tree: Any) -> Any:
    """The law without the powers of single inputs in its outermost product
    (C·t^−0.1·(1 + a·t)^−1 → C·(1 + a·t)^−1): a look-alike monomial the fit
    put beside a function whose own exponent is the one that moved."""
    if not (isinstance(tree, dict) and tree.get("op") == "mul"):
        return tree
    def single(a):
        return isinstance(a, dict) and ("var" in a or a.get("op") == "pow" and "var" in a["args"][0])
    rest = [a for a in tree["args"] if not single(a)]
    if len(rest) == len(tree["args"]) or not any(isinstance(a, dict) for a in rest):
        return tree
    return op("mul", *rest) if len(rest) > 1 else rest[0]


def _model(tree: Any, paths: list[Path], tied: tuple[Path, ...] = ()) -> Callable[[np.ndarray, dict], np.ndarray]:
    """tree as a function of (theta, X), theta the numbers at paths (and the
    last of them also at the `tied` paths: one exponent shared by several
    places): compiled once into one Python expression of the op table's numpy
    meanings (the calls a walk of the tree would make, in its order, without a
    closure and a list per node per call), as refits call it often.

    Its `at(X)` is the same function of theta alone at one X, with the
    subtrees without a fitted number (T^2, t/R) worked out once when it is
    made: for the hundreds of calls of one fit (fitting.refine), which holds
    X fixed. Nothing is kept between calls of the model itself."""
    index = {tuple(p): i for i, p in enumerate(paths)}
    index.update({tuple(p): len(paths) - 1 for p in tied})
    names: dict = {}
    fixed: list[str] = []

    def name(value) -> str:
        names[f"k{len(names)}"] = value
        return f"k{len(names) - 1}"

    def emit(node, path, slots: bool, free: bool = True) -> str:
        """node's expression; with `slots`, a subtree without a fitted number
        (not the whole tree, nor inside another such subtree: `free`) as V[i]."""
        if path in index:
            return f"th[{index[path]}]"
        if is_num(node):
            return name(float(node))
        if "var" in node:
            return f"X[{name(node['var'])}]"
        fitted = any(p[:len(path)] == path for p in index)
        args = [emit(a, path + (j,), slots, fitted) for j, a in enumerate(node.get("args", []))]
        fn = OP_TABLE[node["op"]].numpy
        ufunc = getattr(fn, "ufunc", None)  # an n-ary op's ufunc (predictor_ops._left_fold), called per step
        if ufunc is not None:
            expr = functools.reduce(lambda e, a: f"{name(ufunc)}({e}, {a})", args[1:], args[0])
        else:
            expr = f"{name(fn)}(" + ", ".join(args) + ")"
        if slots and free and path and not fitted:
            fixed.append(expr)
            return f"V[{len(fixed) - 1}]"
        return expr
    body = eval(f"lambda th, X: {emit(tree, (), False)}", dict(names))
    sliced = eval(f"lambda th, X, V: {emit(tree, (), True)}", dict(names))
    parts = [eval(f"lambda X: {e}", dict(names)) for e in fixed]

    def model(theta, X):
        with np.errstate(all="ignore"):
            return np.asarray(body(theta, X), dtype=float) * np.ones(len(next(iter(X.values()))))

    def at(X: dict) -> Callable[[np.ndarray], np.ndarray]:
        with np.errstate(all="ignore"):
            values = [part(X) for part in parts]
        ones = np.ones(len(next(iter(X.values()))))

        def at_X(theta):  # under the caller's errstate (refine's, around the whole fit)
            return np.asarray(sliced(theta, X, values), dtype=float) * ones
        return at_X
    model.at = at
    return model


def _snap_exponent(model, theta: np.ndarray, j: int, X: dict, y: np.ndarray, sw: np.ndarray,
                   width: float = 0.05, frozen: tuple[int, ...] = (), rationals: bool = True,
                   exact: Optional[float] = None) -> np.ndarray:
    """The exponent theta[j] as the simplest value the data support, the rest
    (but the `frozen` constants, snapped before) refitted: a small rational
    (unless not `rationals`: a coefficient), else the shortest decimal (1.1, not
    1.098), within `width` (relative, at least absolute) of its fitted value."""
    bound = rounding_bound(worst_error(model, theta, X, y, sw), exact)
    e = float(theta[j])
    decimals = [float(f"{e:.{d - 1}e}") for d in (1, 2, 3)]
    for r in [float(r) for r in snap_options(e) if rationals] + decimals:
        if r == 0 or abs(r - e) > width * max(1.0, abs(e)):
            continue
        rest = [i for i in range(len(theta)) if i != j and i not in frozen]

        def sub(t, X_, r=float(r)):
            full = np.array(theta, dtype=float)
            full[rest] = t
            full[j] = r
            return model(full, X_)
        t = refine(sub, theta[rest], X, y, sw) if rest else np.zeros(0)
        if t is None:
            continue
        trial = np.array(theta, dtype=float)
        trial[rest], trial[j] = t, float(r)
        if worst_error(model, trial, X, y, sw) <= bound:
            return trial
    return theta


def _digits(v: float) -> int:
    """Significant digits v is written with (1 for 2, 2 for 1.3, 3 for 2.65)."""
    for d in range(1, 8):
        if float(f"{v:.{d - 1}e}") == v:
            return d
    return 8


def _shift_cost(c: float) -> float:
    """Nats for writing a shift of an input: its digits (34 K, 0.35)."""
    return 0.7 * _digits(c) + 0.5


def exponent_cost(e: float) -> float:
    """Nats for writing a refined exponent: a small rational's penalty, else
    its digits (1.3 dearer than 1.5, 1.25 dearer still)."""
    r = Fraction(e).limit_denominator(3)
    return exponent_penalty(r) if abs(float(r) - e) < 1e-12 else 0.7 * _digits(e) + 0.5 * math.log(1 + abs(e))


def _rescaled(model, theta0: np.ndarray, outer: list[int], data) -> np.ndarray:
    """theta0 with the law's outer coefficient (index outer[0]) scaled so that the
    law meets the readings in the median: a new number in a function's argument
    moves the law's size by orders of magnitude, far from where its parent's
    coefficient left it (C·exp(−a/(T − c)) against C·T^−4.25·exp(−a/T))."""
    with np.errstate(all="ignore"):
        ratio = np.median(data.y / model(theta0, data.X))
    if not outer or not np.isfinite(ratio) or ratio <= 0:
        return theta0
    out = theta0.copy()
    out[outer[0]] *= ratio
    return out


def _starts(theta0: np.ndarray, first: int, extra: int, signed: bool) -> list[np.ndarray]:
    """Where the refinement of a relaxed law starts: at the parent's numbers, with
    the relaxed one at 0.6 of its value, and for a number of either sign
    (`signed`: a phase, a shift, a new power) with that number's sign flipped,
    or the `extra` numbers' from index `first` when there are extra ones (a
    phase refined beside a power)."""
    low = theta0.copy()
    low[-1] *= 0.6
    out = [theta0.copy(), low]
    if signed:
        flipped = theta0.copy()
        if extra:
            flipped[first:first + extra] *= -1
        else:
            flipped[-1] *= -1
        out.append(flipped)
    return out


def relax_one(data, law: Law, tree: Any, path: Path, tied: tuple[Path, ...] = (),
              what: str = "exponent", extra: tuple[Path, ...] = (), beat: float = math.inf) -> Optional[Law]:
    """The law with the exponent at path (and at the `tied` paths, one
    exponent for them all; or the frequency or phase `what` names) refined,
    with the numbers at the `extra` paths, or None when that does not fit or
    does not improve on its parent's error and on `beat` by IMPROVEMENT."""
    coef = [p for p in coefficients(tree) if p != path]  # a new coefficient (corrections.py) is the relaxed one
    paths = coef + list(extra) + [path]
    theta0 = np.array([float(_get(tree, p)) for p in paths])
    model = _model(tree, paths, tied)
    if data.n <= len(theta0):
        return None
    if what in SIGNED:
        theta0 = _rescaled(model, theta0, [i for i, p in enumerate(coef) if len(p) == 1], data)
    best = None
    for t0 in _starts(theta0, len(coef), len(extra), what in SIGNED or "phase" in what):
        theta = refine(model, t0, data.X, data.y, data.sw, nfev=LONG_NFEV if what in SIGNED else 30)
        if theta is None:
            continue
        err = scaled_errors(model(theta, data.X), data.y, data.sw)
        if best is None or np.sum(err ** 2) < best[1]:
            best = (theta, float(np.sum(err ** 2)), float(np.max(err)))
        if best[2] <= 1.0:
            break
    if best is None or best[2] > 1.0 or not best[1] < IMPROVEMENT * min(law.fit_error, beat):
        return None
    j = len(paths) - 1
    theta = _snap_exponent(model, best[0], j, data.X, data.y, data.sw, rationals=what not in COEFFICIENTS,
                           exact=data.snap_exact)
    theta = data.snap(model, theta)
    # the number the parent law has there (none for a new one; with extra numbers, those moved)
    parent = 0.0 if what in SIGNED or "phase" in what or extra else theta0[j]
    if abs(theta[j] - parent) < 1e-9 or theta[j] == 0:
        return None
    final = tree
    for p, v in list(zip(paths, theta)) + [(p, theta[j]) for p in tied]:
        final = _set(final, p, float(v))
    e = float(theta[j])
    cost = (_shift_cost(e) if what == "shift" or what in COEFFICIENTS else exponent_cost(e)) + sum(
        RELAX_COST + (_shift_cost if "shift" in what else exponent_cost)(float(theta[len(coef) + i]))
        for i in range(len(extra)))

    def refit(idx, theta=theta):
        t = refine(model, theta, data.X, data.y, data.sw, idx, nfev=15)
        return None if t is None else (lambda X, t=t: model(t, X))
    moved = ", ".join(fmt(float(v)) for v in list(theta[len(coef):j]) + [e])
    out = Law(law.kind + f", its {what} relaxed to {moved}", f"{data.output.name} = {tree_text(final)}", final,
              law.k + 1 + len(extra), law.complexity + RELAX_COST + cost, refit)
    out.set_fit(scaled_errors(model(theta, data.X), data.y, data.sw))
    out.unrounded = best[2]
    return out if out.fit_max <= 1.5 else None


def _ranked(data, laws: list[Law], sums: bool) -> list[Law]:
    """The laws that miss some point, sums or the others, best first by
    in-sample fit and description length."""
    penalty = 0.5 * math.log(max(data.n, 2))
    return sorted((f for f in laws if f.fit_max > exact_fit(data) and math.isfinite(f.fit_error)
                   and f.kind.startswith("sum") == sums),
                  key=lambda f: min(f.fit_error, 1e6) + 2 * f.complexity + 2 * penalty * f.k)


def _attempt(data, law: Law, tree: Any, path: Path, tied: tuple[Path, ...] = (),
             what: str = "exponent", extra: tuple[Path, ...] = (), beat: float = math.inf) -> Optional[Law]:
    try:
        return relax_one(data, law, tree, path, tied, what, extra, beat)
    except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError):
        return None


def relax(data, laws: list[Law]) -> list[Law]:
    """Relaxed variants of the RELAXED_LAWS best laws that miss some point."""
    if data.n < 4 or not laws:
        return []
    out, seen, families = [], set(), Counter()
    for law in _ranked(data, laws, sums=False):  # at most PER_FAMILY of one family
        if len(seen) >= RELAXED_LAWS:
            break
        tree, family = normal(law.tree), re.sub(r"[-0-9.^/]+", "", law.kind)
        key = repr(tree)
        if key in seen or families[family] >= PER_FAMILY:
            continue
        seen.add(key)
        families[family] += 1
        alone = bare(tree)
        for t, path in (places(tree, data.X) + (places(alone, data.X) if alone is not tree else []))[:PLACES]:
            if _kept(out, _attempt(data, law, t, path), data):
                return out
    return out


def _kept(out: list[Law], found: Optional[Law], data, retree=None) -> bool:
    """`found` (when a place gave a law) added to `out`, its tree first made
    `retree(tree)` and its text written again when given; True when it
    reproduces the readings, so that a pass has nothing left to find."""
    if found is None:
        return False
    if retree is not None:
        found.tree = retree(found.tree)
        found.text = f"{data.output.name} = {tree_text(found.tree)}"
    out.append(found)
    return found.fit_max <= exact_fit(data)


def composed(data, laws: list[Law]) -> list[Law]:
    """The sum, angle and input passes (relax_sums, relax_angles, relax_inputs)
    over the laws of the families before relax's own; none with fewer than
    PASS_READINGS readings. search.py runs them as a family of their own, so
    that an Adaptive episode stops trying them once they miss by far."""
    if data.n < PASS_READINGS or not laws:
        return []
    return relax_sums(data, laws) + relax_angles(data, laws) + relax_inputs(data, laws)


def _best_error(laws: list[Law], k: int) -> float:
    """The least in-sample squared error of the laws of at most k constants: a
    law of the later passes must beat it (before its constants are rounded) as
    a relaxed law beats its parent, or its extra number is no evidence (and it
    would crowd the model choice's held-out test)."""
    return min((f.fit_error for f in laws if f.k <= k), default=math.inf)


def _inside(tree: Any, path: Path, inputs: list, power: bool = False) -> bool:
    """The shift c at path of (x − c) lies between 0 and the input's smallest
    value: the shifted input stays positive over the domain, a threshold below
    the readings (T − T₀ in Antoine's and Vogel's laws). A shift that adds to
    the input (T + 11) is a look-alike of a power of it over a short range.
    Under a power (`power`) the shift may add up to the input's largest value
    ((m + m₀)^−½, a spring's own mass), still keeping x − c positive."""
    name = _get(tree, path[:-1])["args"][0]["var"]
    lo, hi = next((i.lo, i.hi) for i in inputs if i.name == name)
    c = float(_get(tree, path))
    return (-hi < c < lo and c != 0) if power else 0 < c < lo


def _dropped_cost(tree: Any) -> float:
    """Nats the exponents of the powers of single inputs in the law's outer
    product cost (what bare() takes away)."""
    if not (isinstance(tree, dict) and tree.get("op") == "mul"):
        return 0.0
    return sum(exponent_cost(float(a["args"][1])) for a in tree["args"] if isinstance(a, dict)
               and a.get("op") == "pow" and is_num(a["args"][1]) and isinstance(a["args"][0], dict)
               and "var" in a["args"][0])


def shortest(data, laws: list[Law]) -> list[Law]:
    """The laws (sums aside) that miss some reading, shortest first (description
    length and constants): with few readings the best-fitting laws are often
    look-alikes of three or four constants, while the law one move away is a
    short structure that misses by several tolerances (C·V^−1.2 for C·(V + 0.67)^−1.4)."""
    penalty = 0.5 * math.log(max(data.n, 2))
    return sorted((f for f in laws if exact_fit(data) < f.fit_max < math.inf and not f.kind.startswith("sum")),
                  key=lambda f: (f.complexity + penalty * f.k, f.fit_error))


def parents(data, laws: list[Law], best: int, short: int) -> list[Law]:
    """The `best` laws by in-sample fit and description length (_ranked, sums
    aside), then the `short` shortest (shortest) not among them, distinct trees."""
    out, seen = [], set()
    for ranked, count in ((_ranked(data, laws, sums=False), best), (shortest(data, laws), short)):
        taken = 0
        for law in ranked:
            if taken >= count:
                break
            if repr(normal(law.tree)) not in seen:
                seen.add(repr(normal(law.tree)))
                out.append(law)
                taken += 1
    return out


#: Shortest laws given the input places besides the INPUT_LAWS best.
INPUT_SHORTEST = 2


def relax_inputs(data, laws: list[Law]) -> list[Law]:
    """The INPUT_LAWS best laws (sums aside) and the INPUT_SHORTEST shortest, as
    they are and without their outer powers of single inputs (bare), with a new
    power of an input or a shift of an input inside a function refined (input_places)."""
    out = []
    for law in parents(data, laws, INPUT_LAWS, INPUT_SHORTEST):
        tree = normal(law.tree)
        alone = bare(tree)
        spots = [(t, law, *rest) for t, *rest in input_places(tree, data.inputs)][:PLACES]
        if alone is not tree:  # the parent without its outer powers, and without what they cost
            lighter = dataclasses.replace(law, complexity=max(0.0, law.complexity - _dropped_cost(tree)))
            spots += [(t, lighter, *rest) for t, *rest in input_places(alone, data.inputs)][:PLACES]
        for t, parent, path, what, tied, extra in spots:
            found = _attempt(data, parent, t, path, tied, what, extra, _best_error(laws, law.k + 1 + len(extra)))
            if found is not None and "shift" in what and not _inside(found.tree, (extra or (path,))[0],
                                                                     data.inputs, bool(extra)):
                continue
            if _kept(out, found, data, _tidy):
                return out
    return out


def _tidy(tree: Any) -> Any:
    """The law with the constants a fit set to 0 folded away (cos(0·m²) is 1)
    and x − (−c) written x + c."""
    tree = drop_zero_terms(tree)
    if not (isinstance(tree, dict) and "op" in tree):
        return tree
    args = [_tidy(a) for a in tree["args"]]
    if tree["op"] == "sub" and is_num(args[1]) and args[1] < 0:
        return op("add", args[0], -float(args[1]))
    return {**tree, "args": args}


def relax_angles(data, laws: list[Law]) -> list[Law]:
    """The ANGLE_LAWS best laws (sums aside) with a sine or cosine of one input,
    each with that function's frequency or phase refined (angle_places)."""
    out, seen = [], set()
    for law in _ranked(data, laws, sums=False):
        tree = normal(law.tree)
        if len(seen) >= ANGLE_LAWS or repr(tree) in seen or not angle_places(tree):
            continue
        seen.add(repr(tree))
        for t, path, what, extra in angle_places(tree)[:PLACES]:
            if _kept(out, _attempt(data, law, t, path, (), what, extra, _best_error(laws, law.k + 1 + len(extra))),
                     data):
                return out
    return out


def relax_sums(data, laws: list[Law]) -> list[Law]:
    """The SUM_LAWS best sums of at most SUM_TERMS terms that miss some point,
    with one exponent of their inputs made real (sum_places): p₀ + c·h^2.8 from
    p₀ + c·h³, A·(T^1.25 − Tₛ^1.25) from A·(T − Tₛ). Every number the sum
    multiplies its terms by is refitted with it, and counted among its constants."""
    dims = {i.name: i.dim for i in data.inputs}
    out = []
    for law in [f for f in _ranked(data, laws, sums=True) if sum_places(normal(f.tree), dims)][:SUM_LAWS]:
        for t, path, tied in sum_places(normal(law.tree), dims)[:PLACES]:
            found = _attempt(data, law, t, path, tied, beat=_best_error(laws, law.k + 1))
            if found is not None:
                found.k = max(found.k, len(coefficients(t)) + 1)
            if _kept(out, found, data, _unpowered):
                return out
    return out
