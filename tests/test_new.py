"""`scigame new NAME`: a commented skeleton that lints, with warnings for what is left to write."""

from __future__ import annotations

import re

from click.testing import CliRunner

from scigame.cli import main
from scigame.compiler import check_file
from scigame.compiler.format import format_text


def test_skeleton_lints_with_a_warning_per_todo(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["new", "spring_force", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "spring_force.sci"
    text = path.read_text()
    lint = runner.invoke(main, ["lint", str(path)])
    assert lint.exit_code == 0, lint.output
    checked = check_file(path)
    assert checked.ok and checked.card is not None
    assert {d.code for d in checked.warnings} == {"W303"}
    todos = [line for line in text.split("\n") if "TODO" in line and not line.lstrip().startswith("#")]
    assert len(checked.warnings) == len(todos) == 8
    assert format_text(text).text == text  # already in fmt's layout
    assert "#" in text and text.count("\n  # ") >= 5  # commented

    # filling in the TODOs leaves a clean card
    filled = re.sub(r"TODO: ?[^\"\n]*", "filled in", text)
    path.write_text(filled)
    assert [d for d in check_file(path).diagnostics if d.severity.value != "note"] == []


def test_temporal_skeleton_asks_for_dates(tmp_path):
    result = CliRunner().invoke(main, ["new", "late_law", "--collection", "temporal", "-o", str(tmp_path)])
    assert result.exit_code == 0
    codes = [d.code for d in check_file(tmp_path / "late_law.sci").warnings]
    assert codes.count("W300") == 2 and "W303" in codes


def test_bad_names_and_existing_files_are_usage_errors(tmp_path):
    runner = CliRunner()
    for name in ("2bad", "Bad-Name", "input", "sqrt"):
        result = runner.invoke(main, ["new", name, "-o", str(tmp_path)])
        assert result.exit_code == 2 and "NAME" in result.output, (name, result.output)
    assert runner.invoke(main, ["new", "once", "-o", str(tmp_path)]).exit_code == 0
    again = runner.invoke(main, ["new", "once", "-o", str(tmp_path)])
    assert again.exit_code == 2 and "exists" in again.output
    assert runner.invoke(main, ["new", "once", "-o", str(tmp_path), "--force"]).exit_code == 0
