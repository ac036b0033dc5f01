"""The card-function table (compiler/functions.py) against what describes it
independently: the language reference (docs/language.md), sympy, and the
simulator runtime; and the keywords against the grammar."""

from __future__ import annotations

import builtins
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

import scigame.simrt as simrt
from scigame.compiler import check_source
from scigame.compiler.build import compile_path
from scigame.compiler.artifact import RUNTIME_MODULE
from scigame.compiler.functions import FUNCTIONS, RUNTIME_NAMES
from scigame.compiler.source import declared_card_name
from scigame.compiler.syntax import keywords, statement_keywords
from scigame.card import CompiledCard

REPO = Path(__file__).resolve().parent.parent

#: The dimension rules as docs/language.md words them -> (arguments, power of the first).
DOC_RULES = {
    "dimensionless in, dimensionless out": ("dimensionless", None),
    "dimensionless in and out": ("dimensionless", None),
    "keeps the dimension": ("any", Fraction(1)),
    "any in, dimensionless out": ("any", None),
    "both the same dimension; dimensionless out": ("same", None),
    "all the same dimension; keeps it": ("same", Fraction(1)),
}


def documented_functions() -> dict[str, tuple[int, int | None, str, Fraction | None]]:
    """name -> (min args, max args, argument rule, power), read from the
    table under `### Functions` in docs/language.md."""
    text = (REPO / "docs" / "language.md").read_text(encoding="utf-8")
    table = text.split("### Functions", 1)[1].split("\n\n", 2)[1]
    out = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        names = re.findall(r"[a-z][a-z0-9]*", re.sub(r"\(.*?\)", "", cells[0]))
        count = int(cells[1].split()[0])
        most = None if "or more" in cells[1] else count
        if cells[2] == "halves / thirds the dimension":
            rules = {"sqrt": ("any", Fraction(1, 2)), "cbrt": ("any", Fraction(1, 3))}
        else:
            rules = {n: DOC_RULES[cells[2]] for n in names}
        for n in names:
            out[n] = (count, most) + rules[n]
    return out


def test_the_table_is_the_documented_one():
    documented = documented_functions()
    table = {f.name: (f.min_args, f.max_args, f.args, f.power) for f in FUNCTIONS.values()}
    assert table == documented


def _argument_text(fn) -> str:
    if fn.name in ("step", "sign"):
        return "x - 0.55"
    return ", ".join(["x", "0.5", "0.3"][:fn.min_args + (1 if fn.max_args is None else 0)])


def _all_functions_card() -> str:
    outputs = "\n".join(f"  output y_{f.name} tolerance abs 1e-6 rel 1%" for f in FUNCTIONS.values())
    laws = "\n".join(f"  law y_{f.name} = {'k * ' if f.name == 'sin' else ''}{f.name}({_argument_text(f)})"
                     for f in FUNCTIONS.values())
    return f'''card every_function "every function" {{
  collection historical
  source "A. Author, Journal 1, 1 (1900)"
  background "a number goes in, each function's value comes out"
  input x in 0.2 .. 0.9
{outputs}
  param k = 1
{laws}
  counterfactual "stronger" {{ scale k by 2 }}
}}
'''


def _sympy_values(points: np.ndarray) -> dict[str, np.ndarray]:
    x = sympy.Symbol("x", real=True)
    out = {}
    for f in FUNCTIONS.values():
        args = [sympy.sympify(a.strip(), locals={"x": x}) for a in _argument_text(f).split(",")]
        expr = f.sympy_function()(*args)
        out[f"y_{f.name}"] = np.array([float(expr.subs(x, sympy.Float(v, 30)).evalf(30)) for v in points])
    return out


@pytest.fixture(scope="module")
def every_function(tmp_path_factory):
    folder = tmp_path_factory.mktemp("every")
    card = folder / "every_function.sci"
    card.write_text(_all_functions_card())
    result = compile_path(card, folder / "out")
    assert result.status == "built", [d.message for d in result.diagnostics if d.is_error]
    return card, CompiledCard(result.folder)


POINTS = np.array([0.2, 0.31, 0.5, 0.55, 0.6, 0.77, 0.9])


def test_kernels_and_the_reference_evaluator_agree_with_sympy(every_function):
    path, compiled = every_function
    expected = _sympy_values(POINTS)
    kernel = compiled.run_kernel("original", {"x": POINTS})
    checked = check_source(path.read_text(), str(path)).card
    reference = checked.original.evaluate(checked, {"x": POINTS})
    for name, want in expected.items():
        np.testing.assert_allclose(kernel[name], want, rtol=1e-12, atol=1e-15, err_msg=f"kernel {name}")
        np.testing.assert_allclose(reference[name], want, rtol=1e-12, atol=1e-15, err_msg=f"numpy {name}")


def test_generated_simulators_import_exactly_the_runtime_names(every_function):
    _, compiled = every_function
    source = (compiled.folder / "simulator.py").read_text()
    imports = re.findall(r"^from (\S+) import (.+)$", source, re.M)
    assert imports == [(RUNTIME_MODULE, ", ".join(RUNTIME_NAMES))]
    called = set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)(?:\.[a-z0-9_]+)?\(", source)) - {"range", "prange"}
    called -= {"njit", "env_original", "env_counterfactual", "env_original_parallel",
               "env_counterfactual_parallel", "env_original_array", "env_counterfactual_array"}
    assert called <= set(RUNTIME_NAMES) | set(dir(builtins))


def test_the_runtime_defines_every_name_it_exports():
    assert tuple(simrt.exported) == RUNTIME_NAMES
    for name in RUNTIME_NAMES:
        assert hasattr(simrt, name), name
    for f in FUNCTIONS.values():  # every call the emitter writes resolves in a simulator's namespace
        head, _, attr = f.numba.partition(".")
        target = getattr(simrt, head, None) or getattr(builtins, head)
        assert not attr or callable(getattr(target, attr)), f.numba


def test_lint_lists_the_table_in_its_unknown_function_hint():
    result = check_source(_all_functions_card().replace("law y_abs = abs(", "law y_abs = absolute("), "c.sci")
    hint = next(d for d in result.diagnostics if d.code == "E203").hints[-1]
    assert hint == "functions: " + ", ".join(sorted(FUNCTIONS))


def test_keywords_are_the_grammars_words():
    grammar = (REPO / "grammar" / "sci.lark").read_text(encoding="utf-8")
    quoted = {w for w in re.findall(r'"([A-Za-z_]+)"', grammar)}
    assert keywords() == quoted
    # the words that start a statement of the card or of its counterfactual block
    assert statement_keywords() == {
        "collection", "field", "source", "doi", "published", "preprint", "background", "conditions",
        "input", "output", "constraint", "param", "let", "law", "counterfactual", "fixed",
        "evaluation", "identification", "adaptive", "set", "scale", "rebalance", "magnitude", "unit",
        "argument", "system"}


@pytest.mark.parametrize("word", sorted(keywords()))
def test_a_keyword_cannot_name_a_quantity(word):
    text = _all_functions_card().replace("param k = 1", f"param k = 1\n  param {word} = 2")
    reserved = [d for d in check_source(text, "c.sci").diagnostics if d.code == "E202"]
    assert reserved and "a keyword of the language" in reserved[0].message


@pytest.mark.parametrize(("text", "name"), [
    ('card gravity "G" {', "gravity"),
    ('# the card below\n  card  g_2 "x" {', "g_2"),
    ('# card not_this one\ncard this_one "x" {', "this_one"),
    ("no card here", None),
    ("card 9lives", None),
])
def test_declared_card_name(text, name):
    assert declared_card_name(text) == name


def test_every_card_function_is_a_predictor_op():
    """A law's tree writes a card function call as the predictor op of the same
    name (compiler/trees.py), so each must exist there with a matching arity."""
    from scigame.compiler.functions import FUNCTIONS
    from scigame.compiler.predictor_ops import OP_TABLE

    missing = sorted(set(FUNCTIONS) - set(OP_TABLE))
    assert not missing, f"card functions with no predictor op: {missing}"
    for name, f in FUNCTIONS.items():
        op = OP_TABLE[name]
        assert (f.min_args, f.max_args) == (op.min_args, op.max_args), name


#: Points on both sides of zero and at it (where step, sign, abs and cbrt differ
#: most easily), with a second argument for the binary functions.
_GRID = [-2.5, -1.0, -0.3, 0.0, 0.3, 0.7, 1.0, 2.5]
#: Where sympy leaves a value undefined that both evaluators define, as C and numpy do.
_CONVENTIONS = {("atan2", (0.0, 0.0))}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_card_function_means_what_its_predictor_op_means(name):
    """The card function's numpy meaning (the reference evaluator's), its
    predictor op's numpy meaning (the predictor evaluator's) and its sympy
    meaning (the strict check's, evaluated by sympy at 30 digits) agree on
    every grid point where the function is defined."""
    from scigame.compiler.predictor_ops import OP_TABLE

    f, op = FUNCTIONS[name], OP_TABLE[name]
    arity = f.min_args
    x, y = sympy.symbols("x y", real=True)
    expr = f.sympy_function()(*(x, y)[:arity])
    checked = 0
    for a in _GRID:
        for b in (_GRID if arity == 2 else [None]):
            args = [a] if b is None else [a, b]
            with np.errstate(all="ignore"):
                card_value = float(f.numpy(*[np.float64(v) for v in args]))
                op_value = float(op.numpy(*[np.float64(v) for v in args]))
            if not np.isfinite(card_value):
                assert not np.isfinite(op_value), (name, args)
                continue
            exact = complex(expr.subs({x: sympy.Float(a, 30), **({y: sympy.Float(b, 30)} if b is not None else {})})
                            .evalf(30))
            assert op_value == pytest.approx(card_value, rel=1e-15, abs=1e-300), (name, args)
            if (name, tuple(args)) in _CONVENTIONS:
                continue
            assert exact.imag == pytest.approx(0.0, abs=1e-12), (name, args)  # the real function, not a branch
            assert exact.real == pytest.approx(card_value, rel=1e-12, abs=1e-12), (name, args)
            checked += 1
    assert checked >= 4, name
