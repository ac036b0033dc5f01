"""What `scigame eval` prints of its own invocation: the report's tables over
the episodes this invocation planned (not the whole folder), the folder's
totals said as such, and with `--by card` each card's verdicts and, for a
failed episode, what was submitted beside the world's law.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..records import EpisodeKey
from .align import plural
from .data import Runs, load_runs
from .formats import render, to_json_tables
from .formula import plain_text
from .tables import Column, Table, cards_table, main_table, usage_tab


@dataclass
class Invocation:
    runs: Runs  # the planned episodes only
    folder_episodes: int  # every current episode in the folder
    folder_cards: int


def invocation_runs(folder: Path, planned: list[tuple]) -> Invocation:
    """The folder's runs, cut down to this invocation's planned episodes."""
    runs = load_runs([folder])
    total, cards = len(runs.rows), len({r["card"] for r in runs.rows})
    wanted = set(planned)
    keys = {id(r): EpisodeKey.row_key(r) for r in runs.rows}
    runs.rows = [r for r in runs.rows if keys[id(r)] in wanted]
    runs.episodes = {k: e for k, e in runs.episodes.items() if e.key.as_tuple() in wanted}
    return Invocation(runs, total, cards)


def folder_line(inv: Invocation, folder: Path) -> str:
    """The folder's totals, said as such (they may include earlier invocations' cards)."""
    mine = len(inv.runs.rows)
    cards = len({r["card"] for r in inv.runs.rows})
    if inv.folder_episodes == mine:
        return f"the run folder {folder} holds these {mine} episodes of {plural(cards, 'card')} and no others"
    return (f"the tables cover this invocation's {mine} episodes of {plural(cards, 'card')}; the run folder {folder} "
            f"holds {inv.folder_episodes} episodes of {plural(inv.folder_cards, 'card')} in all (`scigame report "
            f"{folder}` shows them all)")


def _law(runs: Runs, episode) -> str:
    card = runs.cards.get(episode.key.card_hash)
    if card is None:
        return "the compiled card is not in the run folder"
    env = card.data.environments.get(episode.key.environment)
    return "; ".join(f"{out} = {text}" for out, text in env.law_text.items()) if env else ""


def _submitted(episode) -> str:
    for turn in reversed(episode.turns):
        if turn.action is not None and turn.action.submission is not None:
            return "; ".join(f"{out} = {plain_text(tree)}" for out, tree in turn.action.submission.predictor.items())
    return "nothing"


def failed_table(runs: Runs) -> Table:
    """Every finished episode that failed weak or strict: what it submitted, the law, and why."""
    rows = []
    for e in sorted(runs.episodes.values(), key=lambda e: (e.key.card, e.key.setting, e.key.environment,
                                                           e.key.protocol, e.key.budget, e.key.repetition)):
        o = e.outcome
        if e.status != "finished" or o is None or o.strict_success:
            continue
        rows.append({"card": e.key.card, "setting": e.key.setting, "environment": e.key.environment,
                     "protocol": e.key.protocol, "budget": e.key.budget, "repetition": e.key.repetition,
                     "submitted": _submitted(e), "law": _law(runs, e),
                     "why": o.failure_mode or ("undetermined" if o.strict_success is None else "")})
    cols = [Column(k, label, "int" if k in ("budget", "repetition") else "text", legend, axis=True)
            for k, label, legend in (("card", "card", ""), ("setting", "setting", ""), ("environment", "world", ""),
                                     ("protocol", "protocol", ""), ("budget", "B", ""),
                                     ("repetition", "rep", "repetition"))]
    cols += [Column("submitted", "submitted"), Column("law", "the world's law"), Column("why", "failure mode")]
    return Table("failed", "Failed episodes: what was submitted beside the law", cols, rows, listing=True)


def eval_tables(inv: Invocation, by: str) -> list[Table]:
    """The tables `scigame eval` prints: per cell (the report's main table) or per card."""
    tables = [cards_table(inv.runs), failed_table(inv.runs)] if by == "card" else [main_table(inv.runs)]
    if len({r["collection"] for r in inv.runs.rows}) > 1:  # Historical and Temporal side by side
        from .side_by_side import collections_table
        tables.append(collections_table(inv.runs))
    if any(r["input_tokens"] or r["output_tokens"] for r in inv.runs.rows):
        tables.append(usage_tab(inv.runs))
    return tables


def eval_summary(inv: Invocation, folder: Path, by: str, fmt: str, width: int) -> tuple[str, list[str]]:
    """What `scigame eval` prints of its invocation: the tables in `fmt`
    (as JSON with the folder's line and the failure modes beside them), and
    the lines for people that follow them (failure modes, the folder's totals)."""
    from ..summary import failure_counts

    tables = eval_tables(inv, by)
    failures = failure_counts(inv.runs.rows)
    if fmt == "json":
        text = json.dumps({"tables": to_json_tables(tables), "folder": folder_line(inv, folder),
                           "failure_modes": failures}, indent=2)
    else:
        text = render(tables, fmt, width).rstrip("\n")
    lines = ["failure modes: " + ", ".join(f"{k} {v}" for k, v in failures.items())] if failures else []
    return text, lines + [folder_line(inv, folder)]
