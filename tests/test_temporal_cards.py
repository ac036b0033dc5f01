"""The bundled Temporal cards: anchored, reviewed, eligible only after a model's cutoff, playable."""

from __future__ import annotations

import json
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

REPO = Path(__file__).resolve().parent.parent
TEMPORAL = REPO / "cards" / "temporal"
CARDS = sorted(TEMPORAL.glob("*.sci"))

#: (Dinf, c, b, a) as the fact sheets give them, typed here from the sheets for an independent check.
FITS = {"utd_data_gym": (2.17e5, 1.0308, 2.2895, 0.7004), "utd_data_dmc": (7.98e4, 1.1001, 0.5739, 1.0896)}


def test_at_least_two_temporal_cards_are_listed():
    result = CliRunner().invoke(main, ["cards", "--format", "json"])
    assert result.exit_code == 0, result.output
    temporal = [e for e in json.loads(result.stdout) if e["collection"] == "temporal"]
    assert len(temporal) >= 2
    assert all(e["errors"] == 0 and e["published"] and e["preprint"] for e in temporal)
    assert {e["name"] for e in temporal} >= set(FITS)


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


@pytest.mark.parametrize(("model", "registry", "kept"), [
    ("gpt-4o", None, True),       # bundled registry: cutoff 2023-10-01
    ("gpt-5", None, True),        # bundled registry: cutoff 2024-09-30
    ("after-preprint", {"name": "after-preprint", "knowledge_cutoff": "2025-03-01"}, False),
    ("on-preprint-day", {"name": "on-preprint-day", "knowledge_cutoff": "2025-02-06"}, False),
    ("day-before", {"name": "day-before", "knowledge_cutoff": "2025-02-05"}, True),
])
def test_cutoff_filter(compiled, tmp_path, model, registry, kept):
    llm = {}
    if registry is not None:
        (tmp_path / "models.json").write_text(json.dumps({"models": [registry]}))
        llm = {"models": str(tmp_path / "models.json")}
    selected, excluded = select_temporal(compiled, f"openai:{model}", EvalConfig(paths=[], llm=llm))
    if kept:
        assert sorted(c.name for c in selected) == sorted(c.name for c in compiled) and not excluded
    else:
        assert not selected
        assert all("preprint date 2025-02-06 is not after the cutoff" in why for _, why in excluded)


def test_eval_window_plays_them(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "eval", str(TEMPORAL), "--window", "2025-01-01..", "--player", "baseline", "--setting", "discovery",
        "--protocol", "fixed", "--env", "all", "--reps", "1", "--budget", "4", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"{2 * len(CARDS)} played" in result.output, result.output  # both worlds of each card
    report = CliRunner().invoke(main, ["report", str(out), "--format", "json"])
    assert report.exit_code == 0, report.output
    for card in CARDS:
        assert card.stem in report.stdout
    empty = CliRunner().invoke(main, ["eval", str(TEMPORAL), "--window", "..2024-12-31", "--player", "baseline",
                                      "--setting", "discovery", "--protocol", "fixed", "--env", "original",
                                      "--reps", "1", "--out", str(tmp_path / "none"), "--quiet"])
    assert "excluded" in empty.output
