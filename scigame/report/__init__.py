"""`scigame report RUN_DIR [RUN_DIR ...]`: the tables, figures and HTML page
researchers publish, from one or more run folders side by side.

    data       read and pool the run folders (rows, episodes, cards, provenance)
    (intervals: scigame/intervals.py, aggregated in scigame/summary.py)
    tables     Table 2, 6, 7 analogues, failure modes, per card
    formats    text, Markdown, LaTeX, CSV, JSON
    plots      the figures (matplotlib): SVG for the page, PNG for --plots
    html       the self-contained page
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from ..summary import failure_counts, judge_failure_counts, judge_usage, per_card, summarize, usage_table
from .data import RunFolderError, Runs, load_runs
from .formats import FORMATS, render, to_json_tables
from .side_by_side import collections_table
from .tables import (TABLES, Table, cards_table, compare_table, failures_table, main_table, usage_tab,
                     weak_strict_table)

__all__ = ["FORMATS", "TABLES", "RunFolderError", "Runs", "build_tables", "load_runs", "render",
           "report_json", "write_html"]


def build_tables(runs: Runs) -> dict[str, Table]:
    """Every table of the report, by name (here, not in tables.py: the
    collections table of side_by_side.py builds on tables.py)."""
    tables = [main_table(runs), weak_strict_table(runs), usage_tab(runs), failures_table(runs), cards_table(runs),
              collections_table(runs)]
    if len(runs.players) > 1:
        tables.insert(1, compare_table(runs))
    return {t.name: t for t in tables}


def report_json(runs: Runs, tables: dict[str, Table]) -> dict:
    """Everything for scripts: the summary rows `scigame eval` writes (one
    aggregation), the report's tables with intervals, and the provenance."""
    from ..llm.judge import agreement
    judges = {j["judge"] for j in runs.judgements}
    return {"groups": summarize(runs.rows, runs.judgements, runs.axes), "cards": per_card(runs.rows),
            "failure_modes": failure_counts(runs.rows),
            "judge_failure_modes": judge_failure_counts(runs.judgements),
            "judge_agreement": agreement(runs.judgements) if len(judges) > 1 else {},
            "usage": usage_table(runs.rows), "judge_usage": judge_usage(runs.judgements),
            "stale_episodes": sum(p.stale for p in runs.provenance),
            # every folder's spend added up (each folder's own is in its provenance)
            "spend": {k: sum(p.spend.get(k, 0) for p in runs.provenance)
                      for k in dict.fromkeys(k for p in runs.provenance for k in p.spend)},
            "tables": to_json_tables(list(tables.values())),
            "provenance": [asdict(p) for p in runs.provenance]}


def write_html(runs: Runs, tables: dict[str, Table], path: Path, title: str | None = None) -> Path:
    from .html import render_html
    from .plots import build_figures, close
    figures = build_figures(runs, tables)
    try:
        text = render_html(runs, tables, figures, title)
    finally:
        close(figures)
    from ..compiler.atomic import write_atomic
    return write_atomic(path, text)  # a report killed mid-write leaves the old page whole
