"""The report's tables, built once from the pooled runs and rendered by
`formats` (text, markdown, LaTeX, CSV, JSON) and `html`.

    main         Table 2: strict ESR, mean PS, SES (and form credit) per
                 cell of every axis, players side by side, with the counts
                 of valid, invalid, missing and undetermined answers
    weak_strict  Table 7: weak against strict ESR
    usage        Table 6: tokens and dollars per protocol and player, judges included
    failures     Figure 6's numbers: failure modes per player
    cards        ESR and PS per card, setting, world and player
    collections  Historical and Temporal side by side (report/side_by_side.py)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from ..summary import episode_ses, failure_counts, ses_values, judge_failure_counts, judge_usage_table, summarize, usage_table
from .data import Runs
from .intervals import bootstrap_mean, overlap, wilson

TABLES = ("main", "weak_strict", "usage", "failures", "cards", "collections")


@dataclass
class Column:
    key: str
    label: str
    kind: str = "text"  # text | int | rate | mean | usd


@dataclass
class Table:
    name: str
    title: str
    columns: list[Column]
    rows: list[dict]
    notes: list[str] = field(default_factory=list)


_AXIS_LABELS = {"player": "player", "collection": "collection", "setting": "setting",
                "environment": "world", "protocol": "protocol", "budget": "B"}


def _axis_columns(names) -> list[Column]:
    return [Column(a, _AXIS_LABELS.get(a, a.replace("_", " ")), "int" if a == "budget" else "text")
            for a in names]


def _members(rows: list[dict], group: tuple[str, ...]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] == "finished":
            out[tuple(r.get(k) for k in group)].append(r)
    return out


def _cells(runs: Runs, group: tuple[str, ...]) -> list[dict]:
    """summarize()'s rows, with successes and a 95% interval beside every rate and mean."""
    ses = episode_ses(runs.judgements)
    members = _members(runs.rows, group)
    out = []
    for row in summarize(runs.rows, runs.judgements, group):
        done = members.get(tuple(row[k] for k in group), [])
        decided = [r for r in done if r["strict_success"] is not None]
        strict_k = sum(bool(r["strict_success"]) for r in decided)
        weak_k = sum(bool(r["weak_success"]) for r in done)
        row.update(strict_k=strict_k, strict_n=len(decided), weak_k=weak_k, weak_n=len(done),
                   strict_esr_ci=wilson(strict_k, len(decided)), weak_esr_ci=wilson(weak_k, len(done)),
                   mean_ps_ci=bootstrap_mean([r["ps"] for r in done]))
        row["mean_ses_ci"] = bootstrap_mean(ses_values(done, ses))
        if "mean_form_credit" in row:
            row["mean_form_credit_ci"] = bootstrap_mean(
                [r["form_credit"] for r in done if r.get("form_credit") is not None])
        out.append(row)
    return out


def _overlap_notes(rows: list[dict], cell_axes: tuple[str, ...], players: list[str], metric: str,
                   label: str) -> list[str]:
    """One note per pair of players: in how many shared cells their intervals overlap."""
    by = {(tuple(r[a] for a in cell_axes), r["player"]): r for r in rows}
    cells = sorted({k for k, _ in by}, key=lambda k: tuple(map(str, k)))
    notes = []
    for a, b in combinations(players, 2):
        shared = [c for c in cells if (c, a) in by and (c, b) in by
                  and by[(c, a)][metric] is not None and by[(c, b)][metric] is not None]
        if not shared:
            continue
        apart = [c for c in shared if not overlap(by[(c, a)][f"{metric}_ci"], by[(c, b)][f"{metric}_ci"])]
        text = (f"{label}: the 95% intervals of {a} and {b} overlap in {len(shared) - len(apart)} of "
                f"{len(shared)} shared cells; a difference there is not significant at this sample size")
        if apart:
            text += "; they are apart in " + "; ".join(" ".join(str(x) for x in c) for c in apart)
        notes.append(text + ".")
    return notes


def main_table(runs: Runs) -> Table:
    axes = runs.axes
    cell_axes = tuple(a for a in axes if a != "player")
    rows = sorted(_cells(runs, axes), key=lambda r: tuple(str(r[a]) for a in cell_axes + ("player",)))
    cols = _axis_columns(cell_axes + ("player",)) + [
        Column("finished", "n", "int"), Column("strict_esr", "strict ESR", "rate"),
        Column("mean_ps", "mean PS", "mean")]
    if any(r["judged"] for r in rows):
        cols.append(Column("mean_ses", "SES", "mean"))
    if any("mean_form_credit" in r for r in rows):
        cols.append(Column("mean_form_credit", "form credit", "mean"))
    cols += [Column(k, label, "int") for k, label in (
        ("valid", "valid"), ("invalid", "invalid"), ("missing", "missing"), ("undetermined", "undet."),
        ("protocol_breaks", "breaks"), ("unfinished", "unfinished"))]
    notes = (_overlap_notes(rows, cell_axes, runs.players, "strict_esr", "strict ESR")
             + _overlap_notes(rows, cell_axes, runs.players, "mean_ps", "mean PS"))
    return Table("main", "Strict ESR, PS and SES per cell (Table 2)", cols, rows, notes)


def weak_strict_table(runs: Runs) -> Table:
    group = ("player", "collection", "setting", "environment", "protocol")
    rows = _cells(runs, group)
    for r in rows:
        r["gap"] = (None if r["strict_esr"] is None or r["weak_esr"] is None
                    else r["weak_esr"] - r["strict_esr"])
    cols = _axis_columns(group) + [Column("finished", "n", "int"), Column("weak_esr", "weak ESR", "rate"),
                                   Column("strict_esr", "strict ESR", "rate"), Column("gap", "weak − strict", "rate"),
                                   Column("undetermined", "undet.", "int")]
    return Table("weak_strict", "Weak against strict ESR, all budgets pooled (Table 7)", cols, rows)


def usage_tab(runs: Runs) -> Table:
    rows = [{"who": u["player"], "role": "player", **u} for u in usage_table(runs.rows)]
    rows += [{"who": u["judge"], "role": "judge", **u} for u in judge_usage_table(runs.judgements)]
    for who in sorted({(r["role"], r["who"]) for r in rows}):
        mine = [r for r in rows if (r["role"], r["who"]) == who and r["protocol"] != "all"]
        rows.append({"who": who[1], "role": who[0], "protocol": "all", "episodes": sum(r["episodes"] for r in mine),
                     **{k: sum(r[k] for r in mine) for k in ("input_tokens", "output_tokens", "cost_usd")}})
    rows.sort(key=lambda r: (r["role"], r["who"], r["protocol"] == "all", r["protocol"]))
    cols = [Column("role", "role"), Column("who", "player or judge"), Column("protocol", "protocol"),
            Column("episodes", "episodes", "int"), Column("input_tokens", "input tokens", "int"),
            Column("output_tokens", "output tokens", "int"), Column("cost_usd", "cost $", "usd")]
    return Table("usage", "Tokens and dollars per protocol (Table 6), unfinished episodes included", cols, rows)


def failures_table(runs: Runs) -> Table:
    players = runs.players
    per = {p: failure_counts([r for r in runs.rows if r["player"] == p]) for p in players}
    judged = {p: judge_failure_counts([j for j in runs.judgements if j["player"] == p]) for p in players}
    modes = sorted({m for c in per.values() for m in c})
    jmodes = sorted({m for c in judged.values() for m in c})
    rows = [{"source": "outcome", "mode": m, **{p: per[p].get(m, 0) for p in players}} for m in modes]
    rows += [{"source": "judges", "mode": m, **{p: judged[p].get(m, 0) for p in players}} for m in jmodes]
    finished = {p: sum(1 for r in runs.rows if r["player"] == p and r["status"] == "finished") for p in players}
    rows.append({"source": "outcome", "mode": "(finished episodes)", **finished})
    cols = [Column("source", "assigned by"), Column("mode", "failure mode")] + [Column(p, p, "int") for p in players]
    return Table("failures", "Failure modes per player (Figure 6)", cols, rows)


def cards_table(runs: Runs) -> Table:
    group = ("card", "setting", "environment", "player")
    rows = _cells(runs, group)
    cols = _axis_columns(group) + [Column("finished", "n", "int"), Column("strict_esr", "strict ESR", "rate"),
                                   Column("weak_esr", "weak ESR", "rate"), Column("mean_ps", "mean PS", "mean")]
    return Table("cards", "ESR and PS per card", cols, rows)


def build_tables(runs: Runs) -> dict[str, Table]:
    from .side_by_side import collections_table
    return {t.name: t for t in (main_table(runs), weak_strict_table(runs), usage_tab(runs),
                                 failures_table(runs), cards_table(runs), collections_table(runs))}
