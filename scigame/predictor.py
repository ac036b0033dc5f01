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
  ``evaluate_unchecked`` is the same evaluator without the domain checks
  (NaN or ±inf where an op leaves its domain), for the strict matcher.

Both, and the sympy translation of ``scigame.symbolic``, are folds by
``fold_tree``, the one walk that checks a node's shape; what each op means
and where it is defined comes from the predictor language's table,
``scigame.compiler.predictor_ops``.

Player text is only ever read as JSON; nothing is passed to eval or exec.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from .compiler.predictor_ops import ARITY, OP_TABLE, Op

__all__ = [
    "MAX_DEPTH",
    "MAX_JSON_CHARS",
    "MAX_NODES",
    "OPS",
    "PredictorInvalid",
    "count_nodes",
    "evaluate_predictor",
    "evaluate_unchecked",
    "fold_tree",
    "parse_predictor_json",
    "path_text",
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

#: op -> (minimum arity, maximum arity or None for unbounded); the rows of
#: the language are ``scigame.compiler.predictor_ops.OP_TABLE``.
OPS: dict[str, tuple[int, int | None]] = ARITY

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
# Walking a tree: one shape check for the validator, the evaluator and sympy
# --------------------------------------------------------------------------

#: A JSON path, built lazily: the root's name, or (parent path, argument index).
Path = Union[str, tuple]


def path_text(path: Path) -> str:
    """``F.args[1].args[0]`` for the path (("F", 1), 0)."""
    indices: list[int] = []
    while isinstance(path, tuple):
        path, index = path
        indices.append(index)
    return path + "".join(f".args[{i}]" for i in reversed(indices))


def _check_leaf_number(node: object, path: Path) -> None:
    try:
        value = float(node)  # type: ignore[arg-type]
    except OverflowError:
        where = path_text(path)
        raise PredictorInvalid(f"number at {where} is too large to be finite", where) from None
    if not math.isfinite(value):
        where = path_text(path)
        raise PredictorInvalid(f"non-finite number {node!r} at {where}", where)


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


def _var_name(node: dict, path: Path) -> str:
    """The name of a variable node, checked for shape (not against the inputs)."""
    if len(node) != 1:
        where = path_text(path)
        raise PredictorInvalid(f'a variable node must have only the key "var" at {where}', where)
    name = node["var"]
    if not isinstance(name, str):
        where = path_text(path)
        raise PredictorInvalid(
            f"variable name at {where} must be a string, not {_describe(name)}", where
        )
    return name


def _op_node(node: object, path: Path) -> tuple[Op, list]:
    """The row and the arguments of an operation node, checked for shape."""
    if not isinstance(node, dict):
        where = path_text(path)
        raise PredictorInvalid(
            f"{_describe(node)} at {where} is not a tree "
            '(expected a number, {"var": ...} or {"op": ..., "args": [...]})',
            where,
        )
    if "op" not in node or "args" not in node or len(node) != 2:
        where = path_text(path)
        keys = ", ".join(sorted(_quote(k) for k in node)) or "none"
        raise PredictorInvalid(
            f'an operation node must have exactly the keys "op" and "args" at {where} '
            f"(keys: {keys})",
            where,
        )
    op, args = node["op"], node["args"]
    if not isinstance(op, str):
        where = path_text(path)
        raise PredictorInvalid(f"op at {where} must be a string, not {_describe(op)}", where)
    row = OP_TABLE.get(op)
    if row is None:
        where = path_text(path)
        raise PredictorInvalid(f"unknown op {_quote(op)} at {where}", where)
    if not isinstance(args, list):
        where = path_text(path)
        raise PredictorInvalid(
            f"args of {op} at {where} must be an array, not {_describe(args)}", where
        )
    lo, hi = row.min_args, row.max_args
    if len(args) < lo or (hi is not None and len(args) > hi):
        where = path_text(path)
        want = f"at least {lo}" if hi is None else str(lo)
        raise PredictorInvalid(
            f"{op} takes {want} argument{'s' if lo > 1 or hi is None else ''}, "
            f"got {len(args)} at {where}",
            where,
        )
    return row, args


class _Budget:
    """The node and depth limits, counted over all outputs of one predictor."""

    def __init__(self) -> None:
        self.nodes = 0

    def _too_many(self, path: Path) -> PredictorInvalid:
        return PredictorInvalid(
            f"the predictor has more than {MAX_NODES} nodes over all outputs "
            f"(limit reached at {path_text(path)})"
        )

    def visit(self, path: Path, depth: int) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self._too_many(path)
        if depth > MAX_DEPTH:
            where = path_text(path)
            raise PredictorInvalid(
                f"tree too deep: {where} is at depth {depth}, the maximum is {MAX_DEPTH}", where
            )

    def reserve(self, unvisited: int, path: Path) -> None:
        """Refuse a huge args list before millions of entries are pushed:
        every unvisited node will be counted."""
        if self.nodes + unvisited > MAX_NODES:
            raise self._too_many(path)


def fold_tree(
    tree: object,
    root: str,
    number: Callable[[float], Any],
    var: Callable[[str, Path], Any],
    apply: Callable[[Op, list, Path], Any],
    budget: _Budget | None = None,
) -> Any:
    """Fold a tree bottom-up with an explicit stack, checking each node's shape.

    ``number`` maps a (finite) number leaf, ``var(name, path)`` a variable,
    ``apply(op, args, path)`` combines an op's folded arguments; ``root`` is
    the JSON path of the tree. Children are visited left to right, so the
    first problem in reading order is the one raised (``PredictorInvalid``
    with its path). With a ``budget``, the node and depth limits apply too.
    """
    values: list = []
    # Entries: (node, path, depth, row). An op is pushed twice: first with
    # row None to check it and push its children, then with its row to
    # combine their values.
    stack: list[tuple[Any, Path, int, Op | None]] = [(tree, root, 0, None)]
    unvisited = 1
    while stack:
        node, path, depth, row = stack.pop()
        if row is not None:
            n = len(node["args"])
            args = values[-n:]
            del values[-n:]
            values.append(apply(row, args, path))
            continue
        unvisited -= 1
        if budget is not None:
            budget.visit(path, depth)
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            _check_leaf_number(node, path)
            values.append(number(node))
        elif isinstance(node, dict) and "var" in node:
            values.append(var(_var_name(node, path), path))
        else:
            row, args = _op_node(node, path)
            if budget is not None:
                budget.reserve(unvisited + len(args), path)
            stack.append((node, path, depth, row))
            for i in range(len(args) - 1, -1, -1):
                stack.append((args[i], (path, i), depth + 1, None))
            unvisited += len(args)
    (value,) = values
    return value


def tree_program(tree: object, root: str) -> list[tuple]:
    """The calls ``fold_tree`` makes on ``tree``, in its order, recorded once
    so that ``run_program`` can make them again on other values without
    walking and checking the tree's shape again (a tree folded often, such as
    a card's constraint at every experiment). Raises ``PredictorInvalid`` as
    ``fold_tree`` does for a malformed tree."""
    program: list[tuple] = []

    def number(value):
        program.append((0, value))

    def var(name: str, path: Path):
        program.append((1, name, path))

    def apply(row: Op, args: list, path: Path):
        program.append((2, row, len(args), path))

    fold_tree(tree, root, number, var, apply)
    return program


def run_program(program: list[tuple], number: Callable[[float], Any], var: Callable[[str, Path], Any],
                apply: Callable[[Op, list, Path], Any]) -> Any:
    """``fold_tree`` of the tree a ``tree_program`` was recorded from: the
    same calls of ``number``, ``var`` and ``apply``, in the same order."""
    values: list = []
    for step in program:
        if step[0] == 2:
            n = step[2]
            args = values[-n:]
            del values[-n:]
            values.append(apply(step[1], args, step[3]))
        elif step[0] == 1:
            values.append(var(step[1], step[2]))
        else:
            values.append(number(step[1]))
    (value,) = values
    return value


def constants_folded(program: list[tuple]) -> list[tuple]:
    """A ``tree_program`` for ``evaluate_predictor`` with each subtree that
    names no variable recorded as the one number it comes to there (checked,
    float64): a constant of a card's constraint, such as ``4 * pi * 11.34
    [g/cm^3]``, is computed once rather than at every experiment, with the
    same ops on the same values, so the same bits. A constant subtree that
    leaves its domain or overflows stays as recorded: evaluating it raises
    where and what it raised before."""
    apply = _checked(_Points({}, 0))
    folded: list[tuple] = []
    constant: list[bool] = []  # per value the program leaves: a number step of `folded` alone
    with np.errstate(all="ignore"):
        for step in program:
            if step[0] != 2:
                folded.append(step)
                constant.append(step[0] == 0)
                continue
            n = step[2]
            value = None
            if n and all(constant[-n:]):
                try:
                    value = apply(step[1], [np.float64(s[1]) for s in folded[-n:]], step[3])
                except PredictorInvalid:
                    value = None
            if n:
                del constant[-n:]
            if value is not None and np.ndim(value) == 0:
                del folded[-n:]
                folded.append((0, value))
                constant.append(True)
            else:
                folded.append(step)
                constant.append(False)
    return folded


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _check_outputs(data: object, outputs: list[str]) -> dict:
    """``data`` as an object with exactly the keys ``outputs``."""
    if not isinstance(data, dict):
        raise PredictorInvalid(
            f"a predictor must be a JSON object mapping outputs to trees, not {_describe(data)}"
        )
    wanted = set(outputs)
    for name in outputs:
        if name not in data:
            raise PredictorInvalid(f"missing output {_quote(name)}", str(name))
    extra = [key for key in data if key not in wanted]
    if extra:
        # Sorted by repr so the reported key does not depend on dict order
        # and never compares keys of different types.
        key = min(extra, key=repr)
        expected = ", ".join(outputs)
        raise PredictorInvalid(
            f"unexpected output {_quote(key)} (the outputs are: {expected})", str(key)
        )
    return data


def _copy_op(row: Op, args: list, path: Path) -> dict:
    return {"op": row.name, "args": args}


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
    output_names = list(outputs)
    data = _check_outputs(data, output_names)
    known_vars = frozenset(inputs)

    def var(name: str, path: Path) -> dict:
        if name not in known_vars:
            where = path_text(path)
            names = ", ".join(inputs)
            raise PredictorInvalid(
                f"unknown variable {_quote(name)} at {where} (the inputs are: {names})", where
            )
        return {"var": name}

    budget = _Budget()
    return {
        name: fold_tree(data[name], str(name), float, var, _copy_op, budget)
        for name in output_names
    }


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
# Evaluation: the one numpy evaluator
# --------------------------------------------------------------------------


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


def _fail(what: str, path: Path, points: _Points, mask) -> PredictorInvalid:
    where = path_text(path)
    return PredictorInvalid(f"{what} at {where} {points.describe(mask)}", where)


def mask_any(mask) -> Any:
    """``np.any(mask)`` without numpy's dispatch, asked at every op of every
    checked evaluation and at every check of an experiment: a one-element
    array's own item (an experiment is one point: a reduction costs ten
    times as much), else an array's own ``any``."""
    if isinstance(mask, np.ndarray):
        return mask.item() if mask.size == 1 else mask.any()
    return mask.any() if isinstance(mask, np.generic) else np.any(mask)


def mask_all(mask) -> Any:
    """``np.all(mask)``, as ``mask_any`` asks ``np.any``."""
    if isinstance(mask, np.ndarray):
        return mask.item() if mask.size == 1 else mask.all()
    return mask.all() if isinstance(mask, np.generic) else np.all(mask)


def _checked(points: _Points) -> Callable[[Op, list, Path], Any]:
    """Apply one op to evaluated arguments, refusing any point outside its
    domain (``Op.domain``) and any overflow (ops with ``Op.overflows``)."""

    def apply(row: Op, args: list, path: Path):
        for rule in row.domain:
            bad = rule.bad(*args)
            if mask_any(bad):
                raise _fail(rule.reason, path, points, bad)
        value = row.numpy(*args)
        if row.overflows:
            finite = np.isfinite(value)
            if not mask_all(finite):
                raise _fail(f"{row.name} overflowed to a non-finite value", path, points, ~finite)
        return value

    return apply


def _unchecked(row: Op, args: list, path: Path):
    return row.numpy(*args)


def _lookup(env: dict[str, np.ndarray]) -> Callable[[str, Path], np.ndarray]:
    def var(name: str, path: Path) -> np.ndarray:
        if name not in env:
            where = path_text(path)
            raise PredictorInvalid(f"unknown variable {_quote(name)} at {where}", where)
        return env[name]

    return var


def evaluate_unchecked(tree: object, values: dict[str, np.ndarray]) -> np.ndarray:
    """Evaluate one tree with numpy where it may leave its domain.

    The same meaning as ``evaluate_predictor``, without the domain and
    overflow checks: a point outside an op's domain gives NaN or ±inf, and
    callers decide. ``values`` may hold arrays of shapes that broadcast; the
    result (read-only) has their common shape. The tree need not be
    validated: a malformed one raises ``PredictorInvalid`` (root path ``$``).
    """
    env = {name: np.asarray(v, dtype=float) for name, v in values.items()}
    with np.errstate(all="ignore"):
        result = fold_tree(tree, "$", np.float64, _lookup(env), _unchecked)
    shape = np.broadcast_shapes(*(np.shape(v) for v in env.values())) if env else ()
    return np.broadcast_to(np.asarray(result, dtype=float), shape)


def evaluate_predictor(
    predictor: dict[str, object], inputs: dict[str, np.ndarray], programs: dict[str, list] | None = None
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

    ``programs``, when given, holds each tree's ``tree_program`` (recorded
    under the root path of its output's name): the trees are folded from
    them, with the same results and the same errors.
    """
    env, shape = _input_env(inputs)
    var, apply = _lookup(env), _checked(_Points(env, math.prod(shape)))
    results: dict[str, np.ndarray] = {}
    # Every domain problem is caught by an explicit check above, so numpy's
    # own warnings would only repeat them (underflow to 0 is acceptable).
    with np.errstate(all="ignore"):
        for name, tree in predictor.items():
            value = (fold_tree(tree, str(name), np.float64, var, apply) if programs is None
                     else run_program(programs[name], np.float64, var, apply))
            results[name] = _output_array(value, env, shape)
    return results


def _input_env(inputs: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], tuple]:
    """evaluate_predictor's inputs, flattened float64 arrays, and their common shape."""
    shapes = {np.shape(v) for v in inputs.values()}
    if len(shapes) > 1:
        raise ValueError(f"input arrays have different shapes: {sorted(shapes)}")
    shape = shapes.pop() if shapes else ()
    env: dict[str, np.ndarray] = {}
    for name, raw in inputs.items():
        arr = np.asarray(raw, dtype=np.float64).ravel()
        if not mask_all(np.isfinite(arr)):
            raise ValueError(f"input {name!r} contains NaN or infinite values")
        env[name] = arr
    return env, shape


def _output_array(value: Any, env: dict[str, np.ndarray], shape: tuple) -> np.ndarray:
    """One tree's value as evaluate_predictor returns it."""
    if np.ndim(value) == 0:
        # A subtree without variables stays a scalar while evaluated
        # (constants cost nothing) and is broadcast only here.
        return np.full(shape, float(value))
    if any(value is arr for arr in env.values()):
        # A bare-variable tree must not alias the caller's array.
        value = value.copy()
    return value.reshape(shape)


class NumbersRefitted:
    """``evaluate_predictor(predictor, inputs, programs)`` again and again
    with new values at some of the programs' number steps (`slots`, each an
    (output, step index) pair): what refitting a predictor's constants asks
    for, mostly one constant moved at a time (a finite-difference Jacobian).
    Each subtree is evaluated only when one of the numbers under it differs
    (to the bit) from both of the last two evaluations of that subtree;
    otherwise its value then is used, made by the same ops on the same
    values. A call raises ``PredictorInvalid`` exactly when
    evaluate_predictor would (the reason may name another offending op)."""

    def __init__(self, programs: dict[str, list], inputs: dict[str, np.ndarray], slots: list[tuple[str, int]]):
        self.env, self.shape = _input_env(inputs)
        self.var, self.apply = _lookup(self.env), _checked(_Points(self.env, math.prod(self.shape)))
        self.programs = programs
        slot_of = {where: k for k, where in enumerate(slots)}
        self.slot = {name: {i: slot_of[(name, i)] for i in range(len(prog)) if (name, i) in slot_of}
                     for name, prog in programs.items()}
        # per output: the subtrees (apply steps) that start at each step, outermost first,
        # with where they end and the slots under them
        self.starting: dict[str, dict[int, list[tuple[int, tuple[int, ...]]]]] = {}
        self.under: dict[tuple[str, int], tuple[int, ...]] = {}  # an apply step's slots
        for name, prog in programs.items():
            spans: list[tuple[int, frozenset]] = []  # per value on the stack: (first step, slots)
            starting: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
            for i, step in enumerate(prog):
                if step[0] != 2:
                    spans.append((i, frozenset([self.slot[name][i]]) if i in self.slot[name] else frozenset()))
                    continue
                n = step[2]
                args = spans[len(spans) - n:] if n else []
                del spans[len(spans) - n:]
                first = args[0][0] if args else i
                under = frozenset().union(*[a[1] for a in args])
                spans.append((first, under))
                self.under[(name, i)] = tuple(sorted(under))
                starting.setdefault(first, []).insert(0, (i, self.under[(name, i)]))
            self.starting[name] = starting
        self.kept: dict[tuple[str, int], list[tuple[tuple, Any]]] = {}

    def __call__(self, values: Sequence[float]) -> dict[str, np.ndarray]:
        # a number's bits, the sign of a zero included (-0.0 == 0.0, but 1/-0.0 != 1/0.0)
        bits = [(v, math.copysign(1.0, v)) for v in values]
        results: dict[str, np.ndarray] = {}
        with np.errstate(all="ignore"):
            for name, prog in self.programs.items():
                # a copy: the value may be a kept subtree's, which no caller may change
                results[name] = np.array(_output_array(self._run(name, prog, values, bits), self.env, self.shape))
        return results

    def _run(self, name: str, prog: list, values: Sequence[float], bits: list) -> Any:
        stack: list = []
        slot, starting = self.slot[name], self.starting[name]
        i = 0
        while i < len(prog):
            for end, under in starting.get(i, ()):
                key = tuple(bits[k] for k in under)
                hit = next((v for k, v in self.kept.get((name, end), ()) if k == key), None)
                if hit is not None:
                    stack.append(hit)
                    i = end + 1
                    break
            else:
                step = prog[i]
                if step[0] == 2:
                    n = step[2]
                    args = stack[len(stack) - n:] if n else []
                    del stack[len(stack) - n:]
                    value = self.apply(step[1], args, step[3])
                    kept = self.kept.setdefault((name, i), [])
                    kept.insert(0, (tuple(bits[k] for k in self.under[(name, i)]), value))
                    del kept[2:]
                    stack.append(value)
                elif step[0] == 1:
                    stack.append(self.var(step[1], step[2]))
                else:
                    stack.append(np.float64(values[slot[i]]) if i in slot else np.float64(step[1]))
                i += 1
        (value,) = stack
        return value
