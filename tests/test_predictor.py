"""Predictor parsing, validation and evaluation (SPEC.md, "Predictors")."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from scigame.predictor import (
    MAX_DEPTH,
    MAX_JSON_CHARS,
    MAX_NODES,
    OPS,
    PredictorInvalid,
    count_nodes,
    evaluate_predictor,
    parse_predictor_json,
    tree_depth,
    validate_predictor,
)

INPUTS = ("m1", "r")
OUTPUTS = ("F",)

# Generous bound: only a guard against a hang or a quadratic blow-up; the
# real figures are in benchmarks/.
HANG_GUARD_S = 2.0


def op(name: str, *args: object) -> dict:
    return {"op": name, "args": list(args)}


def var(name: str) -> dict:
    return {"var": name}


def chain(depth: int, leaf: object = 1.0) -> object:
    """A tree whose deepest node is at `depth` (neg applied depth times)."""
    tree = leaf
    for _ in range(depth):
        tree = op("neg", tree)
    return tree


def nodes_tree(n: int) -> object:
    """A tree of exactly n >= 3 nodes (odd n: one add; even n: neg on top)."""
    if n % 2 == 0:
        return op("neg", nodes_tree(n - 1))
    return op("add", *([1.0] * (n - 1)))


def invalid(data: object, inputs=INPUTS, outputs=OUTPUTS) -> PredictorInvalid:
    with pytest.raises(PredictorInvalid) as info:
        validate_predictor(data, inputs, outputs)
    return info.value


def evaluate(tree: object, **inputs: object) -> np.ndarray:
    names = sorted(inputs) or ["x"]
    arrays = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in inputs.items()}
    pred = validate_predictor({"F": tree}, names, ["F"])
    return evaluate_predictor(pred, arrays)["F"]


# --------------------------------------------------------------------------
# The op table is the spec's
# --------------------------------------------------------------------------


def test_ops_table_matches_spec():
    spec = {
        (2, None): "add mul min max",
        (2, 2): "sub div pow atan2",
        (1, 1): "neg abs sqrt cbrt exp log log10 sin cos tan asin acos atan sinh cosh tanh "
        "step sign round",
    }
    expected = {name: arity for arity, names in spec.items() for name in names.split()}
    assert OPS == expected
    assert (MAX_NODES, MAX_DEPTH) == (1024, 64)


# --------------------------------------------------------------------------
# Validation: valid predictors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "outputs", "expected"),
    [
        ({"F": 3}, ["F"], {"F": 3.0}),
        ({"F": -2.5e-300}, ["F"], {"F": -2.5e-300}),
        ({"F": var("r")}, ["F"], {"F": var("r")}),
        (
            {"F": op("div", op("mul", 6, var("m1")), op("pow", var("r"), 2))},
            ["F"],
            {"F": op("div", op("mul", 6.0, var("m1")), op("pow", var("r"), 2.0))},
        ),
        ({"F": op("add", 1, 2, 3, 4)}, ["F"], {"F": op("add", 1.0, 2.0, 3.0, 4.0)}),
        ({"G": 1, "F": var("m1")}, ["F", "G"], {"F": var("m1"), "G": 1.0}),
        ({"F": op("atan2", var("r"), var("m1"))}, ["F"], {"F": op("atan2", var("r"), var("m1"))}),
    ],
)
def test_valid_predictors(data, outputs, expected):
    result = validate_predictor(data, INPUTS, outputs)
    assert result == expected
    assert list(result) == list(outputs)  # in the card's output order


def test_numbers_are_cast_to_float_and_input_is_not_mutated():
    data = {"F": op("mul", 2, op("neg", 10**20))}
    snapshot = json.dumps(data)
    result = validate_predictor(data, INPUTS, OUTPUTS)
    leaves = [result["F"]["args"][0], result["F"]["args"][1]["args"][0]]
    assert all(type(x) is float for x in leaves)
    assert json.dumps(data) == snapshot
    assert result["F"] is not data["F"]


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_at_its_minimum_arity_is_valid(name):
    lo, _ = OPS[name]
    validate_predictor({"F": op(name, *([var("r")] * lo))}, INPUTS, OUTPUTS)


# --------------------------------------------------------------------------
# Validation: one invalid predictor per rule, with the culprit's path
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        # top level
        ([1.0], "", "must be a JSON object"),
        (None, "", "must be a JSON object"),
        ("F", "", "must be a JSON object"),
        ({}, "F", "missing output 'F'"),
        ({"F": 1, "G": 2}, "G", "unexpected output 'G'"),
        # leaves that are not trees
        ({"F": True}, "F", "boolean true"),
        ({"F": op("add", 1, False)}, "F.args[1]", "boolean false"),
        ({"F": None}, "F", "null"),
        ({"F": "m1"}, "F", "string 'm1'"),
        ({"F": op("add", 1, [2])}, "F.args[1]", "array"),
        ({"F": float("nan")}, "F", "non-finite"),
        ({"F": op("neg", float("inf"))}, "F.args[0]", "non-finite"),
        ({"F": 10**400}, "F", "too large"),
        # variables
        ({"F": var("x")}, "F", "unknown variable 'x'"),
        ({"F": op("mul", var("m1"), op("neg", var("m2")))}, "F.args[1].args[0]", "unknown variable 'm2'"),
        ({"F": {"var": "r", "op": "neg"}}, "F", 'only the key "var"'),
        ({"F": {"var": 1}}, "F", "must be a string"),
        # operations
        ({"F": op("add", 1, op("foo", 2))}, "F.args[1]", "unknown op 'foo'"),
        ({"F": op("Add", 1, 2)}, "F", "unknown op 'Add'"),
        ({"F": op("add", 1)}, "F", "add takes at least 2 arguments, got 1"),
        ({"F": op("mul")}, "F", "mul takes at least 2 arguments, got 0"),
        ({"F": op("sub", 1, 2, 3)}, "F", "sub takes 2 arguments, got 3"),
        ({"F": op("atan2", 1)}, "F", "atan2 takes 2 arguments, got 1"),
        ({"F": op("sqrt", 1, 2)}, "F", "sqrt takes 1 argument, got 2"),
        ({"F": op("add", 1, op("neg"))}, "F.args[1]", "neg takes 1 argument, got 0"),
        ({"F": {"op": "neg"}}, "F", 'exactly the keys "op" and "args"'),
        ({"F": {"args": [1]}}, "F", 'exactly the keys "op" and "args"'),
        ({"F": {"op": "neg", "args": [1], "note": "x"}}, "F", 'exactly the keys "op" and "args"'),
        ({"F": {}}, "F", 'exactly the keys "op" and "args"'),
        ({"F": {"op": "neg", "args": 1}}, "F", "must be an array"),
        ({"F": {"op": "neg", "args": {"0": 1}}}, "F", "must be an array"),
        ({"F": {"op": 3, "args": [1]}}, "F", "op at F must be a string"),
        # the first culprit in left-to-right order is the one reported
        ({"F": op("add", op("neg", var("q")), op("bad", 1))}, "F.args[0].args[0]", "unknown variable"),
    ],
)
def test_invalid_predictors(data, path, fragment):
    err = invalid(data)
    assert err.path == path
    assert fragment in err.reason
    if path:
        assert path in err.reason


def test_outputs_are_checked_in_order_across_trees():
    err = invalid({"F": 1.0, "G": op("log", var("nope"))}, outputs=["F", "G"])
    assert err.path == "G.args[0]"


# --------------------------------------------------------------------------
# Validation: limits
# --------------------------------------------------------------------------


def test_node_limit_boundary_single_output():
    ok = nodes_tree(MAX_NODES)
    assert count_nodes(ok) == MAX_NODES
    validate_predictor({"F": ok}, INPUTS, OUTPUTS)
    too_many = nodes_tree(MAX_NODES + 1)
    assert count_nodes(too_many) == MAX_NODES + 1
    err = invalid({"F": too_many})
    assert "more than 1024 nodes" in err.reason
    assert err.path == ""


def test_node_limit_counts_all_outputs():
    half = nodes_tree(MAX_NODES // 2)
    validate_predictor({"F": half, "G": half}, INPUTS, ["F", "G"])
    err = invalid({"F": half, "G": nodes_tree(MAX_NODES // 2 + 1)}, outputs=["F", "G"])
    assert "more than 1024 nodes" in err.reason


def test_depth_limit_boundary():
    ok = chain(MAX_DEPTH)
    assert tree_depth(ok) == 64
    validate_predictor({"F": ok}, INPUTS, OUTPUTS)
    err = invalid({"F": chain(MAX_DEPTH + 1)})
    assert err.path == "F" + ".args[0]" * 65
    assert "depth 65" in err.reason


def test_depth_limit_counts_variables_too():
    err = invalid({"F": chain(MAX_DEPTH + 1, leaf=var("r"))})
    assert err.path == "F" + ".args[0]" * 65


def test_100000_deep_tree_is_rejected_fast():
    tree = chain(100_000)
    start = time.perf_counter()
    err = invalid({"F": tree})
    assert time.perf_counter() - start < HANG_GUARD_S
    assert "too deep" in err.reason


def test_million_node_trees_are_rejected_fast():
    wide = op("add", *([1.0] * 1_000_000))
    # A balanced binary tree of depth 20 (2**21 - 1 nodes) built by sharing
    # each level's subtree: JSON cannot share, but it walks the same.
    balanced: object = var("r")
    for _ in range(20):
        balanced = op("mul", balanced, balanced)
    for tree in (wide, balanced):
        start = time.perf_counter()
        err = invalid({"F": tree})
        assert time.perf_counter() - start < HANG_GUARD_S
        assert "more than 1024 nodes" in err.reason


def test_count_nodes_and_tree_depth():
    tree = op("add", var("r"), op("neg", op("sin", 2.0)), 3.0)
    assert count_nodes(tree) == 6
    assert tree_depth(tree) == 3
    assert (count_nodes(1.0), tree_depth(1.0)) == (1, 0)
    deep = chain(100_000)
    assert (count_nodes(deep), tree_depth(deep)) == (100_001, 100_000)


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def test_parse_accepts_str_and_bytes():
    text = '{"F": {"op": "mul", "args": [2, {"var": "r"}]}}'
    expected = {"F": op("mul", 2, var("r"))}
    assert parse_predictor_json(text) == expected
    assert parse_predictor_json(text.encode()) == expected


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_parse_rejects_non_finite_literals(literal):
    with pytest.raises(PredictorInvalid, match=literal):
        parse_predictor_json(f'{{"F": {{"op": "add", "args": [1, {literal}]}}}}')


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "1" + "0" * 400 + ".0"])
def test_parse_rejects_overflowing_floats(literal):
    with pytest.raises(PredictorInvalid, match="too large"):
        parse_predictor_json(f'{{"F": {literal}}}')


def test_parse_rejects_overlong_integer_literal():
    with pytest.raises(PredictorInvalid, match="too many digits"):
        parse_predictor_json('{"F": ' + "9" * 5000 + "}")


def test_huge_integer_is_invalid_at_validation():
    data = parse_predictor_json('{"F": ' + "9" * 400 + "}")
    assert invalid(data).path == "F"


@pytest.mark.parametrize(
    "text",
    [
        '{"F": 1, "F": 2}',
        '{"F": {"op": "neg", "op": "abs", "args": [1]}}',
        '{"F": {"op": "add", "args": [{"var": "r", "var": "m1"}, 1]}}',
    ],
)
def test_parse_rejects_duplicate_keys(text):
    with pytest.raises(PredictorInvalid, match="duplicate key"):
        parse_predictor_json(text)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", "line 1, column 1"),
        ('{"F": 1,}', "line 1, column 9"),
        ('{\n  "F": {"op": "neg", "args": [1]\n}', "line 3, column 2"),
        ("{'F': 1}", "line 1, column 2"),
        ('{"F": 1} trailing', "line 1, column 10"),
    ],
)
def test_parse_reports_line_and_column(text, where):
    with pytest.raises(PredictorInvalid) as info:
        parse_predictor_json(text)
    assert info.value.reason.startswith("malformed JSON")
    assert where in info.value.reason
    assert info.value.path == ""


def test_parse_rejects_bad_encoding():
    with pytest.raises(PredictorInvalid, match="malformed JSON"):
        parse_predictor_json(b'{"F": "\xff"}')


@pytest.mark.parametrize("opener", ["[", '{"a": '])
def test_parse_100000_deep_text_is_rejected_fast(opener):
    closer = "]" if opener == "[" else "}"
    text = opener * 100_000 + "1" + closer * 100_000
    start = time.perf_counter()
    with pytest.raises(PredictorInvalid, match="nested too deeply"):
        parse_predictor_json(text)
    assert time.perf_counter() - start < HANG_GUARD_S


def test_parse_rejects_oversized_text_without_parsing():
    text = " " * (MAX_JSON_CHARS + 1) + "1"
    start = time.perf_counter()
    with pytest.raises(PredictorInvalid, match="too large"):
        parse_predictor_json(text)
    assert time.perf_counter() - start < HANG_GUARD_S


def test_largest_pretty_printed_predictor_fits_the_size_limit():
    # 1024 nodes, one chain 64 deep: the worst indentation a valid predictor has.
    tree = op("add", chain(MAX_DEPTH - 1, var("r")), *([1.0] * (MAX_NODES - MAX_DEPTH - 1)))
    assert (count_nodes(tree), tree_depth(tree)) == (MAX_NODES, MAX_DEPTH)
    text = json.dumps({"F": tree}, indent=4)
    assert len(text) < MAX_JSON_CHARS
    validate_predictor(parse_predictor_json(text), INPUTS, OUTPUTS)


def test_parse_then_validate_end_to_end():
    text = '{"F": {"op": "div", "args": [{"op": "mul", "args": [6.674e-11, {"var": "m1"}]}, ' \
        '{"op": "pow", "args": [{"var": "r"}, 2]}]}}'
    pred = validate_predictor(parse_predictor_json(text), INPUTS, OUTPUTS)
    out = evaluate_predictor(pred, {"m1": np.array([1.0, 2.0]), "r": np.array([1.0, 2.0])})
    np.testing.assert_allclose(out["F"], [6.674e-11, 6.674e-11 * 2 / 4], rtol=1e-15)


# --------------------------------------------------------------------------
# Evaluation: each op against values computed independently with math
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        (op("add", 1, 2, 3.5), 6.5),
        (op("mul", 2, -3, 0.5), -3.0),
        (op("min", 3, -1, 2), -1.0),
        (op("max", 3, -1, 2), 3.0),
        (op("sub", 1, 2.5), -1.5),
        (op("div", 7, 2), 3.5),
        (op("pow", 2, 10), 1024.0),
        (op("pow", -2, 3), -8.0),
        (op("pow", -8, -1), -0.125),
        (op("pow", 2.25, 0.5), 1.5),
        (op("pow", 0, 0), 1.0),
        (op("atan2", 1, -1), 3 * math.pi / 4),
        (op("atan2", -1, -1), -3 * math.pi / 4),
        (op("atan2", 1, 0), math.pi / 2),
        (op("neg", 2), -2.0),
        (op("abs", -2.5), 2.5),
        (op("sqrt", 2), math.sqrt(2)),
        (op("cbrt", -27), -3.0),
        (op("cbrt", 8), 2.0),
        (op("exp", 1.5), math.exp(1.5)),
        (op("log", 10), math.log(10)),
        (op("log10", 1000), 3.0),
        (op("sin", 0.5), math.sin(0.5)),
        (op("cos", 0.5), math.cos(0.5)),
        (op("tan", 0.5), math.tan(0.5)),
        (op("asin", 0.5), math.asin(0.5)),
        (op("acos", -1), math.pi),
        (op("atan", 2), math.atan(2)),
        (op("sinh", 1.5), math.sinh(1.5)),
        (op("cosh", 1.5), math.cosh(1.5)),
        (op("tanh", 1.5), math.tanh(1.5)),
        (op("step", 0), 0.0),
        (op("step", 1e-300), 1.0),
        (op("step", -3), 0.0),
        (op("sign", 0), 0.0),
        (op("sign", -4), -1.0),
        (op("sign", 4), 1.0),
        (op("round", 2.5), 2.0),
        (op("round", 3.5), 4.0),
        (op("round", -2.5), -2.0),
        (op("round", 2.4999), 2.0),
        (op("round", -0.6), -1.0),
    ],
)
def test_op_values(tree, expected):
    # Once on constants, once with the same number coming in as a variable,
    # so both the scalar and the array code paths are exercised.
    const = evaluate(tree, x=[0.0, 1.0])
    np.testing.assert_allclose(const, [expected, expected], rtol=1e-14, atol=0)
    first, *rest = tree["args"]
    through_var = op(tree["op"], var("a"), *rest)
    np.testing.assert_allclose(evaluate(through_var, a=[first]), [expected], rtol=1e-14, atol=0)


def test_ops_are_vectorised_over_points():
    m1 = np.array([1.0, 2.0, 3.0, -4.0])
    r = np.array([0.5, 1.0, 2.0, 8.0])
    tree = op("add", op("mul", var("m1"), var("r")), op("cbrt", var("m1")), op("atan2", var("r"), var("m1")))
    got = evaluate(tree, m1=m1, r=r)
    expected = [a * b + math.copysign(abs(a) ** (1 / 3), a) + math.atan2(b, a) for a, b in zip(m1, r)]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_constant_trees_broadcast_and_results_are_float_arrays():
    inputs = {"m1": np.arange(5.0), "r": np.ones(5)}
    pred = validate_predictor({"F": 2, "G": op("sin", 0.0)}, INPUTS, ["F", "G"])
    out = evaluate_predictor(pred, inputs)
    assert out["F"].dtype == np.float64 and out["F"].shape == (5,)
    np.testing.assert_array_equal(out["F"], np.full(5, 2.0))
    np.testing.assert_array_equal(out["G"], np.zeros(5))


def test_result_does_not_alias_inputs():
    m1 = np.arange(3.0)
    out = evaluate_predictor({"F": var("m1")}, {"m1": m1})
    out["F"][0] = 99.0
    assert m1[0] == 0.0


def test_integer_inputs_and_nd_shapes():
    m1 = np.arange(6).reshape(2, 3)
    out = evaluate_predictor({"F": op("pow", var("m1"), 2)}, {"m1": m1})["F"]
    assert out.shape == (2, 3) and out.dtype == np.float64
    np.testing.assert_array_equal(out, (m1**2).astype(float))


def test_mismatched_or_non_finite_inputs_are_the_callers_error():
    with pytest.raises(ValueError, match="shapes"):
        evaluate_predictor({"F": 1.0}, {"m1": np.ones(2), "r": np.ones(3)})
    with pytest.raises(ValueError, match="NaN"):
        evaluate_predictor({"F": 1.0}, {"m1": np.array([1.0, np.nan])})


def test_underflow_is_fine():
    np.testing.assert_array_equal(evaluate(op("exp", var("x")), x=[-1000.0]), [0.0])
    np.testing.assert_array_equal(evaluate(op("mul", 1e-200, var("x")), x=[1e-200]), [0.0])


def test_deep_tree_evaluates_without_recursion():
    tree = chain(MAX_DEPTH, var("x"))
    np.testing.assert_array_equal(evaluate(tree, x=[3.0]), [3.0])  # even number of negations


# --------------------------------------------------------------------------
# Evaluation: domain errors name the op, the path and a point
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tree", "path", "fragment"),
    [
        (op("div", 1, op("sub", var("m1"), 2)), "F", "division by zero"),
        (op("add", 1, op("log", op("sub", var("r"), 1))), "F.args[1]", "log of a non-positive number"),
        (op("log", op("sub", var("r"), 0.5)), "F", "log of a non-positive number"),
        (op("log10", op("neg", var("r"))), "F", "log10 of a non-positive number"),
        (op("sqrt", op("sub", var("r"), 1)), "F", "sqrt of a negative number"),
        (op("asin", var("m1")), "F", "asin of a number outside [-1, 1]"),
        (op("acos", op("neg", var("m1"))), "F", "acos of a number outside [-1, 1]"),
        (op("pow", op("neg", var("m1")), 0.5), "F", "negative base with a non-integer exponent"),
        (op("pow", op("sub", var("m1"), 2), -1), "F", "division by zero"),
        (op("exp", op("mul", 1000, var("m1"))), "F", "exp overflowed"),
        (op("sinh", op("mul", 1000, var("m1"))), "F", "sinh overflowed"),
        (op("cosh", op("mul", 1000, var("m1"))), "F", "cosh overflowed"),
        (op("pow", 10, op("mul", 400, var("m1"))), "F", "pow overflowed"),
        (op("mul", 1e200, var("m1"), 1e200), "F", "mul overflowed"),
        (op("add", 1.7e308, op("div", 1.7e308, var("m1"))), "F", "add overflowed"),
        (op("sub", -1.7e308, op("div", 1.7e308, var("m1"))), "F", "sub overflowed"),
        (op("div", 1e300, op("mul", 1e-300, var("r"))), "F", "div overflowed"),
    ],
)
def test_domain_errors(tree, path, fragment):
    inputs = {"m1": np.array([1.0, 2.0, 3.0]), "r": np.array([2.0, 0.5, 0.25])}
    pred = validate_predictor({"F": tree}, INPUTS, OUTPUTS)
    with pytest.raises(PredictorInvalid) as info:
        evaluate_predictor(pred, inputs)
    err = info.value
    assert err.path == path
    assert fragment in err.reason
    assert f" at {path} (at m1=" in err.reason


def test_domain_error_names_the_first_failing_point():
    pred = {"F": op("log", var("r"))}
    inputs = {"m1": np.array([1.0, 2.0, 3.0]), "r": np.array([1.0, 0.5, -1.0])}
    with pytest.raises(PredictorInvalid) as info:
        evaluate_predictor(pred, inputs)
    assert info.value.reason == "log of a non-positive number at F (at m1=3.0, r=-1.0)"


def test_domain_error_in_a_constant_subtree():
    pred = validate_predictor({"F": op("add", var("r"), op("sqrt", -1))}, INPUTS, OUTPUTS)
    with pytest.raises(PredictorInvalid) as info:
        evaluate_predictor(pred, {"m1": np.array([5.0]), "r": np.array([1.0])})
    assert info.value.path == "F.args[1]"
    assert "(at m1=5.0, r=1.0)" in info.value.reason


def test_atan2_at_the_origin_is_zero_like_the_simulators():
    np.testing.assert_array_equal(evaluate(op("atan2", var("x"), var("x")), x=[0.0]), [0.0])


def test_atan2_ignores_the_sign_of_zero():
    # Real-valued semantics: -0.0 is 0, so no jump from pi to -pi (found by
    # the sympy property test).
    assert evaluate(op("atan2", op("neg", 0.0), -1.0), x=[0.0])[0] == math.pi
    assert evaluate(op("atan2", var("x"), -1.0), x=[-0.0])[0] == math.pi
    assert evaluate(op("atan2", 0.0, op("neg", var("x"))), x=[0.0])[0] == 0.0


def test_evaluation_emits_no_numpy_warnings():
    import warnings

    pred = {"F": op("log", var("r"))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(PredictorInvalid):
            evaluate_predictor(pred, {"r": np.array([0.0])})


def test_mask_any_and_mask_all_answer_as_numpy_does():
    """The evaluator's and the oracle's checks ask mask_any/mask_all (a one-element
    mask answered by its item): the same truth as np.any/np.all on every kind of mask."""
    from scigame.predictor import mask_all, mask_any

    rng = np.random.default_rng(7)
    masks = [np.array([], dtype=bool), np.array(True), np.array(False), np.bool_(True), np.bool_(False),
             [True, False], [False], np.array([np.nan]), np.array([0.0]), np.array([[1.0]]), np.array([-0.0, 0.0])]
    masks += [rng.random(n) < p for n in (1, 2, 7) for p in (0.0, 0.5, 1.0)]
    for mask in masks:
        assert bool(mask_any(mask)) == bool(np.any(mask)), mask
        assert bool(mask_all(mask)) == bool(np.all(mask)), mask
