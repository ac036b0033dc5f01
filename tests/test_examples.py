"""Every runnable example in examples/ runs from the repository root and says
what it should; the example card lints clean."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXAMPLE_CARDS = sorted((EXAMPLES / "write_a_card").glob("*.sci"))


def run_example(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


def printed_value(output: str, env: str, name: str) -> float:
    match = re.search(rf"^\s*{env}\s+{name} = (\S+)", output, re.M)
    assert match, output
    return float(match.group(1))


def test_every_example_is_tested():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {"python_api.py", "lint_json.py"}, "add a test for the new example"


def test_python_api_example():
    out = run_example("examples/python_api.py").stdout
    assert "card gravitation" in out
    assert "m1 [kg] in 1 .. 1000" in out
    assert "counterfactual: G = 6.674e-11 [m^4 kg^-1 s^-2]" in out
    # Worked by hand: F = G m1 m2 / r^n with G = 6.674e-11 (SI), m1 = 100 kg,
    # m2 = 200 kg, r = 2 m; n = 2 in the original and 3 in the counterfactual.
    g, m1, m2, r = 6.674e-11, 100.0, 200.0, 2.0
    assert printed_value(out, "original", "F") == pytest.approx(g * m1 * m2 / (r * r), rel=1e-9)
    assert printed_value(out, "counterfactual", "F") == pytest.approx(g * m1 * m2 / (r * r * r), rel=1e-9)
    assert printed_value(out, "original", "F") == pytest.approx(3.337e-7, rel=1e-9)


def test_python_api_example_on_the_example_card():
    out = run_example("examples/python_api.py", "examples/write_a_card/hooke.sci").stdout
    # F = k x^n with k = 250 N/m at the midpoint x = 27.5 mm = 0.0275 m;
    # n = 1 in the original, 2 in the counterfactual (k keeps 250 in SI).
    x = 0.0275
    assert printed_value(out, "original", "F") == pytest.approx(250 * x, rel=1e-9)
    assert printed_value(out, "counterfactual", "F") == pytest.approx(250 * x * x, rel=1e-9)


def test_lint_json_example():
    out = run_example("examples/lint_json.py").stdout
    assert "exited with status 1" in out
    assert "error codes: E403, E500" in out
    assert "warning W200 at line 7, column 28" in out
    assert "help: add `rebalance k`" in out


@pytest.mark.parametrize("card", EXAMPLE_CARDS, ids=lambda p: p.name)
def test_example_card_lints_clean(card):
    assert EXAMPLE_CARDS, "examples/write_a_card holds no card"
    proc = subprocess.run([sys.executable, "-m", "scigame.cli", "lint", "--format", "json", str(card)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    findings = json.loads(proc.stdout)
    assert [f for f in findings if f["severity"] != "note"] == []


def test_example_card_summary_line():
    proc = subprocess.run([sys.executable, "-m", "scigame.cli", "lint", *map(str, EXAMPLE_CARDS)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0
    assert proc.stdout.strip().endswith("0 errors, 0 warnings")


def test_example_card_values():
    """The numbers the write_a_card walk-through quotes."""
    from scigame.compiler import check_file

    card = check_file(EXAMPLES / "write_a_card" / "hooke.sci").card
    assert card is not None
    assert float(card.original.evaluate(card, {"x": 20.0})["F"]) == pytest.approx(250 * 0.02)
    assert float(card.counterfactual.evaluate(card, {"x": 20.0})["F"]) == pytest.approx(250 * 0.02 ** 2)
    assert card.counterfactual.params["k"].unit_text == "m^-1 kg s^-2"
