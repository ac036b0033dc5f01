"""Property tests for predictors: validation never crashes, evaluation agrees
with sympy.

The reference here is independent of scigame.predictor: a recursive validity
check written from SPEC.md, and a tree -> sympy converter evaluated with
sympy.lambdify. Comparisons are made only where both sides are finite and the
point is well conditioned (see `_stable_points`), since an ill-conditioned
expression has no reproducible double-precision value to agree on.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sympy.utilities.lambdify import implemented_function

from scigame.predictor import (
    OPS,
    PredictorInvalid,
    evaluate_predictor,
    parse_predictor_json,
    validate_predictor,
)

INPUTS = ("x", "y")
OUTPUTS = ("F",)
SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------

ARITY_CHOICES = {op: ([2, 3] if hi is None else [lo]) for op, (lo, hi) in OPS.items()}

# Dyadic constants are exact in binary, so sums and products of them are the
# same however sympy reorders them; arbitrary floats are drawn too.
NICE = [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 0.25, 3.0, 10.0]
constants = st.one_of(
    st.sampled_from(NICE), st.floats(-10, 10, allow_nan=False, allow_subnormal=False)
)
variables = st.sampled_from(INPUTS).map(lambda name: {"var": name})


def _op_node(draw_children):
    @st.composite
    def build(draw):
        op = draw(st.sampled_from(sorted(OPS)))
        n = draw(st.sampled_from(ARITY_CHOICES[op]))
        return {"op": op, "args": [draw(draw_children) for _ in range(n)]}

    return build()


valid_trees = st.recursive(
    st.one_of(constants, variables), _op_node, max_leaves=12
)

# Almost-trees: the right shape most of the time, with every kind of mistake
# mixed in (unknown ops and names, wrong arities, stray keys, non-numbers).
junk_leaves = st.one_of(
    constants,
    variables,
    st.integers(-(10**400), 10**400),
    st.floats(),  # NaN and +-inf included
    st.booleans(),
    st.none(),
    st.text(max_size=5),
    st.sampled_from(["nope", 1, None, ["x"]]).map(lambda v: {"var": v}),
    st.just({}),
)


@st.composite
def _junk_node(draw, children):
    op = draw(st.one_of(st.sampled_from(sorted(OPS)), st.sampled_from(["foo", "ADD", ""]), st.integers()))
    args = draw(st.lists(children, max_size=4))
    node: dict = {"op": op, "args": args}
    mutation = draw(st.integers(0, 9))
    if mutation == 0:
        node["args"] = tuple(args)
    elif mutation == 1:
        node["extra"] = 1
    elif mutation == 2:
        del node["args"]
    elif mutation == 3:
        node = {"var": "x", "op": op}
    return node


junk_trees = st.recursive(junk_leaves, lambda children: _junk_node(children), max_leaves=15)

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=8),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(["F", "op", "args", "var"]), st.text(max_size=4)),
            children,
            max_size=4,
        ),
    ),
    max_leaves=20,
)

points = st.integers(1, 6).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            name: st.lists(
                st.one_of(
                    st.sampled_from(NICE),
                    st.floats(-4, 4, allow_nan=False, allow_subnormal=False),
                ),
                min_size=n,
                max_size=n,
            # + 0.0 drops the sign of -0.0, which only numpy (the reference
            # runs on it) would see: atan2(-0.0, -1) is -pi there, pi for us.
            ).map(lambda v: np.array(v, dtype=float) + 0.0)
            for name in INPUTS
        }
    )
)

# --------------------------------------------------------------------------
# Independent references
# --------------------------------------------------------------------------


def reference_is_valid(tree, inputs=INPUTS) -> bool:
    """SPEC.md's tree rules, written recursively (the trees here are small)."""
    if isinstance(tree, bool):
        return False
    if isinstance(tree, int):
        try:
            return math.isfinite(float(tree))
        except OverflowError:
            return False
    if isinstance(tree, float):
        return math.isfinite(tree)
    if not isinstance(tree, dict):
        return False
    if set(tree) == {"var"}:
        return isinstance(tree["var"], str) and tree["var"] in inputs
    if set(tree) != {"op", "args"}:
        return False
    op, args = tree["op"], tree["args"]
    if not isinstance(op, str) or op not in OPS or not isinstance(args, list):
        return False
    lo, hi = OPS[op]
    if len(args) < lo or (hi is not None and len(args) > hi):
        return False
    return all(reference_is_valid(a, inputs) for a in args)


SYMBOLS = {name: sp.Symbol(name, real=True) for name in INPUTS}
_RINT = implemented_function("rint", np.rint)  # ties to even, as the spec asks
_UNARY_SYMPY = {
    "neg": lambda a: -a,
    "abs": sp.Abs,
    "sqrt": sp.sqrt,
    # The real cube root written out: sympy's real_root builds a Piecewise
    # for arguments not known to be real (e.g. rint(x)), which it then
    # cannot always print.
    "cbrt": lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3),
    "exp": sp.exp,
    "log": sp.log,
    "log10": lambda a: sp.log(a, 10),
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "step": lambda a: sp.Heaviside(a, 0),
    "sign": sp.sign,
    "round": _RINT,
}
_OTHER_SYMPY = {
    "add": lambda *a: sp.Add(*a),
    "mul": lambda *a: sp.Mul(*a),
    "min": sp.Min,
    "max": sp.Max,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / b,
    "pow": sp.Pow,
    "atan2": sp.atan2,
}


def to_sympy(tree) -> sp.Expr:
    if isinstance(tree, dict) and "var" in tree:
        return SYMBOLS[tree["var"]]
    if isinstance(tree, dict):
        args = [to_sympy(a) for a in tree["args"]]
        # sympy leaves some constants undefined (atan2(0, 0), 0**-1,
        # tan(pi/2)); some of its functions refuse such arguments and lambdify
        # cannot print them, so the whole value is kept undefined instead.
        if any(a.has(sp.nan, sp.zoo, sp.oo, -sp.oo) for a in args):
            return sp.nan
        fn = _UNARY_SYMPY.get(tree["op"]) or _OTHER_SYMPY[tree["op"]]
        result = fn(*args)
        if result.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return sp.nan
        # sympy folds constants with an unbounded exponent (1e-200**2 is
        # 1e-400, not 0); outside the double range it is no reference.
        if result.is_Number and not result.is_zero and not 1e-307 < abs(float(result)) < 1e308:
            return sp.nan
        return result
    return sp.Float(tree)


def sympy_values(tree, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The tree evaluated by sympy.lambdify; NaN where it is not real."""
    expr = to_sympy(tree)
    n = len(inputs[INPUTS[0]])
    if expr is sp.nan:
        return np.full(n, np.nan)
    # Heaviside is mapped straight to np.heaviside: printed by sympy it
    # becomes a Piecewise that sympy may try (and fail) to simplify.
    modules = [{"rint": np.rint, "Heaviside": np.heaviside}, "numpy"]
    fn = sp.lambdify([SYMBOLS[n] for n in INPUTS], expr, modules=modules)
    with np.errstate(all="ignore"):
        try:
            raw = np.asarray(fn(*(inputs[name] for name in INPUTS)))
        except OverflowError:  # Python float arithmetic on folded constants
            return np.full(n, np.nan)
    raw = np.broadcast_to(raw, (n,))
    if np.iscomplexobj(raw):
        real = np.where(np.abs(raw.imag) == 0, raw.real, np.nan)
    else:
        real = raw.astype(float)
    return real


def _subtrees(tree):
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, dict) and "op" in node:
            stack.extend(node["args"])
    return out


def _perturbed(tree, rng: np.random.Generator, delta: float):
    """The tree with every leaf multiplied by its own factor 1 + O(delta)."""
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [_perturbed(a, rng, delta) for a in tree["args"]]}
    factor = 1.0 + delta * rng.uniform(-1, 1)
    if isinstance(tree, dict):
        return {"op": "mul", "args": [tree, factor]}
    return tree * factor


def _subtree_values(tree, inputs) -> list[tuple[object, np.ndarray]]:
    """Every subtree with its values at the points (by our evaluator; if the
    whole tree evaluates, so does each subtree)."""
    return [(sub, evaluate_predictor({"F": sub}, inputs)["F"]) for sub in _subtrees(tree)]


def _magnitude(tree, inputs) -> np.ndarray:
    """Largest |value| of any subtree at each point (the scale of rounding)."""
    scale = np.zeros(len(inputs[INPUTS[0]]))
    for _, values in _subtree_values(tree, inputs):
        scale = np.maximum(scale, np.abs(values))
    return scale


def _representable_points(tree, inputs) -> np.ndarray:
    """Points where doubles can follow the exact math sympy does: no
    intermediate is subnormal (a few bits of precision left), no tan
    argument is so close to a pole that pi/2 rounded to a double matters
    (sympy turns tan(atan(x)) into x; in doubles it tops out near 1.6e16),
    and no atan2 is taken at the origin."""
    ok = np.ones(len(inputs[INPUTS[0]]), dtype=bool)
    for sub, values in _subtree_values(tree, inputs):
        ok &= ~((values != 0) & (np.abs(values) < np.finfo(float).tiny))
        if isinstance(sub, dict) and sub.get("op") == "tan":
            arg = evaluate_predictor({"F": sub["args"][0]}, inputs)["F"]
            ok &= np.abs(np.cos(arg)) > 1e-6
        if isinstance(sub, dict) and sub.get("op") == "atan2":
            # atan2(0, 0) is 0 for us but undefined in mathematics, and sympy
            # simplifies e.g. atan2(x, x) to pi/4 regardless.
            y, x = (evaluate_predictor({"F": a}, inputs)["F"] for a in sub["args"])
            ok &= (y != 0) | (x != 0)
    return ok


def _stable_points(tree, inputs, ours, scale) -> np.ndarray:
    """Points where a relative nudge of 1e-13 to every leaf moves the result by
    less than the comparison tolerance: there rounding differences (sympy
    reorders sums, folds constants, simplifies) cannot matter, and no
    step/sign/round sits on its jump."""
    n = len(ours)
    stable = np.ones(n, dtype=bool)
    rng = np.random.default_rng(0)
    for _ in range(3):
        nudged = _perturbed(tree, rng, 1e-13)
        for i in range(n):
            if not stable[i]:
                continue
            point = {k: v[i : i + 1] for k, v in inputs.items()}
            try:
                value = evaluate_predictor({"F": nudged}, point)["F"][0]
            except PredictorInvalid:  # next to a domain edge
                stable[i] = False
                continue
            stable[i] = abs(value - ours[i]) <= 1e-10 * (abs(ours[i]) + scale[i])
    return stable


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------


@SETTINGS
@given(json_values)
def test_validate_never_crashes_on_json_values(data):
    try:
        validate_predictor(data, INPUTS, OUTPUTS)
    except PredictorInvalid as e:
        assert e.reason and isinstance(e.path, str)


@SETTINGS
@given(junk_trees)
def test_validate_agrees_with_reference_rules(tree):
    expected = reference_is_valid(tree)
    try:
        result = validate_predictor({"F": tree}, INPUTS, OUTPUTS)
    except PredictorInvalid as e:
        assert not expected, f"valid tree rejected: {e.reason}"
        assert e.path == "F" or e.path.startswith("F.args[")
        return
    assert expected
    assert result == {"F": _with_float_numbers(tree)}
    assert all(
        isinstance(node, float) for node in _subtrees(result["F"]) if not isinstance(node, dict)
    )


def _with_float_numbers(tree):
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [_with_float_numbers(a) for a in tree["args"]]}
    return tree if isinstance(tree, dict) else float(tree)


@SETTINGS
@given(json_values)
def test_parse_round_trips_json_text(value):
    text = json.dumps(value)
    try:
        parsed = parse_predictor_json(text)
    except PredictorInvalid as e:
        # Only what the strict parser refuses on purpose.
        assert "non-finite" in e.reason or "duplicate" in e.reason
        return
    assert json.dumps(parsed) == text


@SETTINGS
@given(st.one_of(st.text(max_size=40), st.binary(max_size=40)))
def test_parse_never_crashes_on_arbitrary_text(text):
    try:
        parse_predictor_json(text)
    except PredictorInvalid as e:
        assert e.reason


@SETTINGS
@given(valid_trees, points)
def test_valid_trees_evaluate_to_finite_arrays_or_invalid(tree, inputs):
    pred = validate_predictor({"F": tree}, INPUTS, OUTPUTS)
    try:
        out = evaluate_predictor(pred, inputs)
    except PredictorInvalid as e:
        assert e.path == "F" or e.path.startswith("F.args[")
        assert f" at {e.path} (" in e.reason
        return
    assert out["F"].shape == inputs["x"].shape
    assert out["F"].dtype == np.float64
    assert np.all(np.isfinite(out["F"]))


@SETTINGS
@given(st.one_of(valid_trees, junk_trees), points)
def test_a_recorded_tree_program_folds_as_the_tree_does(tree, inputs):
    """evaluate_predictor from tree_programs (a constraint's, recorded once)
    gives what folding the tree gives: the same values, or the same error
    (a domain error, an unknown variable); a malformed tree is refused when
    the program is recorded, with fold_tree's own error."""
    from scigame.predictor import tree_program

    def outcome(fold):
        try:
            return fold()["F"].tolist()
        except PredictorInvalid as e:
            return ("invalid", e.reason, e.path)

    try:
        program = tree_program(tree, "F")
    except PredictorInvalid as e:
        with np.errstate(all="ignore"):
            assert outcome(lambda: evaluate_predictor({"F": tree}, inputs)) == ("invalid", e.reason, e.path)
        return
    alone = {"x": inputs["x"]}  # y unknown here: the error names its place
    for given_inputs in (inputs, alone):
        assert (outcome(lambda: evaluate_predictor({"F": tree}, given_inputs, {"F": program}))
                == outcome(lambda: evaluate_predictor({"F": tree}, given_inputs)))


@SETTINGS
@given(st.one_of(valid_trees, junk_trees), points)
def test_a_program_with_its_constants_folded_evaluates_to_the_same_bits(tree, inputs):
    """constants_folded (the oracle's constraints) changes no bit of a value
    and no error: the same reason at the same path, for a constant subtree
    out of its domain too."""
    from scigame.predictor import constants_folded, tree_program

    def outcome(programs):
        try:
            value = evaluate_predictor({"F": tree}, given_inputs, programs)["F"]
            return value.shape, value.tobytes()
        except PredictorInvalid as e:
            return ("invalid", e.reason, e.path)

    try:
        program = tree_program(tree, "F")
    except PredictorInvalid:
        return
    folded = constants_folded(program)
    assert len(folded) <= len(program)
    for given_inputs in (inputs, {"x": inputs["x"]}):
        assert outcome({"F": folded}) == outcome({"F": program})


def test_constants_folded_computes_a_constant_once_and_keeps_one_that_fails():
    from scigame.predictor import constants_folded, tree_program

    pi = {"op": "acos", "args": [-1.0]}
    tree = {"op": "div", "args": [{"var": "x"}, {"op": "mul", "args": [4.0, pi, 11.34]}]}
    folded = constants_folded(tree_program(tree, "F"))
    assert [s[0] for s in folded] == [1, 0, 2]  # x, the one number, div
    assert folded[1][1] == np.multiply(np.multiply(4.0, np.arccos(-1.0)), 11.34)
    x = np.array([0.5, 3.0])
    assert (evaluate_predictor({"F": tree}, {"x": x}, {"F": folded})["F"].tobytes()
            == evaluate_predictor({"F": tree}, {"x": x})["F"].tobytes())
    failing = {"op": "add", "args": [{"var": "x"}, {"op": "log", "args": [{"op": "sub", "args": [1.0, 2.0]}]}]}
    program = tree_program(failing, "F")
    folded = constants_folded(program)
    assert [s[0] for s in folded] == [1, 0, 2, 2]  # 1 - 2 folded; the log of it kept, to fail where it did
    with pytest.raises(PredictorInvalid) as kept:
        evaluate_predictor({"F": failing}, {"x": x}, {"F": folded})
    with pytest.raises(PredictorInvalid) as before:
        evaluate_predictor({"F": failing}, {"x": x})
    assert (kept.value.reason, kept.value.path) == (before.value.reason, before.value.path)


@settings(SETTINGS, max_examples=200)
@given(valid_trees, points)
def test_evaluation_agrees_with_sympy(tree, inputs):
    pred = validate_predictor({"F": tree}, INPUTS, OUTPUTS)
    try:
        ours = evaluate_predictor(pred, inputs)["F"]
    except PredictorInvalid:
        assume(False)
    ref = sympy_values(pred["F"], inputs)
    scale = _magnitude(pred["F"], inputs)
    compare = (
        np.isfinite(ref)
        & _representable_points(pred["F"], inputs)
        & _stable_points(pred["F"], inputs, ours, scale)
    )
    tol = 1e-9 * np.abs(ref) + 1e-9 * scale
    bad = compare & ~(np.abs(ours - ref) <= tol)
    assert not np.any(bad), (
        f"tree={pred['F']}\nsympy={to_sympy(pred['F'])}\n"
        f"inputs={ {k: v[bad].tolist() for k, v in inputs.items()} }\n"
        f"ours={ours[bad].tolist()} sympy={ref[bad].tolist()}"
    )


def test_sympy_reference_matches_the_spec_on_known_values():
    """The reference converter itself, on the spec's edge cases."""
    cases = [
        ({"op": "cbrt", "args": [{"var": "x"}]}, -27.0, -3.0),
        ({"op": "step", "args": [{"var": "x"}]}, 0.0, 0.0),
        ({"op": "sign", "args": [{"var": "x"}]}, 0.0, 0.0),
        ({"op": "round", "args": [{"var": "x"}]}, 2.5, 2.0),
        ({"op": "round", "args": [{"var": "x"}]}, 3.5, 4.0),
        ({"op": "atan2", "args": [{"var": "x"}, -1.0]}, 1.0, 3 * math.pi / 4),
    ]
    for tree, x, expected in cases:
        got = sympy_values(tree, {"x": np.array([x]), "y": np.array([0.0])})
        assert math.isclose(got[0], expected, rel_tol=1e-12)
