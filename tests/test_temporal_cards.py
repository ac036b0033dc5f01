"""The bundled Temporal cards: anchored, reviewed, eligible only after a model's cutoff, playable."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import scigame
from scigame.cli import main
from scigame.compiler import check_file
from scigame.curation import (ProvenanceDocument, ReviewResult, card_problems, parse_review, sha256_text,
                              source_lines, verify_anchors)
from scigame.runner import EvalConfig, select_temporal
from scigame.worlds import COMMENT_HEAD, card_worlds, comment

REPO = Path(__file__).resolve().parent.parent
TEMPORAL = REPO / "cards" / "temporal"
CARDS = sorted(TEMPORAL.glob("*.sci"))


def dates(card: Path) -> tuple[dt.date, dt.date]:
    """(journal, preprint) as the card's text writes them, read here without the compiler."""
    text = card.read_text(encoding="utf-8")
    got = [dt.date.fromisoformat(re.search(rf"^\s*{key}\s+(\d{{4}}-\d{{2}}-\d{{2}})\s*$", text, re.M).group(1))
           for key in ("published", "preprint")]
    return got[0], got[1]

#: (Dinf, c, b, a) as the fact sheets give them, typed here from the sheets for an independent check.
FITS = {"utd_data_gym": (2.17e5, 1.0308, 2.2895, 0.7004), "utd_data_dmc": (7.98e4, 1.1001, 0.5739, 1.0896)}


def test_at_least_twelve_temporal_families_from_seven_papers():
    result = CliRunner().invoke(main, ["cards", "--format", "json"])
    assert result.exit_code == 0, result.output
    temporal = [e for e in json.loads(result.stdout) if e["collection"] == "temporal"]
    assert len(temporal) >= 12
    assert all(e["errors"] == 0 and e["published"] and e["preprint"] for e in temporal)
    assert {e["name"] for e in temporal} >= set(FITS)
    papers = {check_file(c).card.doi for c in CARDS}
    assert len(papers) >= 7, papers
    for card in CARDS:  # every card has its fact sheet, provenance and review
        for path in (TEMPORAL / "sources" / f"{card.stem}.txt", TEMPORAL / f"{card.stem}.provenance.json",
                     TEMPORAL / f"{card.stem}.review.json"):
            assert path.is_file(), path


def test_every_temporal_card_records_sound_worlds():
    """The `# worlds:` comment matches `scigame worlds`, and no card's worlds differ by more than 10x."""
    for entry in card_worlds(CARDS):
        text = Path(entry.path).read_text(encoding="utf-8")
        assert COMMENT_HEAD in text and comment(entry) in text, f"{entry.name}: run `scigame worlds --format comment`"
        for r in entry.rows:
            assert 0.1 <= r.median <= 10 and not r.magnitude, (entry.name, r.median)


@pytest.mark.parametrize("card", CARDS, ids=lambda p: p.stem)
def test_card_is_anchored_and_accepted(card):
    text = card.read_text(encoding="utf-8")
    source = TEMPORAL / "sources" / f"{card.stem}.txt"
    source_text = source.read_text(encoding="utf-8")
    result = check_file(card)
    assert result.ok and not result.warnings, [d.message for d in result.diagnostics]
    assert card_problems(text, str(card)) == []

    prov = ProvenanceDocument.model_validate_json((TEMPORAL / f"{card.stem}.provenance.json").read_text())
    assert prov.card == card.stem and prov.source.sha256 == sha256_text(source_text)
    assert prov.source.lines == len(source_lines(source_text))
    assert verify_anchors(text, prov.provenance, source_lines(source_text)) == []

    review = ReviewResult.model_validate_json((TEMPORAL / f"{card.stem}.review.json").read_text())
    assert review.source.sha256 == sha256_text(source_text)
    assert review.accepted and review.lint == card_problems(text, str(card))
    reply, why = parse_review(json.dumps({"verdict": review.verdict, "reasons": review.reasons,
                                          "checks": review.checks}))
    assert reply is not None, why  # the same rules `scigame review` applies to a reply


def test_fact_sheets_are_not_copies_of_the_packets():
    packets = Path("/work/shared/temporal-sources")
    if not packets.is_dir():
        pytest.skip("the source packets are not on this machine")
    packet_lines = {line.strip() for p in packets.glob("*.txt") for line in p.read_text().splitlines()
                    if len(line.strip()) > 40}
    for sheet in (TEMPORAL / "sources").glob("*.txt"):
        assert not packet_lines & {line.strip() for line in sheet.read_text().splitlines()}, sheet


@pytest.mark.parametrize("name", sorted(FITS))
def test_law_matches_the_fitted_form(name):
    """D = median * (c + (sigma/b)^-a) with median = Dinf / c (code form of the source's fit)."""
    dinf, c, b, a = FITS[name]
    card = check_file(TEMPORAL / f"{name}.sci").card
    sigma = np.array([0.25, 1.0, 2.0, 16.0])
    got = card.original.evaluate(card, {"sigma": sigma})["D"]
    want = [dinf / c * (c + (s / b) ** -a) for s in sigma]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the printed rounding of the notebook would differ by up to c - 1 in the power term
    printed = [dinf * (1 + (s / b) ** -a) for s in sigma]
    assert not np.allclose(got, printed, rtol=1e-3)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    return [scigame.load_card(p, cache_dir=cache) for p in CARDS]


@pytest.mark.parametrize(("model", "cutoff"), [
    ("gpt-4o", "2023-10-01"),       # bundled registry
    ("gpt-5", "2024-09-30"),        # bundled registry
    ("early-2025", "2025-01-04"),   # the day before the earliest preprint (2025-01-05)
    ("on-utd-preprint", "2025-02-06"),
    ("spring-2025", "2025-04-10"),
    ("after-all", "2025-12-02"),
])
def test_cutoff_filter(compiled, tmp_path, model, cutoff):
    llm = {}
    if not model.startswith("gpt-"):
        (tmp_path / "models.json").write_text(json.dumps({"models": [{"name": model, "knowledge_cutoff": cutoff}]}))
        llm = {"models": str(tmp_path / "models.json")}
    selected, excluded = select_temporal(compiled, f"openai:{model}", EvalConfig(paths=[], llm=llm))
    limit = dt.date.fromisoformat(cutoff)
    want = {c.stem for c in CARDS if min(dates(c)) > limit}  # both dates strictly after the cutoff
    assert {c.name for c in selected} == want
    assert {name for name, _ in excluded} == {c.stem for c in CARDS} - want
    assert all("is not after the cutoff" in why for _, why in excluded)


def _eval(tmp_path, window, out):
    return CliRunner().invoke(main, [
        "eval", str(TEMPORAL), "--window", window, "--player", "baseline", "--setting", "discovery",
        "--protocol", "fixed", "--env", "all", "--reps", "1", "--budget", "4", "--out", str(tmp_path / out), "--quiet"])


@pytest.mark.parametrize("window", ["2025-03-01..2025-11-30", "2025-02-01..2025-10-31"])
def test_eval_window_keeps_cards_by_their_dates(tmp_path, window):
    """`scigame eval cards/temporal --window FROM..TO` plays exactly the cards whose two dates are in it."""
    lo, hi = (dt.date.fromisoformat(x) for x in window.split(".."))
    want = {c.stem for c in CARDS if all(lo <= d <= hi for d in dates(c))}
    assert want and want != {c.stem for c in CARDS}  # the window keeps some cards and drops others
    result = _eval(tmp_path, window, "run")
    assert result.exit_code == 0, result.output
    assert f"{2 * len(want)} played" in result.output, result.output  # both worlds of each kept card
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    excluded = {name: why for name, why in config["excluded_temporal"]}
    assert set(excluded) == {c.stem for c in CARDS} - want
    assert all(why == f"outside the window {window}" for why in excluded.values())
    report = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--format", "json"])
    assert report.exit_code == 0, report.output
    for name in want:
        assert name in report.stdout


def test_eval_window_before_every_card_plays_none(tmp_path):
    result = _eval(tmp_path, "..2024-12-31", "none")
    assert f"{len(CARDS)} Temporal card(s) excluded" in result.output


def test_collections_doc_lists_every_temporal_card_and_its_worlds():
    docs = (REPO / "docs" / "collections.md").read_text(encoding="utf-8")
    for card in CARDS:
        published, preprint = dates(card)
        assert f"| `{card.stem}` |" in docs and f"{preprint} | {published}" in docs, card.stem
    result = CliRunner().invoke(main, ["worlds", "--format", "markdown", str(TEMPORAL)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() in docs, "regenerate: scigame worlds --format markdown cards/temporal"
