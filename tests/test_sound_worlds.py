"""Sound worlds (issue 18): `rebalance P at ...`, `magnitude differs`, and the
lint rules E410, E605, E606, W400-W403 and N002.

Expected values are derived by hand (or with pint) from the card texts, never
read back from the code under test.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pint
import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from scigame.cli import main
from scigame.compiler import check_file, check_source
from scigame.compiler.sampling import evaluation_set
from scigame.compiler.sound_worlds import world_ratios
from scigame.worlds import COMMENT_HEAD, card_worlds, comment

REPO = Path(__file__).resolve().parent.parent
HISTORICAL = REPO / "cards" / "historical"
#: The poiseuille, stefan_boltzmann and bragg cards as they were before issue 18 (commit 210a75d).
UNSOUND = Path(__file__).resolve().parent / "fixtures" / "unsound_cards"
Q = pint.UnitRegistry().Quantity

TEMPLATE = """card t "test card" {
  collection historical
  source "test"
  background "%(background)s"
  input x [m] in %(domain)s "distance"
  output y [N] tolerance abs %(abs)s rel 1%%
  param k = 2 [N/m]
  param n = 1
%(extra)s
  law y = %(law)s
  counterfactual "c" {
%(cf)s
  }
}
"""


def card(cf: str, law: str = "k * x^n * 1 [m^-1] * 1 [m]", extra: str = "", domain: str = "1 .. 3",
         tol: str = "1e-6", background: str = "a spring is stretched"):
    return check_source(TEMPLATE % {"cf": cf, "law": law, "extra": extra, "domain": domain, "abs": tol,
                                    "background": background}, "t.sci")


def codes(result, severity=None) -> list[str]:
    return [d.code for d in result.diagnostics if severity is None or d.severity.value == severity]


def lint_json(path: Path) -> list[dict]:
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


# ---- the old cards report the new diagnostics (issue 18, "Must show") -------------

def test_old_poiseuille_is_w400_with_its_ratio_range():
    found = [d for d in lint_json(UNSOUND / "poiseuille.sci") if d["code"] == "W400"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    # with mu's SI number kept, Q_cf / Q = 1 / (r in m): r in 0.1 .. 0.5 mm gives 2000 .. 10000
    low, high = (float(x) for x in re.search(r"is (\S+) to (\S+) times", found[0]["message"]).groups())
    assert 2000 <= low < 2100 and 9800 < high <= 10000
    assert any("rebalance mu at r =" in h for h in found[0]["hints"])


def test_old_stefan_boltzmann_is_w400():
    found = [d for d in lint_json(UNSOUND / "stefan_boltzmann.sci") if d["code"] == "W400"]
    assert len(found) == 1
    # P_cf / P = T in K: 500 .. 1500
    low, high = (float(x) for x in re.search(r"is (\S+) to (\S+) times", found[0]["message"]).groups())
    assert 500 <= low < 520 and 1480 < high <= 1500


def test_old_bragg_constraint_is_e605_and_w402():
    found = lint_json(UNSOUND / "bragg.sci")
    by_code = {d["code"]: d for d in found}
    assert by_code["E605"]["severity"] == "error" and "`d`" in by_code["E605"]["message"]
    assert by_code["W402"]["severity"] == "warning" and "`d`" in by_code["W402"]["message"]
    line = (UNSOUND / "bragg.sci").read_text().split("\n")[by_code["E605"]["line"] - 1]
    assert line.strip().startswith("constraint") and line[by_code["E605"]["column"] - 1] == "d"


def test_every_bundled_card_lints_without_warnings():
    findings = lint_json(HISTORICAL)
    assert [f for f in findings if f["severity"] != "note"] == []


# ---- rebalance ... at --------------------------------------------------------------

def test_rebalance_at_value_by_hand_for_poiseuille():
    c = check_file(HISTORICAL / "poiseuille.sci").card
    mu = c.counterfactual.params["mu"]
    # pi dp r0^4 / (8 mu L) = pi dp r0^3 / (8 mu' L)  =>  mu' = mu / r0
    want = (Q(1.0e-3, "Pa*s") / Q(0.16, "mm")).to_base_units()
    assert mu.value == pytest.approx(want.magnitude, rel=1e-12)
    assert mu.unit_text.split() == ["m^-2", "kg", "s^-1"]


def test_reference_value_without_unit_is_in_the_inputs_unit():
    text = (HISTORICAL / "poiseuille.sci").read_text()
    bare = check_source(text.replace("rebalance mu at r = 0.16 [mm]", "rebalance mu at r = 0.16"), "poiseuille.sci")
    metres = check_source(text.replace("rebalance mu at r = 0.16 [mm]", "rebalance mu at r = 1.6e-4 [m]"),
                          "poiseuille.sci")
    want = (Q(1.0e-3, "Pa*s") / Q(0.16, "mm")).to_base_units().magnitude
    for r in (bare, metres):
        assert r.card.counterfactual.params["mu"].value == pytest.approx(want, rel=1e-12)


def test_rebalance_at_without_a_unit_change_moves_only_the_value():
    # y = k x^n; scale n has no unit, so `rebalance k at x = 2` keeps k's unit:
    # k 2^1 = k' 2^1.5  =>  k' = k / sqrt(2)
    r = card("    set n = 1.5\n    rebalance k at x = 2 [m]",
             law="k * (x / 1 [m])^n * 1 [m]")
    assert r.ok, r.diagnostics
    k0, k1 = r.card.original.params["k"], r.card.counterfactual.params["k"]
    assert k1.dim == k0.dim
    assert k1.value == pytest.approx(2 / math.sqrt(2), rel=1e-12)
    assert "N002" in codes(r)


def test_rebalance_at_solves_a_law_that_is_not_a_power_of_the_param():
    # y = k x + c; counterfactual scales c by 3 and rebalances k at x = 2 m:
    # 2 k + c = 2 k' + 3 c  =>  k' = k - c  (k = 2 N/m, c = 0.5 N: k' = 1.5 N/m)
    r = card("    scale c by 3\n    rebalance k at x = 2 [m]", law="k * x + c", extra="  param c = 0.5 [N]")
    assert r.ok, r.diagnostics
    assert r.card.counterfactual.params["k"].value == pytest.approx(1.5, rel=1e-10)


def test_unlisted_inputs_take_the_middle_of_their_domain():
    text = TEMPLATE % {"cf": "    set n = 2\n    rebalance k at x = 2 [m]", "law": "k * x^n * z",
                       "extra": '  input z in log 1 .. 100 "a factor"', "domain": "1 .. 3", "abs": "1e-6",
                       "background": "b"}
    r = check_source(text, "t.sci")
    assert r.ok, r.diagnostics
    # k x z / m = k' x^2 z / m^2 at x = 2 m: k' = k / (2 m); z cancels, and the note names its middle, 10
    assert r.card.counterfactual.params["k"].value == pytest.approx(1.0, rel=1e-12)
    note = next(d for d in r.diagnostics if d.code == "N002")
    assert "z = 10" in note.message


@pytest.mark.parametrize(("cf", "extra", "law", "needle"), [
    ("    set n = 2\n    rebalance k at x = 9 [m]", "", None, "outside"),
    ("    set n = 2\n    rebalance k at q = 2", "", None, "no input named `q`"),
    ("    set n = 2\n    rebalance k at x = 2 [m], x = 2 [m]", "", None, "given twice"),
    ("    set n = 2\n    rebalance k at x = 2 [s]", "", None, "[time]"),
    ("    set n = 2\n    rebalance k at x = 2 [m]\n    rebalance c at x = 1 [m]", "  param c = 1 [N]",
     "k * x^n * 1 [m] / 1 [m] + c", "one reference point"),
    ("    scale k by 2\n    rebalance c at x = 2 [m]", "  param c = 1", None, "no law changes with it"),
    ("    set n = 2\n    rebalance k at x = 1.5 [m]", "  constraint x > 2 [m]", None, "breaks the constraint"),
])
def test_misused_reference_is_e410(cf, extra, law, needle):
    r = card(cf, extra=extra, **({"law": law} if law else {}))
    found = [d for d in r.diagnostics if d.code == "E410"]
    assert found and any(needle in d.message for d in found), [d.message for d in r.diagnostics]


def test_outputs_asking_for_different_values_is_e410():
    text = """card t "t" {
  collection historical
  source "s"
  background "b"
  input x [m] in 1 .. 3 "d"
  output y [N] tolerance abs 1e-6 rel 1%
  output w [N] tolerance abs 1e-6 rel 1%
  param k = 2 [N]
  param n = 1
  law y = k * (x / 1 [m])^n
  law w = k * (x / 1 [m])^(2 * n)
  counterfactual "c" { set n = 2  rebalance k at x = 2 [m] }
}
"""
    r = check_source(text, "t.sci")
    assert any(d.code == "E410" and "different values" in d.message for d in r.diagnostics)


@settings(max_examples=40, deadline=None)
@given(n0=st.sampled_from([1, 2, 3, 4]), dn=st.sampled_from([-2, -1, 1, 2]),
       x0=st.floats(1.0, 3.0), x=st.floats(1.0, 3.0))
def test_rebalance_at_agrees_at_the_point_and_scales_as_a_power(n0, dn, x0, x):
    text = TEMPLATE % {"cf": f"    set n = {n0 + dn}\n    rebalance k at x = {x0!r} [m]",
                       "law": f"k * x^n / (1 [m])^{n0 - 1}", "extra": "", "domain": "1 .. 3", "abs": "1e-9",
                       "background": "b"}
    text = text.replace("param n = 1", f"param n = {n0}")
    r = check_source(text, "t.sci")
    if any(d.code == "E701" for d in r.diagnostics):
        return  # x0 at the centre of a tiny change: nothing to test
    assert r.ok, [d.message for d in r.diagnostics]
    c = r.card
    at = {"x": np.array([x0])}
    assert c.counterfactual.evaluate(c, at)["y"][0] == pytest.approx(c.original.evaluate(c, at)["y"][0], rel=1e-9)
    here = {"x": np.array([x])}
    ratio = c.counterfactual.evaluate(c, here)["y"][0] / c.original.evaluate(c, here)["y"][0]
    assert ratio == pytest.approx((x / x0) ** dn, rel=1e-9)


# ---- W400 / W403 / W401 --------------------------------------------------------------

@pytest.mark.parametrize(("factor", "warned"), [(12, True), (0.08, True), (9, False), (0.12, False)])
def test_w400_at_a_median_ratio_beyond_ten(factor, warned):
    r = card(f"    scale k by {factor}")
    assert ("W400" in codes(r)) is warned


def test_magnitude_differs_silences_w400_and_is_w403_where_not_needed():
    assert codes(card('    scale k by 12\n    magnitude differs "the other world is stiffer"'), "warning") == []
    r = card('    scale k by 2\n    magnitude differs "not really"')
    assert codes(r, "warning") == ["W403"]


def test_empty_or_repeated_acknowledgment_is_an_error():
    assert "E606" in codes(card('    scale k by 12\n    magnitude differs " "'))
    assert "E301" in codes(card('    scale k by 12\n    magnitude differs "a"\n    magnitude differs "b"'))


def test_w401_counts_counterfactual_points_below_the_absolute_tolerance():
    # y_cf = 2 * 0.5 * x N on x uniform in 1 .. 3 m: below abs A where x < A
    for tol, warned in (("1.5", False), ("1.8", True)):
        r = card("    scale k by 0.5", tol=tol)
        share = float(np.mean(np.asarray(evaluation_set(r.card)["x"]) < float(tol)))  # by hand: y_cf = x
        assert (share > 1 / 3) is warned, share
        assert ("W401" in codes(r)) is warned


# ---- W402 and E605 ------------------------------------------------------------------

@pytest.mark.parametrize(("background", "warned"), [
    ("a spring is stretched by a weight", False),   # `k`, `n` as words: none here
    ("the force is k times x", False),               # one letter in prose is not a symbol
    ("the force is k * x", True),                    # ... next to an operator it is
    ("n = 1 in the original world", True),
])
def test_w402_in_the_background(background, warned):
    r = card("    scale k by 1.5", background=background)
    assert ("W402" in codes(r)) is warned


def test_w402_for_a_multi_letter_param_named_in_a_description():
    text = TEMPLATE % {"cf": "    scale k by 1.5", "law": "k * x + 0 [N] * offset", "domain": "1 .. 3",
                       "extra": "  param offset = 1", "abs": "1e-6", "background": "b"}
    text = text.replace('"distance"', '"distance, corrected by the offset"')
    r = check_source(text, "t.sci")
    found = [d for d in r.diagnostics if d.code == "W402"]
    assert len(found) == 1 and "input `x`" in found[0].message
    line = text.split("\n")[found[0].span.line - 1]
    assert line[found[0].span.column - 1:found[0].span.end_column - 1] == "offset"


def test_constraint_on_an_unchanged_param_is_only_w402():
    r = card("    scale k by 1.5", extra="  param x0 = 1.5 [m]\n  constraint x > x0")
    assert "W402" in codes(r) and "E605" not in codes(r)
    r = card("    scale k by 1.5", extra="  constraint x > 1.5 [m]")
    assert codes(r, "warning") == [] and r.ok


def test_constraint_on_a_changed_param_is_e605():
    r = card("    scale x0 by 1.2", law="k * (x - x0)", extra="  param x0 = 0.5 [m]\n  constraint x > 2 * x0")
    assert "E605" in codes(r, "error")


# ---- the worlds table and the cards' comments -------------------------------------------

def test_every_bundled_card_records_its_worlds_in_a_comment():
    for entry in card_worlds(sorted(HISTORICAL.glob("*.sci"))):
        text = Path(entry.path).read_text(encoding="utf-8")
        assert COMMENT_HEAD in text, entry.name
        assert comment(entry) in text, f"{entry.name}: run `scigame worlds --format comment` and update"


@pytest.mark.parametrize(("name", "ratio"), [
    ("poiseuille", lambda ev: 0.16 / ev["r"]),        # (r0 / r)^(4 - 3)
    ("stefan_boltzmann", lambda ev: ev["T"] / 1000),  # (T / T0)^(5 - 4)
    ("projectile", lambda ev: ev["v0"] / 3),          # (v0 / v0ref)^(3 - 2)
    ("gravitation", lambda ev: 5 / ev["r"]),          # (r0 / r)^(3 - 2)
])
def test_fixed_exponent_cards_are_within_ten_times_at_the_median(name, ratio):
    c = check_file(HISTORICAL / f"{name}.sci").card
    ev = {k: np.asarray(v, dtype=float) for k, v in evaluation_set(c).items()}
    want = ratio(ev)
    for r in world_ratios(c):
        assert r.low == pytest.approx(want.min(), rel=1e-9)
        assert r.median == pytest.approx(np.median(want), rel=1e-9)
        assert r.high == pytest.approx(want.max(), rel=1e-9)
        assert 0.1 <= r.median <= 10


def test_every_card_beyond_ten_times_acknowledges_it():
    for entry in card_worlds(sorted(HISTORICAL.glob("*.sci"))):
        for r in entry.rows:
            if not 0.1 <= r.median <= 10:
                assert r.magnitude, f"{entry.name}: median ratio {r.median:g} without `magnitude differs`"


def test_worlds_command_markdown_matches_the_docs_table():
    result = CliRunner().invoke(main, ["worlds", "--format", "markdown", str(HISTORICAL)])
    assert result.exit_code == 0, result.output
    docs = (REPO / "docs" / "collections.md").read_text(encoding="utf-8")
    assert result.output.strip() in docs, "regenerate the table: scigame worlds --format markdown cards/historical"


def test_worlds_command_exit_status_on_a_broken_card(tmp_path):
    bad = tmp_path / "bad.sci"
    bad.write_text("card bad \"x\" {\n}\n")
    result = CliRunner().invoke(main, ["worlds", str(bad)])
    assert result.exit_code == 1
    assert "lint error" in result.output
