"""Golden tests for lint diagnostics (in the style of stanc3's golden tests).

`tests/golden/bad/` holds one small bad card per diagnostic code (several for
the important ones); beside each card an `.expected` file holds the exact
output of `scigame lint --notes --no-color CARD.sci` run in that folder, and a
final `exit: N` line. After an intended change to a message or a span, run

    python tests/golden/regenerate.py

and review the diff of the `.expected` files.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path

import pytest

from scigame.compiler import CODES

_GOLDEN = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_regenerate", _GOLDEN / "regenerate.py")
regen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regen)

CARDS = regen.bad_cards()

#: Codes a golden card is not required for: the numeric checks (they evaluate
#: the laws, and were planned for the simulator). `bad/` has cards for them
#: anyway; every other code must have one.
NOT_COVERED = {"E700", "E701"}


def test_there_are_golden_cards():
    assert len(CARDS) >= len(CODES) - len(NOT_COVERED)


@pytest.mark.parametrize("card", CARDS, ids=[c.stem for c in CARDS])
def test_golden(card: Path):
    expected_file = regen.expected_path(card)
    assert expected_file.exists(), (
        f"{card.name} has no {expected_file.name}; run `{regen.REGENERATE}` and review the new file")
    expected = expected_file.read_text(encoding="utf-8")
    actual = regen.lint_output(card)
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"{expected_file.name} (expected)", tofile=f"{card.name} (actual lint output)"))
        pytest.fail(f"lint output for {card.name} differs from {expected_file.name}.\n"
                    f"If the change is intended, run `{regen.REGENERATE}` and review the diff "
                    f"(`git diff tests/golden`).\n{diff}", pytrace=False)


@pytest.mark.parametrize("card", CARDS, ids=[c.stem for c in CARDS])
def test_card_is_named_after_its_code(card: Path):
    code = card.stem.split("_", 1)[0]
    assert code in CODES, f"{card.name}: golden cards are named CODE_case.sci, and {code} is no code"
    expected = regen.expected_path(card)
    if expected.exists():
        assert f"[{code}]" in expected.read_text(encoding="utf-8"), (
            f"{card.name} is meant to show {code}, but its expected output does not contain [{code}]")


def test_every_code_has_a_golden_card():
    shown: dict[str, list[str]] = {}
    for card in CARDS:
        expected = regen.expected_path(card)
        if expected.exists():
            for code in set(re.findall(r"\b(?:error|warning|note)\[([A-Z]\d{3})\]",
                                       expected.read_text(encoding="utf-8"))):
                shown.setdefault(code, []).append(card.name)
    missing = sorted(code for code in CODES if code not in NOT_COVERED and code not in shown)
    assert not missing, (
        "diagnostic codes without a golden card in tests/golden/bad/: "
        + ", ".join(f"{c} ({CODES[c]})" for c in missing)
        + f". Add a bad card named CODE_case.sci and run `{regen.REGENERATE}`.")


def test_no_stale_expected_files():
    stale = [p.name for p in (_GOLDEN / "bad").glob("*.expected") if not p.with_suffix(".sci").exists()]
    assert not stale, f"expected files without a card: {stale}; run `{regen.REGENERATE}`"
