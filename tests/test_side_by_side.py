"""Historical and Temporal side by side, in `scigame eval`'s summary and in `scigame report`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.summary import by_collection

REPO = Path(__file__).resolve().parent.parent


def test_by_collection_pivots_each_cell():
    table = [
        {"player": "p", "collection": "historical", "setting": "discovery", "strict_esr": 0.5, "finished": 4},
        {"player": "p", "collection": "temporal", "setting": "discovery", "strict_esr": 0.25, "finished": 8,
         "strict_esr_ci": (0.1, 0.6)},
        {"player": "p", "collection": "historical", "setting": "identification", "strict_esr": 1.0, "finished": 2},
    ]
    rows = by_collection(table, ("finished", "strict_esr"), ("player", "collection", "setting"))
    assert rows == [
        {"player": "p", "setting": "discovery", "historical_finished": 4, "historical_strict_esr": 0.5,
         "temporal_finished": 8, "temporal_strict_esr": 0.25, "temporal_strict_esr_ci": (0.1, 0.6)},
        {"player": "p", "setting": "identification", "historical_finished": 2, "historical_strict_esr": 1.0,
         "temporal_finished": None, "temporal_strict_esr": None},
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "both"
    result = CliRunner().invoke(main, [
        "eval", str(REPO / "cards/historical/pendulum.sci"), str(REPO / "cards/temporal/nmm_moe_loss.sci"),
        "--player", "baseline", "--setting", "discovery", "--protocol", "fixed", "--env", "all", "--reps", "1",
        "--budget", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_eval_prints_and_records_the_collections_side_by_side(run):
    out, printed = run
    assert "Historical and Temporal side by side" in printed
    summary = json.loads((out / "summary.json").read_text())
    groups = summary["groups"]
    pivot = summary["collections"]
    assert len(pivot) == 2  # one row per world, both collections in it
    for row in pivot:
        for collection in ("historical", "temporal"):
            (group,) = [g for g in groups if g["collection"] == collection and g["environment"] == row["environment"]]
            for key in ("finished", "strict_esr", "weak_esr", "mean_ps"):
                assert row[f"{collection}_{key}"] == group[key]
            assert row[f"{collection}_finished"] == 1


def test_report_has_the_collections_table(run):
    out, _ = run
    result = CliRunner().invoke(main, ["report", str(out), "--format", "json", "--table", "collections"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["tables"]["collections"]
    summary = json.loads((out / "summary.json").read_text())["collections"]
    assert len(table["rows"]) == len(summary) == 2
    for row in table["rows"]:
        (mine,) = [s for s in summary if s["environment"] == row["environment"]]
        for collection in ("historical", "temporal"):
            assert row[f"{collection}_strict_esr"] == pytest.approx(mine[f"{collection}_strict_esr"])
            assert row[f"{collection}_strict_esr_lo"] is not None  # the report adds the 95% interval
    text = CliRunner().invoke(main, ["report", str(out), "--format", "markdown", "--table", "collections"])
    assert "| Historical n | Historical strict ESR |" in text.output and "Temporal strict ESR" in text.output
