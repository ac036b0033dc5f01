"""Every runnable example in examples/ runs from the repository root and says
what it should; the example card lints clean."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXAMPLE_CARDS = sorted((EXAMPLES / "write_a_card").glob("*.sci"))


def run_example(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


def printed_value(output: str, env: str, name: str) -> float:
    match = re.search(rf"^\s*{env}\s+{name} = (\S+)", output, re.M)
    assert match, output
    return float(match.group(1))


def test_every_example_is_tested():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {"python_api.py", "lint_json.py", "score_by_hand.py", "custom_player.py"}, \
        "add a test for the new example"


def test_python_api_example():
    out = run_example("examples/python_api.py").stdout
    assert "card gravitation" in out
    assert "m1 [kg] in 1 .. 1000" in out
    # `rebalance G at r = 5 [m]`: G m1 m2 / (5 m)^2 = G' m1 m2 / (5 m)^3, so G' = 5 G
    assert "counterfactual: G = 3.337e-10 [m^4 kg^-1 s^-2]" in out
    # Worked by hand: F = G m1 m2 / r^n with G = 6.674e-11 (SI), m1 = 100 kg,
    # m2 = 200 kg, r = 2 m; n = 2 in the original and 3 (with G' = 5 G) in the counterfactual.
    g, m1, m2, r = 6.674e-11, 100.0, 200.0, 2.0
    assert printed_value(out, "original", "F") == pytest.approx(g * m1 * m2 / (r * r), rel=1e-9)
    assert printed_value(out, "counterfactual", "F") == pytest.approx(5 * g * m1 * m2 / (r * r * r), rel=1e-9)
    assert printed_value(out, "original", "F") == pytest.approx(3.337e-7, rel=1e-9)


def test_python_api_example_on_the_example_card():
    out = run_example("examples/python_api.py", "examples/write_a_card/hooke.sci").stdout
    # F = k x^n with k = 250 N/m at the midpoint x = 27.5 mm = 0.0275 m; n = 1 in
    # the original, 2 in the counterfactual, where `rebalance k at x = 20 [mm]`
    # makes k' 0.02^2 = 250 * 0.02, so k' = 12500 (SI).
    x = 0.0275
    assert printed_value(out, "original", "F") == pytest.approx(250 * x, rel=1e-9)
    assert printed_value(out, "counterfactual", "F") == pytest.approx(12500 * x * x, rel=1e-9)


def _score_table(output: str) -> dict[str, dict[str, tuple[str, str]]]:
    """The example's side-by-side table: env -> row -> (library, by hand)."""
    table: dict[str, dict[str, tuple[str, str]]] = {}
    env = None
    for line in output.splitlines():
        if line in ("original", "counterfactual"):
            env = line
            table[env] = {}
            continue
        m = re.match(r"^  (max e|mean e|PS|weak|strict)\s{2,}(\S+)\s+(.+?)\s*$", line)
        if env and m:
            table[env][m.group(1)] = (m.group(2), m.group(3))
    return table


def test_score_by_hand_example(tmp_path):
    env = {**os.environ, "SCIGAME_CACHE": str(tmp_path / "cache")}
    out = run_example("examples/score_by_hand.py", env=env).stdout
    table = _score_table(out)
    assert set(table) == {"original", "counterfactual"}, out

    # The library and the hand computation agree.
    for world in table.values():
        library, hand = (float(x) for x in world["PS"])
        assert abs(library - hand) <= 1e-12
        assert world["weak"][0] == world["weak"][1]

    # The original law is the original world's law: weak and strict there,
    # and not weak in the counterfactual world (g scaled by 0.8).
    assert table["original"]["weak"][0] == "True"
    assert table["original"]["strict"][0] == "True"
    assert table["counterfactual"]["weak"][0] == "False"
    assert table["counterfactual"]["strict"][0] == "False"

    # Independently: the prediction 2*pi*sqrt(L/9.81) against the
    # counterfactual's 2*pi*sqrt(L/(0.8*9.81)), with the pendulum card's
    # tolerances (abs 0.002 s, rel 0.5 %) written out here, at the stored
    # evaluation points.
    folder = tmp_path / "cache"
    evaluation = json.loads(next(folder.rglob("pendulum/evaluation.json")).read_text())
    L = np.asarray(evaluation["inputs"]["L"])
    assert len(L) == 256
    predicted = 2 * np.pi * np.sqrt(L / 9.81)
    truth = 2 * np.pi * np.sqrt(L / (0.8 * 9.81))
    e = np.abs(predicted - truth) / (0.002 + 0.005 * truth)
    assert float(table["counterfactual"]["PS"][0]) == pytest.approx(1 / (1 + e.mean()), rel=1e-9)
    assert float(table["counterfactual"]["max e"][0]) == pytest.approx(e.max(), rel=1e-9)
    assert e.max() > 1
    assert float(table["original"]["PS"][0]) == pytest.approx(1.0, abs=1e-12)

    # The invalid predictor: log of a negative number, rejected whole.
    assert "valid = False, PS = 0.0, weak = False, strict = False" in out
    assert re.search(r"reason: log of a non-positive number at T \(at L=[0-9.]+\)", out)
    assert re.search(r"^  path:\s+T$", out, re.M)


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
    assert float(card.original.evaluate(card, {"x": 40.0})["F"]) == pytest.approx(250 * 0.04)
    assert float(card.counterfactual.evaluate(card, {"x": 40.0})["F"]) == pytest.approx(12500 * 0.04 ** 2)
    # the two worlds agree at the reference point 20 mm
    assert float(card.counterfactual.evaluate(card, {"x": 20.0})["F"]) == pytest.approx(250 * 0.02)
    assert card.counterfactual.params["k"].unit_text == "m^-1 kg s^-2"


def test_custom_player_example():
    proc = run_example("examples/custom_player.py")
    out = proc.stdout
    assert "12 episodes played" in out

    # The submitted power laws, against the gravitation card's own law
    # written out here: F = G m1 m2 / r^n with G = 6.674e-11 (SI) and n = 2 in
    # the original, G = 5 * 6.674e-11 (its `rebalance G at r = 5 [m]`) and n = 3
    # in the counterfactual. Four preset observations determine the three
    # exponents and the coefficient exactly.
    laws = dict(re.findall(r"^  discovery\s+(\w+)\s+fixed\s+F = (.+?) \(from 4 observations\)", out, re.M))
    assert set(laws) == {"original", "counterfactual"}, out
    for world, n, coupling in (("original", 2, 6.674e-11), ("counterfactual", 3, 5 * 6.674e-11)):
        coefficient, *factors = laws[world].split("·")
        assert float(coefficient) == pytest.approx(coupling, rel=1e-4)
        assert factors == ["m1", "m2", f"r^-{n}"]

    # Summary rows: setting, world, protocol, B, n, weak ESR, strict ESR, mean PS.
    rows = {tuple(m[:3]): m[3:] for m in re.findall(
        r"^  (identification|discovery)\s+(original|counterfactual)\s+(prior|fixed|adaptive)\s+(\d+)\s+(\d+)"
        r"\s+(\S+)\s+(\S+)\s+(\S+)$", out, re.M)}
    assert len(rows) == 12, out
    for world in ("original", "counterfactual"):
        for setting in ("identification", "discovery"):
            budget, n, weak, strict, _ = rows[(setting, world, "fixed")]
            assert (budget, n, weak, strict) == ("4", "1", "100%", "100%")
            assert rows[(setting, world, "adaptive")][2:4] == ("100%", "100%")
    # With no data the player guesses s = 0, which is the law only in the original.
    assert rows[("identification", "original", "prior")][2] == "100%"
    assert rows[("identification", "counterfactual", "prior")][2] == "0%"
    assert float(rows[("discovery", "original", "fixed")][4]) == pytest.approx(1.0, abs=1e-4)
