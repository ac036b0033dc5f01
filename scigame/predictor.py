"""Player predictors: parse, validate and evaluate expression trees.

A predictor maps every output name of a card to a tree (SPEC.md,
"Predictors: expression trees"). A tree is a finite JSON number, a variable
``{"var": NAME}`` or an operation ``{"op": OP, "args": [TREE, ...]}``.

The text comes from players, so nothing here trusts it:

* ``parse_predictor_json`` is ``json.loads`` made strict (no NaN/Infinity
  literals, no overflowing numbers, no duplicate keys) that turns every
  failure, including pathological nesting, into ``PredictorInvalid``.
* ``validate_predictor`` checks the shape with an explicit stack and stops at
  the first problem, so a tree 100,000 levels deep or with a million nodes
  costs no more than the first 1025 nodes or 65 levels of it.
* ``evaluate_predictor`` interprets a validated predictor over numpy arrays
  with real-valued semantics and explicit domain checks, so a failure names
  the op, the JSON path of the node and an input point where it happened.

Player text is only ever read as JSON; nothing is passed to eval or exec.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "MAX_DEPTH",
    "MAX_JSON_CHARS",
    "MAX_NODES",
    "OPS",
    "PredictorInvalid",
    "count_nodes",
    "evaluate_predictor",
    "parse_predictor_json",
    "tree_depth",
    "validate_predictor",
]

#: Maximum number of nodes over all output trees of one predictor.
MAX_NODES = 1024
#: Maximum depth of any tree; the root is at depth 0, so depth 64 is allowed.
MAX_DEPTH = 64
#: Longest predictor JSON text accepted, in characters (bytes for bytes input).
#: A predictor within MAX_NODES is a few tens of kilobytes even pretty-printed
#: at MAX_DEPTH, so this leaves ample room while keeping a multi-megabyte
#: upload from costing a full parse (about a second per 10 MB).
MAX_JSON_CHARS = 4 * 1024 * 1024

_NARY = ("add", "mul", "min", "max")
_BINARY = ("sub", "div", "pow", "atan2")
_UNARY = (
    "neg", "abs", "sqrt", "cbrt", "exp", "log", "log10", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "step", "sign", "round",
)  # fmt: skip

#: op -> (minimum arity, maximum arity or None for unbounded).
OPS: dict[str, tuple[int, int | None]] = {
    **{op: (2, None) for op in _NARY},
    **{op: (2, 2) for op in _BINARY},
    **{op: (1, 1) for op in _UNARY},
}

# Longest piece of player-supplied text quoted back in a reason: reasons are
# shown to players and stored, so a megabyte-long key must not end up in one.
_QUOTE_LIMIT = 40


class PredictorInvalid(Exception):
    """A predictor that is rejected whole (SPEC.md: no clipping, no repair).

    ``reason`` is a sentence for people; ``path`` is the JSON path of the
    culprit (``F`` for the root of output F, ``F.args[1].args[0]`` below it)
    or ``""`` when the predictor as a whole is at fault.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def _quote(text: object) -> str:
    """A short repr of player-supplied text for use inside a reason."""
    r = repr(text)
    return r if len(r) <= _QUOTE_LIMIT else r[: _QUOTE_LIMIT - 3] + "..."


def _reject_constant(literal: str) -> float:
    raise PredictorInvalid(f"non-finite number {literal} is not allowed in JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    # float("1e400") is inf: the literal is valid JSON but not a finite number.
    if not math.isfinite(value):
        raise PredictorInvalid(f"number {_quote(literal)} is too large to be finite")
    return value


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise PredictorInvalid(f"duplicate key {_quote(key)} in a JSON object")
            seen.add(key)
    return obj


def parse_predictor_json(text: str | bytes) -> object:
    """Parse predictor JSON text strictly; raise ``PredictorInvalid`` on failure.

    Stricter than ``json.loads``: ``NaN``, ``Infinity`` and ``-Infinity``
    literals, numbers that overflow to infinity and duplicate object keys are
    rejected (a duplicate key would silently drop half of what the player
    wrote). Malformed JSON is reported with its line and column. Nesting
    beyond the interpreter's recursion limit is reported as "nested too
    deeply" instead of escaping as ``RecursionError``. The parsed value is
    returned as is; ``validate_predictor`` checks its shape. Texts longer
    than ``MAX_JSON_CHARS`` are refused before parsing.
    """
    if isinstance(text, (str, bytes, bytearray)) and len(text) > MAX_JSON_CHARS:
        raise PredictorInvalid(
            f"predictor JSON is too large ({len(text)} characters; the limit is {MAX_JSON_CHARS})"
        )
    try:
        return json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            object_pairs_hook=_unique_keys,
        )
    except json.JSONDecodeError as e:
        raise PredictorInvalid(
            f"malformed JSON: {e.msg} at line {e.lineno}, column {e.colno}"
        ) from None
    except RecursionError:
        # The C scanner recurses once per nesting level; any real predictor
        # is far shallower (MAX_DEPTH), so no useful text is lost here.
        raise PredictorInvalid("malformed JSON: nested too deeply") from None
    except UnicodeDecodeError as e:
        raise PredictorInvalid(f"malformed JSON: not valid {e.encoding} text") from None
    except ValueError:
        # int() refuses literals longer than sys.get_int_max_str_digits().
        raise PredictorInvalid("malformed JSON: a number literal has too many digits") from None
    except TypeError:
        raise PredictorInvalid(
            f"predictor JSON must be str or bytes, not {type(text).__name__}"
        ) from None


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _child_path(path: str, index: int) -> str:
    return f"{path}.args[{index}]"


def _check_leaf_number(node: object, path: str) -> float:
    try:
        value = float(node)  # type: ignore[arg-type]
    except OverflowError:
        raise PredictorInvalid(f"number at {path} is too large to be finite", path) from None
    if not math.isfinite(value):
        raise PredictorInvalid(f"non-finite number {node!r} at {path}", path)
    return value


def _describe(node: object) -> str:
    """How a node that is not a tree is named in a reason."""
    if node is None:
        return "null"
    if isinstance(node, bool):
        return f"boolean {'true' if node else 'false'}"
    if isinstance(node, str):
        return f"string {_quote(node)}"
    if isinstance(node, (list, tuple)):
        return "array"
    return type(node).__name__


def validate_predictor(
    data: object, inputs: Sequence[str], outputs: Sequence[str]
) -> dict[str, object]:
    """Check a parsed predictor against a card's inputs and outputs.

    ``data`` must be an object with exactly one tree per name in ``outputs``;
    trees may use only the variables in ``inputs`` and the ops in ``OPS`` at
    their arities, hold at most ``MAX_NODES`` nodes over all outputs and be
    at most ``MAX_DEPTH`` deep. Returns a fresh predictor (outputs in the
    order of ``outputs``, every number a ``float``), or raises
    ``PredictorInvalid`` naming the first problem found and its JSON path.

    The walk uses an explicit stack and stops at the first problem, so its
    cost is bounded by the limits, not by the size of ``data``.
    """
    if not isinstance(data, dict):
        raise PredictorInvalid(
            f"a predictor must be a JSON object mapping outputs to trees, not {_describe(data)}"
        )
    output_names = list(outputs)
    wanted = set(output_names)
    for name in output_names:
        if name not in data:
            raise PredictorInvalid(f"missing output {_quote(name)}", str(name))
    extra = [key for key in data if key not in wanted]
    if extra:
        # Sorted by repr so the reported key does not depend on dict order
        # and never compares keys of different types.
        key = min(extra, key=repr)
        expected = ", ".join(output_names)
        raise PredictorInvalid(
            f"unexpected output {_quote(key)} (the outputs are: {expected})", str(key)
        )

    known_vars = frozenset(inputs)
    result: dict[str, object] = {}
    nodes = 0
    for name in output_names:
        # Each stack entry: (node, path, depth, parent args list, index).
        # Children fill their slot in the parent's copied args list, which
        # builds the float-cast copy without recursion.
        holder: list[object] = [None]
        stack: list[tuple[object, str, int, list[object], int]] = [
            (data[name], str(name), 0, holder, 0)
        ]
        while stack:
            node, path, depth, parent, index = stack.pop()
            nodes += 1
            if nodes > MAX_NODES:
                raise PredictorInvalid(
                    f"the predictor has more than {MAX_NODES} nodes over all outputs "
                    f"(limit reached at {path})"
                )
            if depth > MAX_DEPTH:
                raise PredictorInvalid(
                    f"tree too deep: {path} is at depth {depth}, the maximum is {MAX_DEPTH}",
                    path,
                )
            if isinstance(node, (int, float)) and not isinstance(node, bool):
                parent[index] = _check_leaf_number(node, path)
                continue
            if not isinstance(node, dict):
                raise PredictorInvalid(
                    f"{_describe(node)} at {path} is not a tree "
                    '(expected a number, {"var": ...} or {"op": ..., "args": [...]})',
                    path,
                )
            if "var" in node:
                if len(node) != 1:
                    raise PredictorInvalid(
                        f'a variable node must have only the key "var" at {path}', path
                    )
                var = node["var"]
                if not isinstance(var, str):
                    raise PredictorInvalid(
                        f"variable name at {path} must be a string, not {_describe(var)}", path
                    )
                if var not in known_vars:
                    names = ", ".join(inputs)
                    raise PredictorInvalid(
                        f"unknown variable {_quote(var)} at {path} (the inputs are: {names})",
                        path,
                    )
                parent[index] = {"var": var}
                continue
            if "op" not in node or "args" not in node or len(node) != 2:
                keys = ", ".join(sorted(_quote(k) for k in node)) or "none"
                raise PredictorInvalid(
                    f'an operation node must have exactly the keys "op" and "args" at {path} '
                    f"(keys: {keys})",
                    path,
                )
            op, args = node["op"], node["args"]
            if not isinstance(op, str):
                raise PredictorInvalid(f"op at {path} must be a string, not {_describe(op)}", path)
            if op not in OPS:
                raise PredictorInvalid(f"unknown op {_quote(op)} at {path}", path)
            if not isinstance(args, list):
                raise PredictorInvalid(
                    f"args of {op} at {path} must be an array, not {_describe(args)}", path
                )
            lo, hi = OPS[op]
            if len(args) < lo or (hi is not None and len(args) > hi):
                want = f"at least {lo}" if hi is None else str(lo)
                raise PredictorInvalid(
                    f"{op} takes {want} argument{'s' if lo > 1 or hi is None else ''}, "
                    f"got {len(args)} at {path}",
                    path,
                )
            # Everything on the stack will be counted, so a huge args list is
            # refused here before millions of entries are pushed.
            if nodes + len(stack) + len(args) > MAX_NODES:
                raise PredictorInvalid(
                    f"the predictor has more than {MAX_NODES} nodes over all outputs "
                    f"(limit reached at {path})"
                )
            copied: list[object] = [None] * len(args)
            parent[index] = {"op": op, "args": copied}
            # Pushed in reverse so children are visited (and errors found)
            # left to right.
            for i in range(len(args) - 1, -1, -1):
                stack.append((args[i], _child_path(path, i), depth + 1, copied, i))
        result[name] = holder[0]
    return result


def count_nodes(tree: object) -> int:
    """Number of nodes in a tree (every number, variable and op counts one)."""
    count = 0
    stack = [tree]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, dict) and isinstance(node.get("args"), list):
            stack.extend(node["args"])
    return count


def tree_depth(tree: object) -> int:
    """Depth of a tree: 0 for a leaf, 1 + the deepest argument otherwise."""
    deepest = 0
    stack: list[tuple[object, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict) and isinstance(node.get("args"), list):
            stack.extend((child, depth + 1) for child in node["args"])
    return deepest


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

# Domain rules of the unary ops: op -> (bad-argument mask, what went wrong).
_UNARY_DOMAIN: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str]] = {
    "sqrt": (lambda x: x < 0, "sqrt of a negative number"),
    "log": (lambda x: x <= 0, "log of a non-positive number"),
    "log10": (lambda x: x <= 0, "log10 of a non-positive number"),
    "asin": (lambda x: np.abs(x) > 1, "asin of a number outside [-1, 1]"),
    "acos": (lambda x: np.abs(x) > 1, "acos of a number outside [-1, 1]"),
}


def _step(x):
    return np.where(x > 0, 1.0, 0.0) if np.ndim(x) else np.float64(x > 0)


_UNARY_FUNCS: dict[str, Callable] = {
    "neg": np.negative,
    "abs": np.abs,
    "sqrt": np.sqrt,
    "cbrt": np.cbrt,  # the real cube root: cbrt(-27) = -3
    "exp": np.exp,
    "log": np.log,
    "log10": np.log10,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "step": _step,  # 1 for x > 0, else 0 (also at 0)
    "sign": np.sign,  # sign(0) = 0
    "round": np.rint,  # ties to even: round(2.5) = 2
}

_NARY_FUNCS: dict[str, Callable] = {
    "add": np.add,
    "mul": np.multiply,
    "min": np.minimum,
    "max": np.maximum,
}

# Ops that can turn finite arguments into inf or NaN by overflow; every
# other op maps finite arguments (inside its domain) to finite results, so
# only these pay for a finiteness pass over the result.
_MAY_OVERFLOW = frozenset({"add", "mul", "sub", "div", "pow", "exp", "sinh", "cosh"})


class _Points:
    """The evaluation inputs, flattened, for naming a failing point."""

    def __init__(self, arrays: dict[str, np.ndarray], size: int) -> None:
        self.arrays = arrays
        self.size = size

    def describe(self, mask) -> str:
        """Text naming the first point where ``mask`` holds."""
        if not self.arrays or self.size == 0:
            return "(for every input: the subexpression is constant)"
        index = int(np.argmax(mask)) if np.ndim(mask) else 0
        coords = ", ".join(f"{k}={float(v[index])!r}" for k, v in self.arrays.items())
        return f"(at {coords})"


def _fail(what: str, path: str, points: _Points, mask) -> PredictorInvalid:
    return PredictorInvalid(f"{what} at {path} {points.describe(mask)}", path)


def _apply(op: str, args: list, path: str, points: _Points):
    """Apply one op to evaluated arguments, checking its domain first."""
    if op in _UNARY_FUNCS:
        (x,) = args
        rule = _UNARY_DOMAIN.get(op)
        if rule is not None:
            bad = rule[0](x)
            if np.any(bad):
                raise _fail(rule[1], path, points, bad)
        value = _UNARY_FUNCS[op](x)
    elif op in _NARY_FUNCS:
        fn = _NARY_FUNCS[op]
        value = fn(args[0], args[1])
        for x in args[2:]:
            # The accumulator is a fresh temporary, so it can be reused.
            if isinstance(value, np.ndarray) and value.ndim:
                fn(value, x, out=value)
            else:
                value = fn(value, x)
    elif op == "sub":
        value = np.subtract(args[0], args[1])
    elif op == "div":
        y, x = args
        bad = x == 0
        if np.any(bad):
            raise _fail("division by zero", path, points, bad)
        value = np.divide(y, x)
    elif op == "pow":
        base, exponent = args
        bad = (base == 0) & (exponent < 0)
        if np.any(bad):
            raise _fail("division by zero (zero to a negative power)", path, points, bad)
        negative = base < 0
        if np.any(negative):
            bad = negative & (exponent != np.floor(exponent))
            if np.any(bad):
                raise _fail(
                    "negative base with a non-integer exponent (complex result)",
                    path, points, bad,
                )  # fmt: skip
        value = np.power(base, exponent)
    elif op == "atan2":
        # Adding 0.0 turns -0.0 into +0.0: the reals have one zero, and IEEE
        # atan2 would otherwise answer -pi for (-0.0, -1) and pi for (0, -0.0).
        # atan2(0, 0) is 0, as in C, numpy and the compiled simulators.
        value = np.arctan2(np.add(args[0], 0.0), np.add(args[1], 0.0))
    else:
        raise PredictorInvalid(f"unknown op {_quote(op)} at {path}", path)

    if op in _MAY_OVERFLOW:
        bad = ~np.isfinite(value)
        if np.any(bad):
            raise _fail(f"{op} overflowed to a non-finite value", path, points, bad)
    return value


def _evaluate_tree(tree: object, path: str, env: dict[str, np.ndarray], points: _Points):
    """Post-order evaluation of one tree with an explicit stack."""
    values: list = []
    # Entries: (node, path, expanded). An op is pushed twice: first to push
    # its children, then (expanded) to combine their values.
    stack: list[tuple[object, str, bool]] = [(tree, path, False)]
    while stack:
        node, node_path, expanded = stack.pop()
        if isinstance(node, dict) and "op" in node:
            args = node["args"]
            if expanded:
                n = len(args)
                operands = values[-n:]
                del values[-n:]
                values.append(_apply(node["op"], operands, node_path, points))
            else:
                stack.append((node, node_path, True))
                for i in range(len(args) - 1, -1, -1):
                    stack.append((args[i], _child_path(node_path, i), False))
        elif isinstance(node, dict):
            name = node.get("var")
            if not isinstance(name, str) or name not in env:
                raise PredictorInvalid(f"unknown variable {_quote(name)} at {node_path}", node_path)
            values.append(env[name])
        else:
            values.append(np.float64(node))
    (value,) = values
    return value


def evaluate_predictor(
    predictor: dict[str, object], inputs: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Evaluate a validated predictor on arrays of input points.

    ``inputs`` maps input names to arrays of one common shape (one element
    per point); every output comes back as a float64 array of that shape,
    constant trees included. Semantics are real-valued (SPEC.md): radians,
    real cube root, ``step(0) = 0``, ``sign(0) = 0``, rounding ties to even.

    Raises ``PredictorInvalid`` if at any point an op leaves its domain
    (division by zero, log or sqrt out of range, asin/acos outside [-1, 1],
    a negative base with a non-integer exponent) or a value overflows; the
    reason names the op, the JSON path and one offending input point.
    Raises ``ValueError`` if the inputs themselves are unusable (different
    shapes, or NaN/inf), which is the caller's fault, not the player's.
    """
    shapes = {np.shape(v) for v in inputs.values()}
    if len(shapes) > 1:
        raise ValueError(f"input arrays have different shapes: {sorted(shapes)}")
    shape = shapes.pop() if shapes else ()
    env: dict[str, np.ndarray] = {}
    for name, raw in inputs.items():
        arr = np.asarray(raw, dtype=np.float64).ravel()
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"input {name!r} contains NaN or infinite values")
        env[name] = arr
    size = int(np.prod(shape))
    points = _Points(env, size)

    results: dict[str, np.ndarray] = {}
    # Every domain problem is caught by an explicit check above, so numpy's
    # own warnings would only repeat them (underflow to 0 is acceptable).
    with np.errstate(all="ignore"):
        for name, tree in predictor.items():
            value = _evaluate_tree(tree, str(name), env, points)
            if np.ndim(value) == 0:
                # A subtree without variables stays a scalar while evaluated
                # (constants cost nothing) and is broadcast only here.
                results[name] = np.full(shape, float(value))
                continue
            if any(value is arr for arr in env.values()):
                # A bare-variable tree must not alias the caller's array.
                value = value.copy()
            results[name] = value.reshape(shape)
    return results
