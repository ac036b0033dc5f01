"""Summaries of a run: ESR, PS and counts by collection × setting ×
environment × protocol (× budget), from the store's rows.

Counts are reported apart and never folded into a mean silently:
  finished      episodes with an outcome (unfinished ones are listed apart)
  valid/invalid submissions whose predictor validated / did not
  missing       no submission at all
  undetermined  weak passes whose strict verdict sympy could not reach in time;
                they are left out of the strict ESR's denominator
Mean PS is over finished episodes, an invalid or missing answer counting 0.
Mean form credit (1 - normalised tree edit distance between the submitted
formula and the law, scigame.form_credit) likewise, an invalid or missing
answer counting 0; episodes recorded before form credit existed are left out.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path

GROUP = ("player", "collection", "setting", "environment", "protocol", "budget")
COLUMNS = GROUP + ("episodes", "finished", "unfinished", "weak_esr", "strict_esr", "mean_ps",
                   "mean_form_credit", "valid",
                   "invalid", "missing", "undetermined", "protocol_breaks", "mean_ses", "judged",
                   "input_tokens", "output_tokens", "cost_usd")

_KEY = ("card_hash", "environment", "setting", "protocol", "budget", "repetition", "player")


def episode_ses(judgements: list[dict]) -> dict[tuple, float]:
    """Each judged episode's SES, averaged over its judges (null SES left out)."""
    per: dict[tuple, list[float]] = defaultdict(list)
    for j in judgements:
        if j["ses"] is not None:
            per[tuple(j[k] for k in _KEY)].append(j["ses"])
    return {k: sum(v) / len(v) for k, v in per.items()}


def current_rows(rows: list[dict]) -> tuple[list[dict], int]:
    """Rows of each card's latest version (by when its episodes were
    written); episodes of earlier, edited versions are left out and counted."""
    latest: dict[str, tuple[float, str]] = {}
    for r in rows:
        if r["card"] not in latest or r["written_at"] > latest[r["card"]][0]:
            latest[r["card"]] = (r["written_at"], r["card_hash"])
    kept = [r for r in rows if r["card_hash"] == latest[r["card"]][1]]
    return kept, len(rows) - len(kept)


def summarize(rows: list[dict], judgements: list[dict] | None = None) -> list[dict]:
    ses = episode_ses(judgements or [])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in GROUP)].append(r)
    out = []
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        rs = groups[key]
        done = [r for r in rs if r["status"] == "finished"]
        decided = [r for r in done if r["strict_success"] is not None]
        n = len(done)
        out.append({
            **dict(zip(GROUP, key)),
            "episodes": len(rs),
            "finished": n,
            "unfinished": len(rs) - n,
            "weak_esr": sum(r["weak_success"] for r in done) / n if n else None,
            "strict_esr": sum(r["strict_success"] for r in decided) / len(decided) if decided else None,
            "mean_ps": sum(r["ps"] for r in done) / n if n else None,
            "mean_form_credit": mean_form_credit(done),
            "valid": sum(1 for r in done if r["valid"]),
            "invalid": sum(1 for r in done if r["submitted"] and not r["valid"]),
            "missing": sum(1 for r in done if not r["submitted"]),
            "undetermined": n - len(decided),
            "protocol_breaks": sum(1 for r in done if not r["protocol_ok"]),
            **_ses_columns([ses[k] for k in (tuple(r[c] for c in _KEY) for r in done) if k in ses]),
            "input_tokens": sum(r["input_tokens"] or 0 for r in done),
            "output_tokens": sum(r["output_tokens"] or 0 for r in done),
            "cost_usd": sum(r["cost_usd"] or 0.0 for r in done),
        })
    return out


def form_credit(row: dict) -> float | None:
    """An episode's form credit, from its stored record (None if it has none)."""
    record = row.get("record")
    if not record:
        return None
    outcome = json.loads(record).get("outcome") or {}
    return outcome.get("form_credit")


def mean_form_credit(rows: list[dict]) -> float | None:
    values = [v for v in map(form_credit, rows) if v is not None]
    return sum(values) / len(values) if values else None


def _ses_columns(values: list[float]) -> dict:
    return {"mean_ses": sum(values) / len(values) if values else None, "judged": len(values)}


def failure_counts(rows: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        if r["status"] == "finished" and r["failure_mode"]:
            counts[r["failure_mode"]] += 1
    return dict(sorted(counts.items()))


def write_summary(folder: Path, rows: list[dict], judgements: list[dict] | None = None) -> list[dict]:
    table = summarize(rows, judgements)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(table)
    (folder / "summary.csv").write_text(buf.getvalue())
    (folder / "summary.json").write_text(json.dumps(
        {"groups": table, "failure_modes": failure_counts(rows), "usage": usage_table(rows)}, indent=2))
    return table


def per_card(rows: list[dict]) -> list[dict]:
    """Weak and strict ESR per card × setting × environment (all protocols)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] == "finished":
            groups[(r["card"], r["setting"], r["environment"])].append(r)
    out = []
    for (card, setting, env), rs in sorted(groups.items()):
        decided = [r for r in rs if r["strict_success"] is not None]
        out.append({"card": card, "setting": setting, "environment": env, "episodes": len(rs),
                    "weak_esr": sum(r["weak_success"] for r in rs) / len(rs),
                    "strict_esr": (sum(r["strict_success"] for r in decided) / len(decided)) if decided else None,
                    "mean_ps": sum(r["ps"] for r in rs) / len(rs),
                    "mean_form_credit": mean_form_credit(rs)})
    return out


def usage_table(rows: list[dict]) -> list[dict]:
    """Tokens and dollars by player and protocol (all episodes, finished or not)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["player"], r["protocol"])].append(r)
    return [{"player": player, "protocol": protocol, "episodes": len(rs),
             "input_tokens": sum(r["input_tokens"] or 0 for r in rs),
             "output_tokens": sum(r["output_tokens"] or 0 for r in rs),
             "cost_usd": sum(r["cost_usd"] or 0.0 for r in rs)}
            for (player, protocol), rs in sorted(groups.items())]
