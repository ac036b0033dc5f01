"""The strict matcher on generated forms of every bundled card's laws (both
worlds) and of a table of textbook laws: equivalent rewrites must be strict,
wrong-but-close variants must not, and almost nothing may stay undecided.
`benchmarks/strict_suite.py` prints the same confusion table with timings."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scigame.symbolic import strict_match
from scigame.testing.strict_forms import card_cases, textbook_cases

REPO = Path(__file__).resolve().parent.parent
CARDS = sorted((REPO / "cards/historical").glob("*.sci"))


def _confusion(cases):
    table, wrong = Counter(), []
    for c in cases:
        verdict = strict_match(c.candidate, c.reference, list(c.variables), c.rel_tol, timeout=10.0)
        table[(c.expected, verdict.strict)] += 1
        if verdict.strict is not c.expected:
            wrong.append(f"{c.law_id} [{c.kind}]: {verdict.reason[:160]}")
    return table, wrong


@pytest.mark.parametrize("source", ["cards", "textbook"])
def test_no_false_verdicts(source, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SCIGAME_CACHE", str(tmp_path_factory.mktemp("cache")))
    cases = list(card_cases(CARDS) if source == "cards" else textbook_cases())
    kinds = Counter(c.kind for c in cases)
    # the suite is not vacuous: every card and every kind of form is in it
    assert len({c.law_id.split("/")[0] for c in cases}) >= (25 if source == "cards" else 30)
    for kind in ("expand", "factor", "exponent off by 1%", "tiny extra term",
                 "constant outside the tolerance", "constants rounded", "pi or unit factor moved",
                 "scale out of a root, rounded"):
        assert kinds[kind] > 0, kind
    table, wrong = _confusion(cases)
    false_negatives, false_positives = table[(True, False)], table[(False, True)]
    undecided = table[(True, None)] + table[(False, None)]
    assert false_negatives == 0 and false_positives == 0, "\n".join(wrong)
    assert undecided <= 0.01 * len(cases), "\n".join(wrong)
    assert sum(table.values()) == len(cases) and table[(True, True)] > 100
