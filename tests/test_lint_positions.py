"""Where lint points: each golden bad card's target code must be reported at
the culprit's line and column.

The table below was written from the card texts (the place a reader would put
the caret), not copied from lint's output; `test_table_matches_card_text`
checks that each row's column really holds the culprit text it names. Rows
marked `KNOWN_BUG` point where lint should point but does not yet: they are
strict xfails, so fixing the linter turns them into failures that ask for the
mark to be removed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main

REPO = Path(__file__).resolve().parent.parent
BAD = REPO / "tests" / "golden" / "bad"
CARDS_DIR = REPO / "cards"

# (card stem, target code, line, column, text that starts at that column;
#  "" means the end of the line, i.e. the end of the file)
POSITIONS = [
    ("E520_negative_noise", "E520", 16, 81, '-1%'),
    ("E521_ood_factor", "E521", 28, 29, '0.5'),
    ("E302_unknown_noise_model", "E302", 16, 68, 'gausian'),
    ("W320_noise_hides_counterfactual", "W320", 16, 62, 'noise gaussian'),
    ("E100_bad_character", "E100", 21, 26, '$'),
    ("E100_bad_domain", "E100", 15, 25, '20 '),
    ("E100_counterfactual_without_label", "E100", 23, 18, '{'),
    ("E100_date_in_quotes", "E100", 6, 14, '"1687'),
    ("E100_law_missing_equals", "E100", 21, 9, 'G *'),
    ("E100_missing_closing_brace", "E100", 30, 38, ''),
    ("E100_missing_domain", "E100", 15, 18, '"centre'),
    ("E100_missing_expression_after_operator", "E100", 23, 3, 'counterfactual'),
    ("E100_missing_operand_in_parentheses", "E100", 21, 31, ')'),
    ("E100_missing_tolerance", "E100", 16, 36, '"attractive'),
    ("E100_param_in_counterfactual", "E100", 24, 5, 'param'),
    ("E100_param_not_a_number", "E100", 18, 15, '+'),
    ("E100_percent_after_abs", "E100", 16, 50, '% rel'),
    ("E100_single_quoted_string", "E100", 5, 14, "'"),
    ("E100_statement_without_keyword", "E100", 21, 3, 'F ='),
    ("E100_reference_without_comma", "E100", 25, 30, 'm1 = 10'),
    ("E100_unit_without_brackets", "E100", 15, 13, 'm  in'),
    ("E100_unterminated_string", "E100", 5, 14, '"'),
    ("E101_bad_escape", "E101", 5, 26, '\\P'),
    ("E102_bad_date", "E102", 6, 14, '2023'),
    ("E103_number_overflow", "E103", 19, 13, '6.674e999'),
    ("E104_nested_too_deep", "E104", 21, 141, '- G'),
    ("E200_unknown_name", "E200", 21, 20, 'm3'),
    ("E200_unknown_param_in_counterfactual", "E200", 24, 11, 'g by'),
    ("E201_duplicate_input", "E201", 16, 10, 'r  [m]'),
    ("E201_let_shadows_param", "E201", 21, 7, 'n ='),
    ("E201_output_shadows_input", "E201", 17, 10, 'm1'),
    ("E201_param_shadows_input", "E201", 19, 9, 'r ='),
    ("E202_function_as_name", "E202", 18, 9, 'exp'),
    ("E202_keyword_as_name", "E202", 18, 9, 'scale'),
    ("E202_pi_as_name", "E202", 20, 9, 'pi'),
    ("E203_unknown_function", "E203", 21, 25, 'sqr'),
    ("E204_wrong_argument_count", "E204", 21, 25, 'max('),
    ("E205_cyclic_lets", "E205", 21, 7, 'a ='),
    ("E206_function_without_parentheses", "E206", 21, 31, 'exp'),
    ("E206_let_in_constraint", "E206", 23, 14, 'M <'),
    ("E206_output_in_expression", "E206", 21, 35, 'F'),
    ("E300_missing_collection", "E300", 2, 6, 'E300_missing_collection'),
    ("E300_missing_source", "E300", 2, 6, 'E300_missing_source'),
    ("E301_repeated_evaluation", "E301", 29, 3, 'evaluation'),
    ("E301_repeated_field", "E301", 5, 3, 'field'),
    ("E302_bad_collection", "E302", 3, 14, 'histrical'),
    ("E302_bad_design_method", "E302", 27, 18, 'halton'),
    ("E302_bad_interpolate", "E302", 29, 30, 'maybe'),
    ("E303_fractional_design_size", "E303", 27, 16, '4.5'),
    ("E304_scale_by_zero", "E304", 24, 16, '0'),
    ("E304_threshold_above_one", "E304", 30, 22, '1.5'),
    ("E304_zero_evaluation_size", "E304", 28, 14, '0 seed'),
    ("E400_unit_syntax", "E400", 19, 23, '[m^^3'),
    ("E400_unknown_unit", "E400", 15, 13, '[mtr]'),
    ("E401_offset_unit", "E401", 16, 13, '[degC]'),
    ("E402_constraint_sides", "E402", 22, 3, 'constraint'),
    ("E402_counterfactual_law", "E402", 24, 13, 'G *'),
    ("E402_counterfactual_set_changes_dimension", "E402", 25, 5, 'set d'),
    ("E402_min_of_different_dimensions", "E402", 21, 25, 'min('),
    ("E402_sum_of_different_dimensions", "E402", 21, 11, 'G *'),
    ("E403_counterfactual_law", "E403", 24, 13, 'G *'),
    ("E403_counterfactual_needs_rebalance", "E403", 24, 5, 'set n = 3'),
    ("E403_dimensionless_output", "E403", 21, 11, 'G *'),
    ("E403_law_unbalanced", "E403", 21, 11, 'G *'),
    ("E404_exp_of_distance", "E404", 21, 35, 'r)'),
    ("E405_input_in_exponent", "E405", 21, 28, 'm1 / m2'),
    ("E406_exponent_with_unit", "E406", 21, 28, '2 [m]'),
    ("E407_set_without_unit", "E407", 24, 13, '7e-11'),
    ("E408_rebalance_conflict", "E408", 27, 5, 'rebalance G'),
    ("E408_rebalance_has_no_effect", "E408", 25, 5, 'rebalance n'),
    ("E410_reference_not_an_input", "E410", 25, 20, 'F = 1e-9'),
    ("E410_reference_outside_domain", "E410", 25, 24, '50 [m]'),
    ("E410_reference_wrong_unit", "E410", 25, 26, '[s]'),
    ("E409_exponent_not_finite", "E409", 21, 28, 'n / 0'),
    ("E500_empty_domain", "E500", 15, 18, 'in 20'),
    ("E500_no_integer_in_domain", "E500", 15, 18, 'integer'),
    ("E501_log_domain_not_positive", "E501", 15, 25, '0 ..'),
    ("E502_zero_resolution", "E502", 16, 29, '0 tol'),
    ("E503_negative_rel_tolerance", "E503", 16, 59, '-1%'),
    ("E503_zero_abs_tolerance", "E503", 16, 32, '0 rel'),
    ("E504_repeated_set_value", "E504", 15, 28, '2, 5'),
    ("E505_output_without_law", "E505", 17, 10, 'U'),
    ("E506_law_for_param", "E506", 22, 7, 'G ='),
    ("E506_law_for_undeclared_name", "E506", 22, 7, 'U ='),
    ("E507_second_law", "E507", 22, 3, 'law'),
    ("E508_design_missing_input", "E508", 27, 34, 'm1=2'),
    ("E508_design_outside_domain", "E508", 27, 46, '50'),
    ("E508_design_unknown_input", "E508", 27, 44, 'd=2'),
    ("E600_missing_counterfactual", "E600", 2, 6, 'E600_missing_counterfactual'),
    ("E601_two_counterfactuals", "E601", 26, 3, 'counterfactual'),
    ("E602_empty_counterfactual", "E602", 23, 3, 'counterfactual'),
    ("E603_scale_by_one", "E603", 23, 18, '"stronger'),
    ("E603_set_to_same_value", "E603", 23, 18, '"stronger'),
    ("E604_let_not_declared", "E604", 24, 9, 'k ='),
    ("E604_scale_an_input", "E604", 24, 11, 'r by'),
    ("E605_constraint_uses_changed_param", "E605", 23, 14, 'G * m1'),
    ("E606_empty_magnitude_reason", "E606", 26, 23, '""'),
    ("E402_sum_reported_once", "E402", 21, 32, 'r^2'),
    ("E700_law_undefined", "E700", 21, 3, 'law'),
    ("E800_rate_unit", "E800", 18, 15, '-q(h)'),
    ("E801_initial_unit", "E801", 17, 19, 'A'),
    ("E802_time_not_time", "E802", 16, 11, 'h0'),
    ("E803_output_not_state", "E803", 10, 10, 'z'),
    ("E804_state_without_rate", "E804", 18, 11, 'w'),
    ("E805_rate_undeclared", "E805", 19, 11, 'w'),
    ("E806_law_call_dimensions", "E806", 18, 18, 'A'),
    ("E807_law_scope", "E807", 13, 24, 'A'),
    ("W410_unintegrable", "W410", 15, 3, 'system'),
    ("E701_indistinguishable", "E701", 23, 18, '"stronger'),
    ("E702_constraints_exclude_domain", "E702", 22, 3, 'constraint'),
    ("E703_fold_overflow", "E703", 21, 3, 'law'),
    ("N001_rebalanced_unit", "N001", 25, 5, 'rebalance G'),
    ("N002_reference_solved", "N002", 25, 5, 'rebalance G at'),
    ("W100_unused_input", "W100", 16, 10, 'T  [K]'),
    ("W101_unused_param", "W101", 20, 9, 'k ='),
    ("W102_unused_let", "W102", 21, 7, 'M ='),
    ("W200_coarse_resolution", "W200", 16, 29, '1e-12'),
    ("W300_temporal_without_dates", "W300", 2, 6, 'W300_temporal_without_dates'),
    ("W301_stem_differs", "W301", 2, 6, 'gravitation'),
    ("W302_no_background", "W302", 2, 6, 'W302_no_background'),
    ("W303_placeholder", "W303", 5, 14, '"TODO:'),
    ("W400_worlds_differ_in_size", "W400", 23, 18, '"inverse-cube'),
    ("W401_counterfactual_below_tolerance", "W401", 23, 18, '"inverse-cube'),
    ("W402_param_in_background", "W402", 9, 43, 'G * m1'),
    ("W402_param_in_constraint", "W402", 23, 22, 'R  "the'),
    ("W403_needless_magnitude", "W403", 26, 5, 'magnitude differs'),
    # issue #28: `where`, card units, exact values
    ("E411_unit_already_known", "E411", 13, 8, 'au ='),
    ("E411_unit_not_positive", "E411", 13, 15, '0 [kg]'),
    ("E400_unit_defined_later", "E400", 13, 13, '[lump]'),
    ("E103_ratio_zero_denominator", "E103", 18, 13, '2/0'),
    ("E704_where_excludes_domain", "E704", 21, 35, 'r < 0.1'),
    ("E700_where_too_wide", "E700", 21, 3, 'law F'),
    ("E402_where_sides", "E402", 21, 35, 'r > m1'),
    ("E408_rebalance_underdetermined", "E408", 20, 5, 'rebalance a'),
    ("E410_reference_counterfactual_zero", "E410", 18, 5, 'rebalance k at'),
    ("E100_double_star_power", "E100", 21, 26, '**n'),
    ("E100_unit_after_number_without_brackets", "E100", 19, 23, 'm^3 kg'),
    ("E100_unclosed_parenthesis", "E100", 21, 25, '(r^n'),
    ("E100_unclosed_counterfactual_brace", "E100", 23, 38, '{'),
    ("E100_equality_in_constraint", "E100", 18, 17, '== m2'),
    ("E100_missing_opening_quote", "E100", 15, 36, 'centre-to'),
    ("E100_unclosed_unit_bracket", "E100", 19, 23, '[m^3'),
    ("E403_factor_divides_instead_of_multiplies", "E403", 21, 11, 'G * m1 /'),
    ("E508_design_point_where_law_has_no_value", "E508", 27, 36, 'm1=10 m2=20 r=0.6'),
    ("W402_param_in_where_reason", "W402", 21, 62, 'G * m1 reaches'),
]

#: Rows whose expected place lint misses today (see each reason).
KNOWN_BUG: dict[str, str] = {
    # stem -> why lint does not yet point at the culprit (strict xfail)
}


def _lint_json(*paths: str):
    result = CliRunner().invoke(main, ["lint", "--format", "json", *paths])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="module")
def bad_folder_findings():
    code, diags = _lint_json(str(BAD))
    by_card: dict[str, list[dict]] = defaultdict(list)
    for d in diags:
        by_card[Path(d["path"]).stem].append(d)
    return code, by_card


def test_table_covers_every_bad_card():
    stems = {p.stem for p in BAD.glob("*.sci")}
    table = {row[0] for row in POSITIONS}
    assert stems == table, f"cards without a row: {sorted(stems - table)}; rows without a card: {sorted(table - stems)}"


@pytest.mark.parametrize("stem,code,line,column,culprit", POSITIONS, ids=[r[0] for r in POSITIONS])
def test_table_matches_card_text(stem, code, line, column, culprit):
    assert stem.split("_", 1)[0] == code
    text = (BAD / f"{stem}.sci").read_text(encoding="utf-8").splitlines()[line - 1]
    if culprit == "":
        assert column == len(text) + 1
    else:
        assert text[column - 1:].startswith(culprit), (text, column, culprit)


def test_linting_the_bad_folder_fails(bad_folder_findings):
    code, _ = bad_folder_findings
    assert code == 1


@pytest.mark.parametrize(
    "stem,code,line,column,culprit",
    [pytest.param(*row, marks=pytest.mark.xfail(reason=KNOWN_BUG[row[0]], strict=True))
     if row[0] in KNOWN_BUG else row for row in POSITIONS],
    ids=[r[0] for r in POSITIONS])
def test_target_code_at_the_culprit(bad_folder_findings, stem, code, line, column, culprit):
    _, by_card = bad_folder_findings
    found = by_card.get(stem, [])
    places = [(d["line"], d["column"]) for d in found if d["code"] == code]
    assert places, f"{stem}: {code} not reported; got {[(d['code'], d['line'], d['column']) for d in found]}"
    assert (line, column) in places, f"{stem}: {code} reported at {places}, expected {(line, column)} ({culprit!r})"


def test_bundled_cards_are_clean():
    code, diags = _lint_json(str(CARDS_DIR))
    findings = [f"{d['path']}:{d['line']}:{d['column']}: {d['severity']}[{d['code']}]: {d['message']}"
                for d in diags if d["severity"] in ("error", "warning")]
    assert not findings, "bundled cards have findings:\n" + "\n".join(findings)
    assert code == 0
