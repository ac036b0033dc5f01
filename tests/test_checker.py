"""Focused unit tests of the checker's behaviours (LANGUAGE.md: "Dimensional
rules", "Numeric meaning", "The counterfactual block").

Expected numbers are derived by hand or with pint, never by the code under test.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pint
import pytest

from scigame.compiler import check_source
from scigame.compiler.units import DIMENSIONLESS, Dim

UREG = pint.UnitRegistry()
CARDS = Path(__file__).resolve().parent.parent / "cards" / "historical"


def _plain_rebalance(text: str) -> str:
    """A bundled card with its `rebalance P at ...` made a plain `rebalance P`:
    these tests exercise the plain form (tests/test_sound_worlds.py the other)."""
    return re.sub(r"(rebalance \w+) at [^\n]*", r"\1", text)


GRAVITATION = _plain_rebalance((CARDS / "gravitation.sci").read_text(encoding="utf-8"))
STEFAN = _plain_rebalance((CARDS / "stefan_boltzmann.sci").read_text(encoding="utf-8"))

L, M, T = "[length]", "[mass]", "[time]"

TEMPLATE = """card t "test card" {
  collection historical
  source "test"
  background "a test"
%s
}
"""


def card_text(body: str) -> str:
    return TEMPLATE % body


def check(body: str):
    return check_source(card_text(body), "t.sci")


def codes(result) -> list[str]:
    return [d.code for d in result.errors]


def ok(body: str):
    result = check(body)
    assert result.ok, [(d.code, d.message) for d in result.errors]
    assert result.card is not None
    return result.card


def line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return i
    raise AssertionError(needle)


# a body with one dimensionless input x and output y, and a param k for the counterfactual
def simple(law: str, extra: str = "", inputs: str = "  input x in 1 .. 3\n", output: str = "",
           cf: str = 'counterfactual "c" { scale k by 1.5 }') -> str:
    out = output or "  output y tolerance abs 1e-6 rel 1%\n"
    return f"{inputs}{out}  param k = 1\n{extra}  law y = k * ({law})\n  {cf}"


def evaluate(card, env="original", **inputs):
    out = card.environment(env).evaluate(card, inputs)
    return {k: float(v) for k, v in out.items()}


# ---- rebalance ---------------------------------------------------------------------


def test_gravitation_rebalance_new_unit_and_same_si_value():
    result = check_source(GRAVITATION, "gravitation.sci")
    assert result.ok
    card = result.card
    g0, g1 = card.original.params["G"], card.counterfactual.params["G"]
    assert g0.dim == Dim.of({L: 3, M: -1, T: -2})
    assert g1.dim == Dim.of({L: 4, M: -1, T: -2})
    assert g1.value == g0.value == pytest.approx(6.674e-11, rel=1e-15)
    assert g1.unit_text.split() == ["m^4", "kg^-1", "s^-2"]
    assert card.counterfactual.params["n"].value == 3.0
    assert card.original.params["n"].value == 2.0
    # the N001 note names the new unit
    notes = [d for d in result.diagnostics if d.code == "N001"]
    assert notes and "m^4 kg^-1 s^-2" in notes[0].message
    # counterfactual F = G m1 m2 / r^3, by pint
    q = UREG.Quantity
    for m1, m2, r in [(2.0, 3.0, 2.0), (1000.0, 1.0, 0.5), (17.0, 400.0, 13.0)]:
        want = (q(6.674e-11, "m^4 kg^-1 s^-2") * q(m1, "kg") * q(m2, "kg") / q(r, "m") ** 3).to("N").magnitude
        assert evaluate(card, "counterfactual", m1=m1, m2=m2, r=r)["F"] == pytest.approx(want, rel=1e-12)
        want0 = (q(6.674e-11, "m^3 kg^-1 s^-2") * q(m1, "kg") * q(m2, "kg") / q(r, "m") ** 2).to("N").magnitude
        assert evaluate(card, "original", m1=m1, m2=m2, r=r)["F"] == pytest.approx(want0, rel=1e-12)


def test_stefan_boltzmann_rebalance():
    result = check_source(STEFAN, "stefan_boltzmann.sci")
    assert result.ok
    s0, s1 = result.card.original.params["sigma"], result.card.counterfactual.params["sigma"]
    assert s1.dim == Dim.of({M: 1, T: -3, "[temperature]": -5})
    assert s1.value == s0.value == pytest.approx(5.670e-8, rel=1e-15)


def test_rebalance_keeps_si_magnitude_of_a_scaled_unit():
    # G given in cm^3 g^-1 s^-2: SI value 6.674e-8 * 1e-6 / 1e-3 = 6.674e-11
    text = GRAVITATION.replace("param G = 6.674e-11 [m^3 kg^-1 s^-2]", "param G = 6.674e-8 [cm^3 g^-1 s^-2]")
    result = check_source(text, "gravitation.sci")
    assert result.ok, [(d.code, d.message) for d in result.errors]
    g0, g1 = result.card.original.params["G"], result.card.counterfactual.params["G"]
    assert g0.value == pytest.approx(6.674e-11, rel=1e-12)
    assert g1.value == pytest.approx(6.674e-11, rel=1e-12)
    assert g1.dim == Dim.of({L: 4, M: -1, T: -2})


def test_rebalance_with_non_si_input_and_output_units():
    body = """  input r [cm] in 1 .. 10
  output F [mN] tolerance abs 1e-9 rel 1%
  param n = 1
  param c = 2 [N*m]
  law F = c / r^n
  counterfactual "c" {
    set n = 2
    rebalance c
  }"""
    card = ok(body)
    c1 = card.counterfactual.params["c"]
    assert c1.dim == Dim.of({M: 1, L: 3, T: -2})
    assert c1.value == pytest.approx(2.0)
    # F = 2 [N m^2] / (5 cm)^2 = 2 / 0.0025 N = 800 N = 8e5 mN
    assert evaluate(card, "counterfactual", r=5.0)["F"] == pytest.approx(8e5, rel=1e-12)
    # original: 2 N m / 0.05 m = 40 N = 4e4 mN
    assert evaluate(card, "original", r=5.0)["F"] == pytest.approx(4e4, rel=1e-12)


def test_missing_rebalance_is_e403_at_the_set_line_with_hint():
    text = GRAVITATION.replace("    rebalance G\n", "")
    assert text != GRAVITATION
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    e403 = [d for d in result.errors if d.code == "E403"]
    assert len(e403) == 1, [(d.code, d.message) for d in result.errors]
    d = e403[0]
    assert d.span.line == line_of(text, "set n = 3")
    assert text.split("\n")[d.span.line - 1][d.span.column - 1:].startswith("set n = 3")
    assert any("rebalance G" in h for h in d.hints)
    # the law is the related place
    assert any(r.span.line == line_of(text, "law F =") for r in d.related)


def test_rebalance_without_effect_is_e408():
    body = simple("x", extra="  param u = 1 [m]\n",
                  cf='counterfactual "c" {\n    scale k by 2\n    rebalance u\n  }')
    assert "E408" in codes(check(body))


def test_rebalance_with_conflicting_laws_is_e408():
    body = """  input x [m] in 1 .. 2
  output y [m] tolerance abs 1e-6 rel 1%
  output z [s] tolerance abs 1e-6 rel 1%
  param k = 1
  param n = 1
  law y = k * x^n
  law z = k * 1 [s]
  counterfactual "c" {
    set n = 2
    rebalance k
  }"""
    assert "E408" in codes(check(body))


def test_set_with_new_unit_balances_without_rebalance():
    text = GRAVITATION.replace("    rebalance G\n", "    set G = 1e-10 [m^4 kg^-1 s^-2]\n")
    result = check_source(text, "gravitation.sci")
    assert result.ok, [(d.code, d.message) for d in result.errors]
    g1 = result.card.counterfactual.params["G"]
    assert g1.value == pytest.approx(1e-10)
    # F = 1e-10 * 2 * 3 / 2^3 N
    assert evaluate(result.card, "counterfactual", m1=2.0, m2=3.0, r=2.0)["F"] == pytest.approx(7.5e-11)


def test_set_converts_the_value_to_si():
    # 1e-7 cm^3 g^-1 s^-2 = 1e-7 * 1e-6 / 1e-3 = 1e-10 m^3 kg^-1 s^-2
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    set G = 1e-7 [cm^3 g^-1 s^-2]\n")
    result = check_source(text, "gravitation.sci")
    assert result.ok, [(d.code, d.message) for d in result.errors]
    assert result.card.counterfactual.params["G"].value == pytest.approx(1e-10, rel=1e-12)


# ---- operators and exponents ----------------------------------------------------------


def test_non_constant_exponent_on_dimensional_base_is_e405():
    body = """  input x [m] in 1 .. 2
  input n in 1 .. 2
  output y [m] tolerance abs 1e-3 rel 1%
  param k = 1
  law y = k * x^n
  counterfactual "c" { scale k by 2 }"""
    result = check(body)
    assert result.card is None
    assert "E405" in codes(result)
    d = next(d for d in result.errors if d.code == "E405")
    assert d.span.line == line_of(card_text(body), "law y")


def test_exponent_from_a_let_of_inputs_is_e405():
    body = """  input x [m] in 1 .. 2
  input n in 1 .. 2
  output y [m] tolerance abs 1e-3 rel 1%
  param k = 1
  let e = n / n
  law y = k * x^e
  counterfactual "c" { scale k by 2 }"""
    assert "E405" in codes(check(body))


def test_exponent_from_a_constant_let_is_fine():
    body = """  input x [m] in 1 .. 2
  output y [m^3] tolerance abs 1e-3 rel 1%
  param k = 1
  param p = 1.5
  let e = 2 * p
  law y = k * x^e
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert evaluate(card, x=2.0)["y"] == pytest.approx(8.0)


def test_non_constant_exponent_on_dimensionless_base_is_fine():
    card = ok(simple("x^x"))
    assert evaluate(card, x=3.0)["y"] == pytest.approx(27.0)


def test_dimensional_exponent_is_e406():
    body = """  input x in 1 .. 2
  input z [m] in 1 .. 2
  output y tolerance abs 1e-3 rel 1%
  param k = 1
  law y = k * x^z
  counterfactual "c" { scale k by 2 }"""
    assert "E406" in codes(check(body))


@pytest.mark.parametrize("exponent", ["(0/0)", "(1e308*10)", "log(-1)"])
def test_non_finite_constant_exponent_on_dimensional_base_is_e409(exponent):
    body = f"""  input x [m] in 1 .. 2
  output y [m] tolerance abs 1e-3 rel 1%
  param k = 1
  law y = k * x^{exponent}
  counterfactual "c" {{ scale k by 2 }}"""
    assert "E409" in codes(check(body))


def test_fractional_exponent_gives_exact_fractional_dimension():
    body = """  input x [m^3] in 1 .. 8
  output y [m^2] tolerance abs 1e-3 rel 1%
  param k = 1
  param p = 2
  law y = k * x^(p/3)
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert card.original.laws["y"].dim == Dim.of({L: 2})
    assert evaluate(card, x=8.0)["y"] == pytest.approx(4.0)


def test_cube_root_then_cube_is_exactly_the_dimension():
    body = """  input x [m^3] in 1 .. 8
  output y [m^3] tolerance abs 1e-3 rel 1%
  param k = 1
  law y = k * (x^(1/3))^3
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert card.original.laws["y"].dim == Dim.of({L: 3})
    assert evaluate(card, x=8.0)["y"] == pytest.approx(8.0)


def test_unary_minus_binds_looser_than_power():
    card = ok(simple("-x^2"))
    assert evaluate(card, x=3.0)["y"] == pytest.approx(-9.0)
    card = ok(simple("(-x)^2"))
    assert evaluate(card, x=3.0)["y"] == pytest.approx(9.0)


def test_power_is_right_associative():
    card = ok(simple("x * 2^3^2"))
    assert evaluate(card, x=1.0)["y"] == pytest.approx(512.0)
    card = ok(simple("x * (2^3)^2"))
    assert evaluate(card, x=1.0)["y"] == pytest.approx(64.0)


def test_negative_exponent_without_parentheses():
    card = ok(simple("x^-2"))
    assert evaluate(card, x=2.0)["y"] == pytest.approx(0.25)
    card = ok(simple("2^-x^2"))  # 2^(-(x^2))
    assert evaluate(card, x=2.0)["y"] == pytest.approx(2.0 ** -4)


def test_precedence_of_mul_div_add_sub():
    card = ok(simple("x - 2 * x / 4 + 1 - 1 / 2 / 2"))
    x = 3.0
    assert evaluate(card, x=x)["y"] == pytest.approx(x - 2 * x / 4 + 1 - 1 / 2 / 2)
    card = ok(simple("x - (x - 1) - 1 + x*x"))
    assert evaluate(card, x=x)["y"] == pytest.approx(x * x)


def test_double_negation_and_chains_of_minus():
    card = ok(simple("- - -x"))
    assert evaluate(card, x=2.0)["y"] == pytest.approx(-2.0)
    card = ok(simple("x - -x"))
    assert evaluate(card, x=2.0)["y"] == pytest.approx(4.0)


def test_pi_and_functions():
    card = ok(simple("pi * x + cbrt(27) + atan2(1, 1) + max(x, 2, 5) + min(x, 0)"))
    x = 1.5
    want = math.pi * x + 3 + math.pi / 4 + 5 + 0
    assert evaluate(card, x=x)["y"] == pytest.approx(want)


def test_step_and_sign_are_dimensionless():
    body = """  input x [m] in -1 .. 1
  output y tolerance abs 1e-3 rel 1%
  param k = 1
  law y = k * (step(x) + sign(x))
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert evaluate(card, x=0.5)["y"] == pytest.approx(2.0)
    assert evaluate(card, x=-0.5)["y"] == pytest.approx(-1.0)


# ---- lets ----------------------------------------------------------------------------


def test_lets_in_any_order():
    body = """  input x [m] in 1 .. 3
  output y [m^2] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * c
  let c = b * a
  let b = a + x
  let a = 2 * x
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    x = 1.5
    a = 2 * x
    b = a + x
    assert evaluate(card, x=x)["y"] == pytest.approx(b * a)


def test_let_cycle_is_e205():
    body = """  input x in 1 .. 3
  output y tolerance abs 1e-6 rel 1%
  param k = 1
  let a = b + x
  let b = c * 2
  let c = a - 1
  law y = k * a
  counterfactual "c" { scale k by 2 }"""
    result = check(body)
    assert result.card is None
    assert "E205" in codes(result)


def test_self_referencing_let_is_e205():
    body = """  input x in 1 .. 3
  output y tolerance abs 1e-6 rel 1%
  param k = 1
  let a = a + x
  law y = k * a
  counterfactual "c" { scale k by 2 }"""
    assert "E205" in codes(check(body))


def test_counterfactual_let_replaces_and_derived_lets_follow():
    body = """  input x in 1 .. 3
  output y tolerance abs 1e-6 rel 1%
  param k = 2
  let a = k * x
  let b = a + 1
  law y = b
  counterfactual "c" {
    let a = k * x * x
  }"""
    card = ok(body)
    assert evaluate(card, "original", x=3.0)["y"] == pytest.approx(7.0)
    assert evaluate(card, "counterfactual", x=3.0)["y"] == pytest.approx(19.0)


def test_lets_recomputed_after_scale():
    body = """  input x in 1 .. 3
  output y tolerance abs 1e-6 rel 1%
  param k = 2
  let a = k * k
  law y = a * x
  counterfactual "c" { scale k by 3 }"""
    card = ok(body)
    assert evaluate(card, "original", x=1.0)["y"] == pytest.approx(4.0)
    assert evaluate(card, "counterfactual", x=1.0)["y"] == pytest.approx(36.0)


# ---- numeric meaning -------------------------------------------------------------------


def test_degree_input_is_converted_to_radians_before_sin():
    body = """  input a [deg] in 0 .. 180
  output y tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * sin(a)
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert evaluate(card, a=90.0)["y"] == pytest.approx(1.0, rel=1e-15)
    assert evaluate(card, a=30.0)["y"] == pytest.approx(0.5, rel=1e-12)
    assert evaluate(card, a=180.0)["y"] == pytest.approx(0.0, abs=1e-15)


def test_degree_literal_and_param():
    body = """  input x in 0 .. 1
  output y tolerance abs 1e-6 rel 1%
  param k = 90 [deg]
  law y = x * sin(k) + cos(60 [deg])
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    assert evaluate(card, x=1.0)["y"] == pytest.approx(1.5, rel=1e-12)
    assert evaluate(card, "counterfactual", x=1.0)["y"] == pytest.approx(0.5, abs=1e-12)


def test_degree_output_is_reported_in_degrees():
    body = """  input x in 0 .. 1
  output y [deg] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * asin(x)
  counterfactual "c" { scale k by 0.5 }"""
    card = ok(body)
    assert evaluate(card, x=1.0)["y"] == pytest.approx(90.0, rel=1e-12)
    assert evaluate(card, x=0.5)["y"] == pytest.approx(30.0, rel=1e-12)


def test_cm_plus_m_adds_in_si():
    body = """  input a [cm] in 1 .. 100
  input b [m] in 1 .. 2
  output y [mm] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * (a + b)
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    # 50 cm + 2 m = 2.5 m = 2500 mm
    assert evaluate(card, a=50.0, b=2.0)["y"] == pytest.approx(2500.0, rel=1e-12)


def test_mixed_units_product_and_literal_units():
    body = """  input m [g] in 1 .. 100
  input v [km/h] in 1 .. 100
  output E [mJ] tolerance abs 1e-6 rel 1%
  param k = 0.5
  law E = k * m * v^2 + 1 [J]
  counterfactual "c" { scale k by 2 }"""
    card = ok(body)
    q = UREG.Quantity
    want = (0.5 * q(20, "g") * q(36, "km/h") ** 2 + q(1, "J")).to("mJ").magnitude
    assert evaluate(card, m=20.0, v=36.0)["E"] == pytest.approx(want, rel=1e-12)


def test_percent_in_rel_is_hundredths():
    card = ok(simple("x", output="  output y tolerance abs 1e-6 rel 1%\n"))
    assert card.outputs[0].tol_rel == pytest.approx(0.01)
    card = ok(simple("x", output="  output y tolerance abs 1e-6 rel 0.5%\n"))
    assert card.outputs[0].tol_rel == pytest.approx(0.005)
    card = ok(simple("x", output="  output y tolerance abs 1e-6 rel 0.02\n"))
    assert card.outputs[0].tol_rel == pytest.approx(0.02)


def test_percent_outside_rel_is_a_syntax_error():
    result = check(simple("x", extra="  param p = 5%\n"))
    assert result.card is None and "E100" in codes(result)


# ---- dimensional errors ---------------------------------------------------------------


def test_mismatched_addition_is_e402():
    body = """  input a [m] in 1 .. 2
  input b [s] in 1 .. 2
  output y [m] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * (a + b)
  counterfactual "c" { scale k by 2 }"""
    assert "E402" in codes(check(body))


def test_min_and_atan2_need_equal_dimensions():
    base = """  input a [m] in 1 .. 2
  input b [s] in 1 .. 2
  output y %s tolerance abs 1e-6 rel 1%%
  param k = 1
  law y = k * %s
  counterfactual "c" { scale k by 2 }"""
    assert "E402" in codes(check(base % ("[m]", "min(a, b)")))
    assert "E402" in codes(check(base % ("", "atan2(a, b)")))
    # min with a scaled but equal dimension is fine: min(50 cm, 1 m) = 0.5 m
    card = ok(base.replace("input b [s]", "input b [cm]") % ("[m]", "min(a, b) + 0 * b"))
    assert evaluate(card, a=1.0, b=50.0)["y"] == pytest.approx(0.5)


def test_dimensional_argument_to_exp_is_e404():
    body = """  input a [m] in 1 .. 2
  output y tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * exp(a)
  counterfactual "c" { scale k by 2 }"""
    assert "E404" in codes(check(body))


def test_law_with_wrong_dimension_is_e403():
    body = """  input a [m] in 1 .. 2
  output y [s] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * a
  counterfactual "c" { scale k by 2 }"""
    assert "E403" in codes(check(body))


def test_constraint_sides_need_equal_dimensions():
    body = simple("x", extra='  constraint x < 2 [m] "too big"\n')
    assert "E402" in codes(check(body))
    card = ok(simple("x", extra='  constraint x * 1 [m] < 200 [cm] "too big"\n'))
    assert len(card.constraints) == 1


def test_offset_unit_is_e401():
    body = """  input a [degC] in 1 .. 2
  output y [K] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * a
  counterfactual "c" { scale k by 2 }"""
    result = check(body)
    assert "E401" in codes(result)
    assert any("K" in h for d in result.errors if d.code == "E401" for h in d.hints)


def test_unknown_unit_is_e400():
    body = simple("x", inputs="  input x [furlongz] in 1 .. 3\n")
    assert "E400" in codes(check(body))


# ---- counterfactual mutations ---------------------------------------------------------


def test_set_without_unit_on_dimensional_param_is_e407():
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    set G = 7e-11\n")
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    assert "E407" in codes(result)
    d = next(d for d in result.errors if d.code == "E407")
    assert d.span.line == line_of(text, "set G = 7e-11")


def test_scale_by_one_is_noop_e603():
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    scale G by 1\n")
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    assert "E603" in codes(result)


def test_set_to_the_same_value_is_noop_e603():
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    set n = 2\n")
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    assert "E603" in codes(result)
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    set n = 2.0\n")
    assert "E603" in codes(check_source(text, "gravitation.sci"))


def test_set_to_the_same_value_in_another_unit_is_noop_e603():
    # 6.674e-8 cm^3 g^-1 s^-2 is exactly G's original SI value
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    set G = 6.674e-8 [cm^3 g^-1 s^-2]\n")
    result = check_source(text, "gravitation.sci")
    # the SI values may differ in the last bit (6.674e-8 * 1e-3 in floating point), so
    # either the no-op check or the indistinguishability check must reject it
    assert result.card is None
    assert {"E603", "E701"} & set(codes(result)), [(d.code, d.message) for d in result.diagnostics]


def test_identical_law_replacement_is_noop_e603():
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "    law F = G * m1 * m2 / r ^ n\n")
    result = check_source(text, "gravitation.sci")
    assert "E603" in codes(result)


def test_scale_of_an_unused_param_is_noop_e603():
    body = simple("x", extra="  param unused = 3\n", cf='counterfactual "c" { scale unused by 2 }')
    assert "E603" in codes(check(body))


def test_empty_counterfactual_is_e602():
    text = GRAVITATION.replace("    set n = 3\n    rebalance G\n", "")
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    assert "E602" in codes(result)


def test_missing_counterfactual_is_e600():
    start = GRAVITATION.index("  counterfactual")
    end = GRAVITATION.index("  }\n", start) + 4
    text = GRAVITATION[:start] + GRAVITATION[end:]
    result = check_source(text, "gravitation.sci")
    assert result.card is None
    assert "E600" in codes(result)


def test_second_counterfactual_is_e601():
    body = simple("x", cf='counterfactual "a" { scale k by 2 }\n  counterfactual "b" { scale k by 3 }')
    assert "E601" in codes(check(body))


def test_scale_by_zero_is_rejected():
    body = simple("x", cf='counterfactual "c" { scale k by 0 }')
    assert "E304" in codes(check(body))


def test_mutating_an_input_is_e604():
    body = simple("x", cf='counterfactual "c" { scale x by 2 }')
    assert "E604" in codes(check(body))


def test_mutating_an_unknown_name_is_e200():
    body = simple("x", cf='counterfactual "c" { scale nope by 2 }')
    assert "E200" in codes(check(body))


def test_mutations_apply_in_order():
    body = simple("x", cf='counterfactual "c" {\n    set k = 5\n    scale k by 2\n  }')
    card = ok(body)
    assert evaluate(card, "counterfactual", x=1.0)["y"] == pytest.approx(10.0)
    body = simple("x", cf='counterfactual "c" {\n    scale k by 2\n    set k = 5\n  }')
    card = ok(body)
    assert evaluate(card, "counterfactual", x=1.0)["y"] == pytest.approx(5.0)


def test_counterfactual_dimension_error_is_reported_in_counterfactual():
    body = """  input a [m] in 1 .. 2
  output y [m] tolerance abs 1e-6 rel 1%
  param k = 1
  law y = k * a
  counterfactual "broken" {
    law y = k * a * a
  }"""
    result = check(body)
    assert "E403" in codes(result)
    d = next(d for d in result.errors if d.code == "E403")
    assert any("broken" in n for n in d.notes)


# ---- names ----------------------------------------------------------------------------


def test_unknown_name_unknown_function_arity():
    assert "E200" in codes(check(simple("x + zz")))
    assert "E203" in codes(check(simple("foo(x)")))
    assert "E204" in codes(check(simple("sin(x, x)")))
    assert "E204" in codes(check(simple("min(x)")))
    assert "E204" in codes(check(simple("atan2(x)")))


def test_reserved_and_duplicate_names():
    assert "E202" in codes(check(simple("x", extra="  param sin = 1\n")))
    assert "E202" in codes(check(simple("x", extra="  param pi = 1\n")))
    assert "E201" in codes(check(simple("x", extra="  param x = 1\n")))


def test_output_in_expression_is_e206():
    assert "E206" in codes(check(simple("x + y")))


def test_output_without_law_and_law_without_output():
    body = simple("x", extra="  output z tolerance abs 1 rel 1%\n")
    assert "E505" in codes(check(body))
    body = simple("x", extra="  law w = x\n")
    assert "E506" in codes(check(body))


def test_infinite_literal_is_e103():
    assert "E103" in codes(check(simple("x * 1e999")))
