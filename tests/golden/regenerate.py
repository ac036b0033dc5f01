"""Rewrite every golden `.expected` file from the real `scigame lint`.

    python tests/golden/regenerate.py

Run it from the repository root (any folder works) after changing a message,
a span or a card in `tests/golden/bad/`, then review the diff
(`git diff tests/golden`) before committing: every changed line is a change
users will see. `tests/test_golden.py` runs lint the same way (through
`lint_output` below) and compares with these files exactly.

Each `.expected` file holds the output of

    scigame lint --notes --no-color CARD.sci

run inside `tests/golden/bad/` (so paths are bare file names), followed by a
final line `exit: N` with the exit code.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from click.testing import CliRunner

from scigame.cli import main

BAD = Path(__file__).resolve().parent / "bad"
REGENERATE = "python tests/golden/regenerate.py"


def bad_cards() -> list[Path]:
    """Every golden bad card, sorted by name."""
    return sorted(BAD.glob("*.sci"))


def expected_path(card: Path) -> Path:
    return card.with_suffix(".expected")


@contextlib.contextmanager
def _cwd(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def lint_output(card: Path) -> str:
    """`scigame lint --notes --no-color NAME.sci` run in the card's folder,
    plus a final `exit: N` line: the text an `.expected` file holds."""
    with _cwd(card.parent):
        result = CliRunner().invoke(main, ["lint", "--notes", "--no-color", card.name])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise RuntimeError(f"scigame lint crashed on {card.name}") from result.exception
    return f"{result.output}exit: {result.exit_code}\n"


def main_() -> int:
    cards = bad_cards()
    changed = 0
    for card in cards:
        text = lint_output(card)
        target = expected_path(card)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            changed += 1
            print(f"updated {target.relative_to(BAD.parent.parent.parent)}")
    stale = [p for p in BAD.glob("*.expected") if not p.with_suffix(".sci").exists()]
    for p in stale:
        p.unlink()
        print(f"removed {p.name} (no matching card)")
    print(f"{len(cards)} golden cards, {changed} .expected file(s) rewritten, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
