"""Issue #28, "Authoring without friction": laws with `where`, units a card
defines, exact values in `set`/`param`, the two checker bugs (E408, E410),
the exponent residue, and a test per newcomer mistake.

Numbers are compared with independent computations (numpy, pint), never
with the code under test.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pint
import pytest

import scigame
from scigame.compiler import check_source, parse_source
from scigame.compiler.format import format_text
from scigame.oracle import Rejection

REPO = Path(__file__).resolve().parent.parent
SNELL = REPO / "cards/historical/snell.sci"
GRAVITATION = (REPO / "cards/historical/gravitation.sci").read_text()
UREG = pint.UnitRegistry()


def _codes(text: str, path: str = "t.sci") -> list[str]:
    return [d.code for d in check_source(text, path).diagnostics if d.is_error]


def _errors(text: str, path: str = "t.sci"):
    return [d for d in check_source(text, path).diagnostics if d.is_error]


# ---- where: Snell's law on its full box ---------------------------------------------------

def _snell_angle(theta1_deg):
    """Glass (1.5) into air (1.0), in degrees; NaN past the critical angle (numpy)."""
    with np.errstate(invalid="ignore"):
        return np.degrees(np.arcsin(1.5 * np.sin(np.radians(theta1_deg))))


@pytest.fixture(scope="module")
def snell(tmp_path_factory):
    return scigame.load_card(SNELL, cache_dir=tmp_path_factory.mktemp("snell"))


def test_snell_card_covers_the_full_quarter_circle_and_lints_clean():
    result = check_source(SNELL.read_text(), str(SNELL))
    assert result.ok and not result.warnings, [d.message for d in result.diagnostics]
    theta1 = next(i for i in result.card.inputs if i.name == "theta1")
    assert (theta1.lo, theta1.hi) == (0.0, 90.0)
    assert "where" in SNELL.read_text()


def test_snell_without_where_is_still_E700():
    text = SNELL.read_text()
    undeclared = re.sub(r"\s+where n1[^\n]*", "", text)
    assert undeclared != text and "E700" in _codes(undeclared, str(SNELL))


def test_snell_refuses_past_the_critical_angle_in_the_original_only(snell):
    critical = math.degrees(math.asin(1 / 1.5))
    with pytest.raises(Rejection) as refused:
        snell.simulate("original", {"theta1": 60.0}, exact=True)
    assert "total internal reflection: no refracted ray" in refused.value.reasons[0]
    assert "theta1=60" in refused.value.reasons[0]
    # the tangent law of the counterfactual refracts there: atan(1.5 tan θ1)
    got = snell.simulate("counterfactual", {"theta1": 60.0}, exact=True)["theta2"][0]
    assert got == pytest.approx(math.degrees(math.atan(1.5 * math.tan(math.radians(60.0)))), rel=1e-12)
    below = critical - 1
    got = snell.simulate("original", {"theta1": below}, exact=True)["theta2"][0]
    assert got == pytest.approx(float(_snell_angle(below)), rel=1e-12)
    # a batch with one point past the angle is refused whole, that point named
    with pytest.raises(Rejection):
        snell.simulate("original", {"theta1": np.array([10.0, 50.0])})


def test_snell_hidden_points_lie_where_both_worlds_have_a_value(snell):
    critical = math.degrees(math.asin(1 / 1.5))
    theta = np.asarray(snell.evaluation.inputs["theta1"])
    assert len(theta) == 256 and theta.max() <= critical
    exact = np.asarray(snell.evaluation.outputs["original"]["theta2"])
    assert np.allclose(exact, _snell_angle(theta), rtol=1e-12)
    design = [p["theta1"] for p in snell.data.design.points]
    assert design and max(design) <= critical


COUNTERFACTUAL_WHERE = """card prism "A changed condition" {
  collection historical
  source     "a test card"
  background "Light leaves a block; the angle is read."
  input  theta1 [deg] in 0 .. 90  "angle of incidence"
  output theta2 [deg] tolerance abs 0.05 rel 1%  "angle of refraction"
  param n1 = 1.5
  law theta2 = asin(n1 * sin(theta1)) where n1 * sin(theta1) <= 1 "total internal reflection"
  counterfactual "a denser block" {
    set n1 = 1.8
  }
}
"""


def test_the_counterfactual_moves_the_condition_with_its_params(tmp_path):
    path = tmp_path / "prism.sci"
    path.write_text(COUNTERFACTUAL_WHERE)
    assert check_source(COUNTERFACTUAL_WHERE, str(path)).ok
    card = scigame.load_card(path, cache_dir=tmp_path / "cache")
    # 38 degrees: below the critical angle of 1.5 (41.8), past that of 1.8 (33.7)
    assert card.simulate("original", {"theta1": 38.0}, exact=True)["theta2"][0] == pytest.approx(
        math.degrees(math.asin(1.5 * math.sin(math.radians(38.0)))), rel=1e-12)
    with pytest.raises(Rejection, match="total internal reflection"):
        card.simulate("counterfactual", {"theta1": 38.0})
    theta = np.asarray(card.evaluation.inputs["theta1"])
    assert theta.max() <= math.degrees(math.asin(1 / 1.8))  # defined in both worlds


def test_a_replacing_law_brings_its_own_condition():
    text = COUNTERFACTUAL_WHERE.replace(
        "set n1 = 1.8",
        'law theta2 = acos(n1 * sin(theta1) - 0.5) where n1 * sin(theta1) <= 1.5 "no ray"')
    result = check_source(text, "prism.sci")
    assert result.ok, [d.message for d in result.diagnostics]
    cf = result.card.counterfactual.where["theta2"]
    assert cf.text == "n1 * sin(theta1) <= 1.5" and cf.message == "no ray"


def test_where_that_holds_nowhere_is_E704():
    text = COUNTERFACTUAL_WHERE.replace("<= 1 \"total", "<= -1 \"total")
    assert "E704" in _codes(text, "prism.sci")


# ---- units a card defines ----------------------------------------------------------------

KEPLER = """card kepler "Kepler's third law" {
  collection historical
  source     "J. Kepler, Harmonices Mundi (1619)"
  background "A planet circles a star; its period is timed."
  unit solar_mass = 1.98847e30 [kg] "nominal solar mass"
  input  a [au]         in 0.5 .. 5  "orbit radius"
  input  M [solar_mass] in 0.5 .. 2  "mass of the star"
  output T [yr] resolution 1e-9 tolerance abs 1e-6 rel 1%  "orbital period"
  param G = 6.674e-11 [m^3 kg^-1 s^-2]
  param n = 3/2
  law T = 2 * pi * a^n / sqrt(G * M)
  counterfactual "a steeper period" { set n = 2  rebalance G at a = 1 [au] }
}
"""


def test_kepler_with_a_solar_mass_unit_gives_one_year(tmp_path):
    path = tmp_path / "kepler.sci"
    path.write_text(KEPLER)
    result = check_source(KEPLER, str(path))
    assert result.ok and not result.warnings, [d.message for d in result.diagnostics]
    card = scigame.load_card(path, cache_dir=tmp_path / "cache")
    period = card.simulate("original", {"a": 1.0, "M": 1.0}, exact=True)["T"][0]
    # independently, with pint: T = 2π sqrt(a³ / (G M))
    G = UREG.Quantity(6.674e-11, "m^3 kg^-1 s^-2")
    expected = (2 * math.pi * ((UREG.Quantity(1, "au") ** 3 / (G * UREG.Quantity(1.98847e30, "kg"))) ** 0.5)).to("yr")
    assert period == pytest.approx(expected.magnitude, rel=1e-12)
    assert abs(period - 1.0) < 1e-4
    # at twice the solar mass, 1/sqrt(2) of it
    assert card.simulate("original", {"a": 1.0, "M": 2.0}, exact=True)["T"][0] == pytest.approx(
        expected.magnitude / math.sqrt(2), rel=1e-12)
    # the player sees the unit with its SI factor
    view = card.public_view("original", "discovery")
    m = next(i for i in view["inputs"] if i["name"] == "M")
    assert m["unit"] == "solar_mass" and m["si_factor"] == pytest.approx(1.98847e30, rel=1e-15)


def test_card_units_combine_with_pint_units_and_each_other():
    text = KEPLER.replace('  input  a [au]', '  unit stellar_pair = 2 [solar_mass]\n  input  a [au]').replace(
        "in 0.5 .. 2  \"mass of the star\"", "in 0.5 .. 2  \"mass of the star\"\n"
        "  constraint M / (a^3) < 1 [stellar_pair / au^3]")
    result = check_source(text, "kepler.sci")
    assert result.ok, [d.message for d in result.diagnostics]


def test_a_unit_without_definition_hints_at_unit_and_a_number_in_brackets_is_still_refused():
    text = KEPLER.replace('  unit solar_mass = 1.98847e30 [kg] "nominal solar mass"\n', "")
    e400 = [d for d in _errors(text, "kepler.sci") if d.code == "E400"]
    assert e400 and any("unit solar_mass = " in h for h in e400[0].hints)
    refused = KEPLER.replace("[solar_mass] in", "[1e30 kg] in")
    assert "E400" in _codes(refused, "kepler.sci")


# ---- exact values ------------------------------------------------------------------------

SET_RATIONAL = GRAVITATION.replace("set n = 3", "set n = 1/3")


def test_set_rational_repro_lints_clean_with_an_exact_unit():
    result = check_source(SET_RATIONAL, "gravitation.sci")
    assert result.ok, [d.message for d in result.diagnostics]
    g = result.card.counterfactual.params["G"]
    # F = G m1 m2 / r^(1/3) is a force: G is m^(4/3) kg^-1 s^-2, exactly
    assert dict(g.dim.items) == {"[length]": Fraction(4, 3), "[mass]": Fraction(-1), "[time]": Fraction(-2)}


def test_an_exact_exponent_keeps_a_large_denominator():
    text = GRAVITATION.replace("set n = 3", "set n = 1/1234")
    result = check_source(text, "gravitation.sci")
    assert result.ok, [d.message for d in result.diagnostics]
    g = result.card.counterfactual.params["G"]
    # F = G m1 m2 / r^(1/1234) is a force: G is m^(1 + 1/1234) kg^-1 s^-2, exactly
    assert dict(g.dim.items)["[length]"] == Fraction(1235, 1234)
    assert result.card.counterfactual.params["n"].exact == Fraction(1, 1234)


def test_the_law_tree_carries_the_rational_for_strict_scoring():
    from scigame.compiler.trees import law_tree
    card = check_source(SET_RATIONAL, "gravitation.sci").card
    tree = json.dumps(law_tree(card, card.counterfactual, "F"))
    assert '{"op": "div", "args": [1.0, 3.0]}' in tree


def test_the_float_exponent_residue_is_gone():
    text = """card res "exponents with e" {
  collection historical
  source "s"
  background "b"
  input  x [m] in 1 .. 2 "x"
  output F tolerance abs 1e-3 rel 1% "F"
  param k = 1
  param n = 1
  law F = k * x^(n * exp(1)) * x^(0.7 * exp(1)) / x^(1.7 * exp(1))
  counterfactual "c" { set n = 2  rebalance k }
}
"""
    result = check_source(text, "res.sci")
    assert result.ok, [d.message for d in result.diagnostics]
    note = next(d.message for d in result.diagnostics if d.code == "N001")
    assert "m^-2.71828" in note and "e-1" not in note


# ---- the checker bugs ------------------------------------------------------------------------

E408_REPRO = """card two_terms "Two power terms" {
  collection historical
  source     "a test card"
  background "Two inputs are set and a dimensionless reading is taken."
  input  x [m] in 1 .. 2  "a length"
  input  z [s] in 1 .. 2  "a duration"
  output y tolerance abs 1e-3 rel 1%  "the reading"
  param q = 1
  param a = 1 [1/m]
  param c = 1 [1/s]
  param n = 1
  law y = q * (a * x^n + c * z^n)
  counterfactual "c" { set n = 2  REBALANCES }
}
"""


def test_issue_28_E408_jointly_determined_rebalance_says_under_determined():
    text = E408_REPRO.replace("REBALANCES", "rebalance a  rebalance c  rebalance q at x = 1.5 [m], z = 1.5 [s]")
    errors = _errors(text, "two_terms.sci")
    assert [d.code for d in errors] == ["E408"]
    assert "under-determined" in errors[0].message and "does not affect" not in errors[0].message
    assert any("keep `a` as it is" in h for h in errors[0].hints)


@pytest.mark.parametrize("two", ["rebalance a  rebalance c", "rebalance a  rebalance q at x = 1.5 [m], z = 1.5 [s]",
                                 "rebalance c  rebalance q at x = 1.5 [m], z = 1.5 [s]"])
def test_issue_28_E408_any_two_of_the_three_are_accepted(two):
    result = check_source(E408_REPRO.replace("REBALANCES", two), "two_terms.sci")
    assert result.ok, [d.message for d in result.diagnostics]


def test_issue_28_E410_names_the_zero_counterfactual_and_suggests_a_point():
    text = (REPO / "tests/golden/bad/E410_reference_counterfactual_zero.sci").read_text()
    e410 = [d for d in _errors(text) if d.code == "E410"]
    assert "is 0 whatever the value of `k`" in e410[0].message
    assert "no law changes with it" not in e410[0].message
    suggestion = e410[0].hints[0]
    assert "I1 = 1.25 [A]" in suggestion
    # the suggested point does solve
    fixed = text.replace("rebalance k at I1 = 1.5 [A]", "rebalance k at I1 = 1.25 [A]").replace(
        "E410_reference_counterfactual_zero", "t")
    assert check_source(fixed, "t.sci").ok


# ---- a test per newcomer mistake -----------------------------------------------------------

def _syntax(text: str):
    errors = _errors(text, "gravitation.sci")
    assert [d.code for d in errors] == ["E100"], [d.message for d in errors]
    return errors[0]


def test_newcomer_double_star():
    d = _syntax(GRAVITATION.replace("r^n", "r**n"))
    assert "`**`" in d.message and "`^`" in d.message and "r^n" in d.hints[0]


def test_newcomer_unit_without_brackets():
    d = _syntax(GRAVITATION.replace("6.674e-11 [m^3 kg^-1 s^-2]", "6.674e-11 m^3 kg^-1 s^-2"))
    assert "square brackets" in d.message and "`6.674e-11 [m^3 kg^-1 s^-2]`" in d.message
    d = _syntax(GRAVITATION.replace("input  m1 [kg]", "input  m1 kg"))
    assert "square brackets" in d.message


def test_newcomer_unclosed_parenthesis_is_named_where_it_opened():
    text = GRAVITATION.replace("law F = G * m1 * m2 / r^n", "law F = G * m1 * m2 / (r^n")
    d = _syntax(text)
    law_line = text.split("\n").index("  law F = G * m1 * m2 / (r^n") + 1
    assert "`(` is never closed" in d.message and (d.span.line, d.span.column) == (law_line, 25)
    assert d.related and d.related[0].span.line > law_line


def test_newcomer_missing_brace_of_a_block_is_named():
    text = GRAVITATION.replace("    rebalance G at r = 5 [m]\n  }\n", "    rebalance G at r = 5 [m]\n\n")
    d = _syntax(text)
    assert "`{` of `counterfactual" in d.message and "is never closed" in d.message


def test_newcomer_equals_in_a_constraint():
    for op in ("=", "=="):
        d = _syntax(GRAVITATION.replace("  param n = 2 ", f"  constraint m1 {op} m2\n  param n = 2 "))
        assert "compares with `<`, `<=`, `>` or `>=`" in d.message and f"`{op}`" in d.message


def test_newcomer_missing_description_quote():
    d = _syntax(GRAVITATION.replace('"mass of the first body"', 'mass of the first body"'))
    assert "opening `\"` is missing" in d.message
    d = _syntax(GRAVITATION.replace('"mass of the first body"', '"mass of the first body'))
    assert "never closed" in d.message


def test_newcomer_keyword_as_a_name():
    errors = _errors(GRAVITATION.replace("param n = 2", "param in = 2").replace("r^n", "r^in"),
                     "gravitation.sci")
    assert errors[0].code == "E202" and "`in` is reserved" in errors[0].message


def test_newcomer_unit_mismatch_in_a_law_gets_help():
    text = GRAVITATION.replace("G * m1 * m2 / r^n", "G * m1 / m2 / r^n")
    d = next(d for d in _errors(text, "gravitation.sci") if d.code == "E403")
    assert any("`m2` inverted" in h for h in d.hints)
    assert any("give `G` the unit [m^3 kg s^-2]" in h for h in d.hints)
    # the suggested unit does balance: m^3 kg s^-2 * kg / kg / m^2 = kg m s^-2 (pint)
    q = UREG.Quantity(1, "m^3 kg s^-2") * UREG.Quantity(1, "kg") / UREG.Quantity(1, "kg") / UREG.Quantity(1, "m^2")
    assert q.dimensionality == UREG.Quantity(1, "N").dimensionality


# ---- fmt, JSON, highlighting, editors -------------------------------------------------------

def test_fmt_keeps_where_units_and_rationals_and_is_stable():
    for text in (SNELL.read_text(), KEPLER, COUNTERFACTUAL_WHERE):
        once = format_text(text).text
        assert once is not None and format_text(once).text == once
        a, _ = parse_source(text)
        b, _ = parse_source(once)
        assert [type(s) for s in a.statements] == [type(s) for s in b.statements]
    once = format_text(KEPLER).text
    assert 'unit solar_mass = 1.98847e30 [kg]  "nominal solar mass"' in once and "param n = 3/2" in once


def test_json_round_trip_of_where_units_and_rationals():
    from scigame.interchange import export_card, import_card
    for text in (SNELL.read_text(), KEPLER):
        card, _ = parse_source(text)
        doc = export_card(card)
        again, _ = parse_source(import_card(doc))
        assert export_card(again) == doc
    doc = export_card(parse_source(KEPLER)[0])
    assert doc["units"][0]["name"] == "solar_mass" and doc["params"][1]["value"] == "3/2"
    law = export_card(parse_source(SNELL.read_text())[0])["laws"][0]
    assert law["where"]["reason"] == "total internal reflection: no refracted ray"


def test_highlighter_knows_where_and_unit():
    from pygments.token import Keyword
    from scigame.highlight import SciLexer
    tokens = list(SciLexer().get_tokens(KEPLER + SNELL.read_text()))
    assert ("unit" in {v for t, v in tokens if t is Keyword}) and ("where" in {v for t, v in tokens if t is Keyword})


def test_vscode_extension_is_complete_and_its_grammar_current():
    from scigame.highlight import textmate_grammar
    folder = REPO / "editors/vscode"
    package = json.loads((folder / "package.json").read_text())
    grammar = package["contributes"]["grammars"][0]
    assert json.loads((folder / grammar["path"]).read_text()) == textmate_grammar(), \
        "regenerate: python -m scigame.highlight > editors/vscode/syntaxes/sci.tmLanguage.json"
    assert (folder / package["contributes"]["languages"][0]["configuration"]).exists()
    assert (folder / package["main"]).exists()
    if shutil.which("node"):
        assert subprocess.run(["node", "--check", str(folder / package["main"])], timeout=60).returncode == 0


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
@pytest.mark.parametrize(("text", "filetype"), [('# a card\ncard snell "x" {\n}\n', "scigame"),
                                                ("mode(0)\nx = 1\n", "scilab")])
def test_vim_opens_a_card_as_scigame_and_scilab_as_scilab(tmp_path, text, filetype):
    path, out = tmp_path / "f.sci", tmp_path / "ft.txt"
    path.write_text(text)
    subprocess.run(["vim", "-u", "NONE", "-N", "-es", "--cmd", f"set rtp^={REPO / 'editors/vim'}",
                    "-c", "filetype on", "-c", f"e {path}", "-c", f"call writefile([&filetype], '{out}')",
                    "-c", "qa!"], timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert out.read_text().strip() == filetype


def test_the_strict_matcher_reads_the_exact_rational():
    import sympy
    from scigame.compiler.trees import law_tree
    from scigame.symbolic import tree_to_sympy
    text = GRAVITATION.replace("set n = 3", "set n = 1/1234567")
    card = check_source(text, "gravitation.sci").card
    assert card is not None
    symbols = {s.name: sympy.Symbol(s.name, positive=True) for s in card.inputs}
    law = tree_to_sympy(law_tree(card, card.counterfactual, "F"), symbols, exact=True)
    exponents = {p.exp for p in law.atoms(sympy.Pow) if p.base == symbols["r"]}
    assert sympy.Rational(-1, 1234567) in exponents, exponents


def test_the_middle_of_a_log_domain_is_geometric():
    text = GRAVITATION.replace("input  m1 [kg] in 1 .. 1000", "input  m1 [kg] in log 1 .. 1000")
    card = check_source(text, "gravitation.sci").card
    m1 = next(i for i in card.inputs if i.name == "m1")
    assert m1.kind == "log" and m1.middle == pytest.approx(math.sqrt(1 * 1000), rel=1e-15)
    m2 = next(i for i in card.inputs if i.name == "m2")
    assert m2.middle == pytest.approx((1 + 1000) / 2, rel=1e-15)


def test_hover_on_a_card_unit_of_a_card_that_checks():
    from scigame.lsp import hover_text
    index = KEPLER.index("[solar_mass]") + 3
    line, char = KEPLER.count("\n", 0, index), index - (KEPLER.rfind("\n", 0, index) + 1)
    assert check_source(KEPLER, "kepler.sci").ok
    assert hover_text(KEPLER, line, char, "kepler.sci") == "unit `solar_mass` = 1.98847e+30 kg: [mass]"
