"""The predictor language's table against everything that lists or means ops.

`compiler/predictor_ops.py` is the one definition; these tests fail when an
op is added to (or changed in) one consumer and not the others: the JSON
Schema (also inside the LLM action schema), the player prompt's listing, the
op table of docs/predictors.md, the validator's arities, the numpy evaluator
(checked and unchecked), the sympy translation and the exact fold. The
numeric meanings are compared with sympy's values of the same op at points
inside and outside each domain rule.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

from scigame.compiler.predictor_ops import ARITY, OP_TABLE, arity_text, fold_exact
from scigame.compiler.predictor_schema import predictor_schema_for
from scigame.llm.player import action_schema
from scigame.llm.prompts import PLAYER_SYSTEM
from scigame.predictor import OPS, PredictorInvalid, evaluate_predictor, validate_predictor
from scigame.symbolic import evaluate_tree, tree_to_sympy

DOC = Path(__file__).resolve().parent.parent / "docs" / "predictors.md"
NAMES = sorted(OP_TABLE)
# Argument values: negatives, zero, a tie for round, both sides of 1.
VALUES = (-1.5, -0.4, 0.0, 0.3, 1.0, 2.0, 2.5)


def op(name, *args):
    return {"op": name, "args": list(args)}


def test_arity_view_and_validator_constant_are_the_table():
    assert ARITY == {n: (r.min_args, r.max_args) for n, r in OP_TABLE.items()}
    assert OPS is ARITY
    assert all(name == row.name for name, row in OP_TABLE.items())


# --------------------------------------------------------------------------
# What is listed: schema, prompt, docs
# --------------------------------------------------------------------------


def test_json_schema_enumerates_the_table():
    schema = predictor_schema_for(["x"], ["F"])
    assert schema["$defs"]["op"]["properties"]["op"]["enum"] == NAMES


def test_llm_structured_output_schema_enumerates_the_table():
    task = {"inputs": [{"name": "x"}], "outputs": [{"name": "F"}]}
    defs = action_schema(task)["$defs"]
    assert defs["op"]["properties"]["op"]["enum"] == NAMES


def test_player_prompt_lists_every_op_once_with_its_arity():
    groups = re.findall(r"(\d+ or more|exactly \d+) arguments: ([a-z0-9]+(?:, [a-z0-9]+)*)",
                        PLAYER_SYSTEM)
    listed = [(name, words) for words, names in groups for name in names.split(", ")]
    assert sorted(name for name, _ in listed) == NAMES  # each op exactly once
    assert dict(listed) == {name: arity_text(row) for name, row in OP_TABLE.items()}


def _doc_rows() -> list[list[str]]:
    """The rows of the table in the "## Ops" section of docs/predictors.md."""
    section = DOC.read_text(encoding="utf-8").split("\n## Ops\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_docs_op_table_is_the_table():
    rows = _doc_rows()
    assert [r[0] for r in rows] == [f"`{name}`" for name in OP_TABLE]
    for (name, arguments, meaning, invalid), row in zip(rows, OP_TABLE.values()):
        assert arguments == arity_text(row), name
        assert meaning == row.meaning, name
        reasons = [d.reason for d in row.domain] + (["overflow"] if row.overflows else [])
        assert invalid == ("; ".join(reasons) or "—"), name


# --------------------------------------------------------------------------
# What is meant: validator, evaluators, sympy, fold
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_validator_takes_exactly_the_arities(name):
    row = OP_TABLE[name]
    x = {"var": "x"}
    for n in (row.min_args, row.min_args + 1, 5):
        ok = row.max_args is None or n <= row.max_args
        if ok:
            validate_predictor({"F": op(name, *[x] * n)}, ["x"], ["F"])
        else:
            with pytest.raises(PredictorInvalid, match=f"^{name} takes"):
                validate_predictor({"F": op(name, *[x] * n)}, ["x"], ["F"])
    with pytest.raises(PredictorInvalid, match=f"^{name} takes"):
        validate_predictor({"F": op(name, *[x] * (row.min_args - 1))}, ["x"], ["F"])


def _argument_tuples(name: str):
    row = OP_TABLE[name]
    counts = [row.min_args] + ([3] if row.max_args is None else [])
    for n in counts:
        yield from itertools.product(VALUES, repeat=n)


def _sympy_value(name: str, args) -> complex | None:
    """sympy's value of the op on these numbers, None where it is not a
    finite number (zoo, nan, oo)."""
    # exact arguments (0.3 is 3/10), so that sympy answers zoo for 1/0
    # instead of raising as its floats do
    value = tree_to_sympy(op(name, *args), {}, exact=True).evalf(30)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not value.is_number:
        return None
    return complex(value)


# atan2(0, 0) is 0 by the language's convention (docs/predictors.md, "Real-
# valued meaning"), where sympy leaves it undefined.
_CONVENTIONS = {("atan2", (0.0, 0.0)): 0.0}


@pytest.mark.parametrize("name", NAMES)
def test_numpy_sympy_and_domain_rules_agree(name):
    row = OP_TABLE[name]
    for args in _argument_tuples(name):
        inputs = {f"a{i}": np.array([v]) for i, v in enumerate(args)}
        tree = op(name, *[{"var": k} for k in inputs])
        outside = [d.reason for d in row.domain if np.any(d.bad(*map(np.float64, args)))]
        want = _CONVENTIONS.get((name, args), _sympy_value(name, args))
        unchecked = float(evaluate_tree(tree, inputs)[0])
        if outside:
            # outside the domain: sympy has no real value, the checked
            # evaluator refuses the point with the rule's reason, the
            # unchecked one gives NaN or inf
            assert want is None or abs(want.imag) > 1e-12, (name, args, want)
            with pytest.raises(PredictorInvalid, match=f"^{re.escape(outside[0])} at F"):
                evaluate_predictor({"F": tree}, inputs)
            assert not np.isfinite(unchecked), (name, args)
            continue
        assert want is not None and want.imag == 0, (name, args, want)
        checked = evaluate_predictor({"F": tree}, inputs)["F"][0]
        assert checked == pytest.approx(want.real, rel=1e-12, abs=1e-15), (name, args)
        assert unchecked == checked or (np.isnan(unchecked) and np.isnan(checked))


@pytest.mark.parametrize("name", [n for n in NAMES if OP_TABLE[n].fold is not None])
def test_exact_fold_is_sympys_exact_value(name):
    exact = [Fraction(v).limit_denominator(10) for v in VALUES] + [Fraction(9, 4), Fraction(-3)]
    folded = 0
    for args in itertools.islice(itertools.product(exact, repeat=OP_TABLE[name].min_args), 200):
        value = fold_exact(name, list(args))
        tree = op(name, *[{"var": f"a{i}"} for i in range(len(args))])
        symbols = {f"a{i}": sympy.Symbol(f"a{i}") for i in range(len(args))}
        exact = {symbols[f"a{i}"]: sympy.Rational(a.numerator, a.denominator)
                 for i, a in enumerate(args)}
        want = tree_to_sympy(tree, symbols).subs(exact)
        if value is None:
            continue
        folded += 1
        assert want.is_Rational and Fraction(int(want.p), int(want.q)) == value, (name, args)
    assert folded > 0


def test_sympy_round_pickles_and_rounds_half_to_even():
    # round's sympy function is built on first use (no sympy import for the
    # table); an expression holding it must still cross process boundaries
    import pickle

    x = sympy.Symbol("x")
    expr = tree_to_sympy(op("round", {"var": "x"}), {"x": x})
    assert pickle.loads(pickle.dumps(expr)) == expr
    assert [expr.subs(x, sympy.Rational(k, 2)) for k in (1, 3, 5, -1, -3)] == [0, 2, 2, 0, -2]
