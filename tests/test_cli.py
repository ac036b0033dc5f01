"""The `scigame` command line, end to end: through click's runner and through
the installed console script."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scigame
from scigame.cli import main

GRAVITATION = Path(__file__).resolve().parent.parent / "cards" / "historical" / "gravitation.sci"
LANGUAGE_MD = Path(__file__).resolve().parent.parent.parent / "shared" / "LANGUAGE.md"


def invoke(args, code):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    return result


def test_version():
    assert scigame.__version__ in invoke(["--version"], 0).output


def test_help_lists_lint():
    out = invoke(["--help"], 0).output
    assert "lint" in out
    assert "PATHS" in invoke(["lint", "--help"], 0).output


def test_missing_path_is_a_usage_error(tmp_path):
    result = invoke(["lint", str(tmp_path / "nope.sci")], 2)
    assert "no such file or folder" in result.output


def test_folder_without_cards_is_a_usage_error(tmp_path):
    assert "no .sci files" in invoke(["lint", str(tmp_path)], 2).output


def test_clean_card_exits_zero():
    out = invoke(["lint", str(GRAVITATION)], 0).output
    assert "0 errors, 0 warnings" in out


def test_language_md_example_lints_clean(tmp_path):
    """The example card of the language contract, taken from the contract itself."""
    if not LANGUAGE_MD.exists():
        pytest.skip("shared/LANGUAGE.md is not beside this checkout")
    text = LANGUAGE_MD.read_text(encoding="utf-8")
    card = re.search(r"```\n(# Newton.*?)```", text, re.S).group(1)
    path = tmp_path / "gravitation.sci"
    path.write_text(card)
    out = invoke(["lint", str(path)], 0).output
    # issue 18 fixed the bundled card (label prefix, overlapping spheres, `rebalance G at`), so the
    # contract's plain `rebalance G` now differs from it and is warned about as mostly a size change
    assert "0 errors" in out and "W400" in out


def test_folder_recursion_and_json(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    good = tmp_path / "a" / "gravitation.sci"
    good.write_text(GRAVITATION.read_text())
    bad = tmp_path / "a" / "b" / "broken.sci"
    bad.write_text(GRAVITATION.read_text().replace("card gravitation", "card broken")
                   .replace("rebalance G at r = 5 [m]", ""))
    (tmp_path / "a" / "notes.txt").write_text("not a card")
    result = invoke(["lint", "--format", "json", str(tmp_path)], 1)
    findings = json.loads(result.output)
    assert [f["code"] for f in findings if f["severity"] == "error"] == ["E403"]
    f = next(f for f in findings if f["code"] == "E403")
    assert f["path"].endswith("broken.sci")
    set_line = GRAVITATION.read_text().split("\n").index("    set n = 3") + 1
    assert (f["line"], f["column"]) == (set_line, 5)  # the `set n = 3` that broke the balance
    assert set(f) >= {"path", "line", "column", "end", "severity", "code", "message", "hints"}
    assert any("rebalance G" in h for h in f["hints"])


def test_human_output_has_caret_under_culprit(tmp_path):
    path = tmp_path / "c.sci"
    path.write_text('card c "t" {\n  law F = a *\n}\n')
    out = invoke(["lint", "--no-color", str(path)], 1).output
    lines = out.splitlines()
    assert lines[0] == f"{path}:3:1: error[E100]: expected an expression after `*`"
    assert "3 | }" in out and "  | ^" in out


def test_notes_only_on_request():
    assert "N001" not in invoke(["lint", str(GRAVITATION)], 0).output
    out = invoke(["lint", "--notes", str(GRAVITATION)], 0).output
    assert "`G` becomes m^4 kg^-1 s^-2" in out


def test_internal_error_is_reported_without_traceback(monkeypatch, tmp_path):
    import scigame.compiler as compiler

    def boom(path):
        raise RuntimeError("simulated fault")

    monkeypatch.setattr(compiler, "check_file", boom)
    result = invoke(["lint", str(GRAVITATION)], 2)
    assert "internal error" in result.output and "simulated fault" in result.output


def test_console_script_runs():
    """The installed entry point, as a user runs it."""
    proc = subprocess.run([sys.executable, "-m", "scigame", "lint", str(GRAVITATION)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "0 errors" in proc.stdout
