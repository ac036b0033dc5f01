"""Cutoff-aware selection of Temporal cards, and --window."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import scigame
from scigame.cli import main
from scigame.collection import after_cutoff, in_window, parse_window
from scigame.runner import EvalConfig, select_temporal
from scigame.testing.fake_openai import FakeOpenAI
from scigame.testing.responders import scientist

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = (REPO / "cards/historical/gravitation.sci").read_text()


def temporal_card(folder: Path, name: str, published: str | None, preprint: str | None) -> Path:
    text = GRAVITATION.replace("card gravitation", f"card {name}").replace(
        "collection historical", "collection temporal\n  doi \"10.0000/test\"")
    dates = (f"  published {published}\n" if published else "") + (f"  preprint {preprint}\n" if preprint else "")
    text = text.replace("  field      physics\n", "  field      physics\n" + dates)
    path = folder / f"{name}.sci"
    path.write_text(text)
    return path


CARDS = {  # name: (published, preprint)
    "both_after": ("2025-03-01", "2024-11-15"),
    "preprint_before": ("2025-03-01", "2024-05-01"),   # first preprint before the cutoff
    "journal_on_cutoff": ("2024-09-30", "2024-10-02"),  # on the cutoff day is not after it
    "late": ("2026-02-01", "2025-12-01"),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("temporal")
    for name, (pub, pre) in CARDS.items():
        temporal_card(d, name, pub, pre)
    (d / "gravitation.sci").write_text(GRAVITATION)
    registry = {"models": [{"name": "m-2024", "knowledge_cutoff": "2024-09-30"},
                           {"name": "m-2026", "knowledge_cutoff": "2026-01-15"}]}
    (d / "models.json").write_text(json.dumps(registry))
    return d


@pytest.fixture(scope="module")
def compiled(folder):
    return [scigame.load_card(p, cache_dir=folder / "cache") for p in sorted(folder.glob("*.sci"))]


def names(cards):
    return sorted(c.name for c in cards)


def test_rules():
    cutoff = dt.date(2024, 9, 30)
    assert after_cutoff("2025-03-01", "2024-11-15", cutoff) == (True, "")
    assert not after_cutoff("2025-03-01", "2024-05-01", cutoff)[0]
    assert not after_cutoff("2024-09-30", "2024-10-02", cutoff)[0]
    assert not after_cutoff(None, "2025-01-01", cutoff)[0]
    assert not after_cutoff("2025-03-01", "2025-01-01", None)[0]
    assert parse_window("2025-01-01..") == (dt.date(2025, 1, 1), None)
    assert in_window("2025-03-01", "2024-11-15", parse_window("2024-11-01..2025-12-31"))
    assert not in_window("2025-03-01", "2024-11-15", parse_window("2025-01-01.."))
    with pytest.raises(ValueError):
        parse_window("2025")


@pytest.mark.parametrize(("model", "kept"), [
    ("m-2024", ["both_after", "gravitation", "late"]),
    ("m-2026", ["gravitation"]),        # only `late` has a journal date after 2026-01-15, its preprint is not
    ("unknown-model", ["gravitation"]),  # no cutoff known: every Temporal card is excluded
])
def test_cutoff_excludes_exactly_the_right_cards(compiled, folder, model, kept):
    cfg = EvalConfig(paths=[], llm={"models": str(folder / "models.json")})
    selected, excluded = select_temporal(compiled, f"openai:{model}", cfg)
    assert names(selected) == kept
    assert sorted(n for n, _ in excluded) == sorted(set(names(compiled)) - set(kept))
    reasons = dict(excluded)
    if model == "m-2024":
        assert "preprint date 2024-05-01 is not after the cutoff 2024-09-30" in reasons["preprint_before"]
        assert "journal date 2024-09-30" in reasons["journal_on_cutoff"]


def test_baseline_is_not_filtered_but_window_applies(compiled):
    assert len(select_temporal(compiled, "baseline", EvalConfig(paths=[]))[0]) == 5
    kept, excluded = select_temporal(compiled, "baseline", EvalConfig(paths=[], window="2025-06-01.."))
    assert names(kept) == ["gravitation", "late"]
    assert all("outside the window" in why for _, why in excluded)


def test_eval_reports_exclusions(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIGAME_TEST_KEY", "k")
    with FakeOpenAI(scientist, api_key=None) as server:
        result = CliRunner().invoke(main, [
            "eval", *[str(folder / f"{n}.sci") for n in CARDS], "--player", "openai:m-2024",
            "--models", str(folder / "models.json"), "--base-url", server.base_url,
            "--api-key-env", "SCIGAME_TEST_KEY", "--setting", "discovery", "--protocol", "prior",
            "--env", "original", "--reps", "1", "--out", str(tmp_path / "run"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "2 Temporal card(s) excluded" in result.output
    assert "2 played" in result.output
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert sorted(n for n, _ in config["excluded_temporal"]) == ["journal_on_cutoff", "preprint_before"]
