"""Run `scigame lint --format json` on a deliberately bad card and print the findings.

Run from the repository root:

    python examples/lint_json.py

The card is written to a temporary folder (nothing is left behind). It is a
shortened examples/write_a_card/hooke.sci with three mistakes: a
resolution coarser than the tolerance (W200), a domain written the wrong way
round (E500), and an exponent change without `rebalance` (E403).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

BAD_CARD = '''\
card hooke "Hooke's law for a coil spring" {
  collection historical
  source     "R. Hooke, Lectures de Potentia Restitutiva, or of Spring (1678)"
  background "A spring is stretched by a chosen distance; a load cell reads its force."

  input  x [mm] in 50 .. 5
  output F [N]  resolution 0.01 tolerance abs 0.005 rel 1%

  param k = 250 [N/m]
  param n = 1

  law F = k * x^n

  counterfactual "exponent change: force grows with the square of the extension" {
    set n = 2
  }
}
'''


def lint_json(path: Path) -> tuple[int, list[dict]]:
    """Run the linter as a separate process, as an editor or CI job would.

    `python -m scigame.cli` is the same program as the `scigame` command, and
    works even when the venv's bin folder is not on PATH.
    """
    proc = subprocess.run([sys.executable, "-m", "scigame.cli", "lint", "--format", "json", str(path)],
                          capture_output=True, text=True)
    return proc.returncode, json.loads(proc.stdout)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hooke.sci"
        path.write_text(BAD_CARD, encoding="utf-8")
        status, findings = lint_json(path)

    print(f"scigame lint exited with status {status} (1 means: errors found)")
    print(f"{len(findings)} findings:")
    for f in findings:
        print(f"\n{f['severity']} {f['code']} at line {f['line']}, column {f['column']} "
              f"(to line {f['end']['line']}, column {f['end']['column']}):")
        print(f"  {f['message']}")
        for note in f["notes"]:
            print(f"  note: {note}")
        for hint in f["hints"]:
            print(f"  help: {hint}")
        for place in f["related"]:
            print(f"  see line {place['line']}, column {place['column']}: {place['message']}")

    errors = sorted({f["code"] for f in findings if f["severity"] == "error"})
    print(f"\nerror codes: {', '.join(errors)}")
    # The example itself succeeds when lint behaved as expected on the bad card.
    return 0 if status == 1 and errors else 1


if __name__ == "__main__":
    sys.exit(main())
