"""The strict matcher on a generated suite of equivalent and wrong forms.

    python benchmarks/strict_suite.py [--timeout S] [--only cards|textbook]
                                      [--old COMMIT] [--every N]

Cases come from `scigame.testing.strict_forms`: every law of every bundled
card (cards/historical/*.sci) in both worlds, plus the textbook table, each
rewritten the ways a player might (expected strict true) and spoiled the ways
a near miss looks (expected strict false). Prints the confusion table
(expected x verdict true/false/undecided), the cases that went wrong, and
the time per verdict (median, p95) in this one run.

With --old COMMIT, the same cases are also run through that commit's
`scigame/symbolic.py` (loaded from git as a separate module, e.g. the base
commit 210a75d; both get today's exact law trees), taking turns case by
case, and both tables and the ratio of medians are printed.
--every N keeps every N-th case (a quicker look).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _cases(only: str | None):
    from scigame.testing.strict_forms import card_cases, textbook_cases
    cases = []
    if only in (None, "cards"):
        cases += list(card_cases(sorted((REPO / "cards/historical").glob("*.sci"))))
    if only in (None, "textbook"):
        cases += list(textbook_cases())
    return cases


def _old_matcher(commit: str):
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:scigame/symbolic.py"],
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_symbolic.py"
    path.write_text(text)
    # inside the scigame package, so that its relative imports (.identities,
    # .residue) find today's modules beside it
    spec = importlib.util.spec_from_file_location("scigame.old_symbolic", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["scigame.old_symbolic"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def run(cases, matchers, timeout: float):
    """(table, wrong, times) per matcher; the matchers take turns case by
    case, so that the machine's load falls on all of them alike."""
    results = [(Counter(), [], []) for _ in matchers]
    for c in cases:
        for matcher, (table, wrong, times) in zip(matchers, results):
            variables = [matcher.Variable(v.name, v.lo, v.hi, v.integer) for v in c.variables]
            start = time.perf_counter()
            verdict = matcher.strict_match(c.candidate, c.reference, variables, c.rel_tol,
                                           timeout=timeout)
            times.append(time.perf_counter() - start)
            table[(c.expected, verdict.strict)] += 1
            if verdict.strict is not c.expected:
                wrong.append((c, verdict))
    return results


def report(title: str, table: Counter, wrong, times) -> float:
    print(f"\n== {title}: {sum(table.values())} cases")
    print(f"{'expected':>10} | {'true':>6} {'false':>6} {'undecided':>9}")
    for expected in (True, False):
        row = [table[(expected, v)] for v in (True, False, None)]
        print(f"{str(expected).lower():>10} | {row[0]:>6} {row[1]:>6} {row[2]:>9}")
    fn, fp = table[(True, False)], table[(False, True)]
    undecided = table[(True, None)] + table[(False, None)]
    n = sum(table.values())
    print(f"false negatives {fn}, false positives {fp}, undecided {undecided} "
          f"({100 * undecided / n:.1f}%)")
    median = statistics.median(times)
    p95 = sorted(times)[int(0.95 * (len(times) - 1))]
    print(f"time per verdict: median {median * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms")
    for c, v in wrong[:40]:
        print(f"  {c.law_id} [{c.kind}] expected {c.expected}: {v.reason[:200]}")
    return median


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--only", choices=("cards", "textbook"))
    parser.add_argument("--old", metavar="COMMIT")
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args(argv)
    from scigame import symbolic
    cases = _cases(args.only)[::args.every]
    matchers = [symbolic] + ([_old_matcher(args.old)] if args.old else [])
    results = run(cases, matchers, args.timeout)
    new = report("this matcher", *results[0])
    if args.old:
        old = report(f"matcher of {args.old}", *results[1])
        print(f"\nmedian time per verdict, this / {args.old}: {new / old:.2f} "
              "(the two take turns case by case)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
