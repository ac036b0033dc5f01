"""The report's tables, built once from the pooled runs and rendered by
`formats` (text, markdown, LaTeX, CSV, JSON) and `html`.

    main         analogue of the paper's Table 2: strict ESR, mean PS, SES (and
                 form credit) per cell of every axis, players side by side,
                 with the cards, repetitions and identical-repetition cards
                 behind each interval and the counts of valid, invalid,
                 missing and undetermined answers
    compare      each pair of players (runs) in each cell they share,
                 paired by card (with two or more players)
    weak_strict  analogue of Table 7: weak against strict ESR
    usage        analogue of Table 6: tokens and dollars per protocol and player, judges included
    failures     the numbers of the paper's Figure 6: failure modes per player
    cards        ESR and PS per card, setting, world, protocol and player
    collections  Historical and Temporal side by side (report/side_by_side.py)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..intervals import ALPHA
from ..summary import EXTRA_SCORES, cells, failures_by_player, paired_comparisons, usage_by_who
from .align import differences
from .data import Runs

TABLES = ("main", "compare", "weak_strict", "usage", "failures", "cards", "collections")


@dataclass
class Column:
    key: str
    label: str
    kind: str = "text"  # text | int | rate | mean | usd | diff | p
    legend: str = ""  # what an abbreviated label means, printed under the table
    axis: bool = False  # names the row (a text table too wide repeats it in every part)


@dataclass
class Table:
    name: str
    title: str
    columns: list[Column]
    rows: list[dict]
    notes: list[str] = field(default_factory=list)
    listing: bool = False  # as text: one wrapped paragraph per row rather than a grid (long formulas)


_AXIS_LABELS = {"player": "player", "collection": "collection", "setting": "setting",
                "environment": "world", "protocol": "protocol", "budget": "B"}


_BUDGET = "budget: the Fixed protocol's observations, the Adaptive step cap, 0 for Prior"


def _axis_columns(names) -> list[Column]:
    return [Column(a, _AXIS_LABELS.get(a, a.replace("_", " ")), "int" if a == "budget" else "text",
                   _BUDGET if a == "budget" else "", axis=True) for a in names]


EXTRA_LABELS = (("PS ood", "mean PS on the out-of-domain set"), ("weak ood", "weak ESR on the out-of-domain set"),
                ("PS sys", "mean PS of the observables the submitted law implies (system cards)"),
                ("weak sys", "weak ESR of the observables the submitted law implies (system cards)"))


def _cells(runs: Runs, group: tuple[str, ...]) -> list[dict]:
    """The summary rows of `group` with their samples and intervals (`summary.cells`)."""
    return cells(runs.rows, runs.judgements, group)


def compare_rows(runs: Runs, cell_axes: tuple[str, ...]) -> list[dict]:
    """The paired comparisons of the runs' players (`summary.paired_comparisons`)."""
    return paired_comparisons(runs.rows, runs.players, cell_axes)


def _compare_notes(rows: list[dict], cell_axes: tuple[str, ...]) -> list[str]:
    """One note per pair of players and metric: in which shared cells they are apart."""
    notes = []
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["a"], r["b"], r["metric"])].append(r)
    for (a, b, metric), rs in groups.items():
        apart = [r for r in rs if r["apart"] == "apart"]
        text = (f"{metric}, {a} against {b}, paired by card: apart in {len(apart)} of {len(rs)} shared cells "
                f"(Wilcoxon signed-rank test, Holm-adjusted p < {ALPHA:.2f})")
        if apart:
            text += ": " + "; ".join(
                " ".join(str(r[k]) for k in cell_axes) + f" ({r['difference']:+.3f}, p {r['p_holm']:.3g})"
                for r in apart)
        else:
            text += "; no difference there is significant over the cards they share"
        notes.append(text + ".")
    return notes


#: The count columns of the main table, with what each abbreviation means.
COUNTS = (("valid", "valid", "valid predictors"), ("invalid", "inv.", "invalid predictors (PS 0)"),
          ("missing", "miss.", "no submission (PS 0)"),
          ("undetermined", "undet.", "strict verdict not reached in time (left out of strict ESR)"),
          ("protocol_breaks", "breaks", "episodes that broke their protocol (fail ESR)"),
          ("unfinished", "unfin.", "episodes without an outcome"))


def sample_columns() -> list[Column]:
    """How many cards a cell holds, how often each was played, and how many gave identical repetitions."""
    return [Column("cards", "cards", "int", "the cell's cards, the unit of every interval"),
            Column("reps", "reps", "int", "repetitions per card"),
            Column("identical", "same", "int", "cards whose repetitions all gave the same outcome"),
            Column("finished", "eps.", "int", "finished episodes")]


def main_table(runs: Runs) -> Table:
    axes = runs.axes
    cell_axes = tuple(a for a in axes if a != "player")
    rows = sorted(_cells(runs, axes), key=lambda r: tuple(str(r[a]) for a in cell_axes + ("player",)))
    cols = _axis_columns(cell_axes + ("player",)) + sample_columns() + [
        Column("strict_esr", "strict ESR", "rate"), Column("mean_ps", "mean PS", "mean")]
    if any(r["judged"] for r in rows):
        cols.append(Column("mean_ses", "SES", "mean", "explanation score of the LLM judges"))
    if any("mean_form_credit" in r for r in rows):
        cols.append(Column("mean_form_credit", "form", "mean", "graded form credit"))
    cols += [Column(key, label, "mean" if key.startswith("mean") else "rate", legend)
             for (key, _), (label, legend) in zip(EXTRA_SCORES, EXTRA_LABELS) if any(r.get(key) is not None for r in rows)]
    cols += [Column(k, label, "int", legend) for k, label, legend in COUNTS]
    notes = differences(runs) + _identical_notes(rows) + _compare_notes(compare_rows(runs, cell_axes), cell_axes)
    return Table("main", "Strict ESR, PS and SES per cell (analogue of the paper's Table 2)", cols, rows, notes)


def _identical_notes(rows: list[dict]) -> list[str]:
    """Per player: the cells whose repetitions were identical on every card (they add no evidence)."""
    notes = []
    for player in dict.fromkeys(r["player"] for r in rows):
        mine = [r for r in rows if r["player"] == player and r["reps"] > 1]
        same = [r for r in mine if r["identical"] == r["cards"]]
        if same:
            notes.append(f"{player}: in {len(same)} of {len(mine)} cells with repeated cards every card's "
                         "repetitions gave the same outcome; there n is the cards, and the repetitions add "
                         "no evidence.")
    return notes


def compare_table(runs: Runs) -> Table:
    """Each pair of players (runs) in each shared cell, paired over the cards both played."""
    cell_axes = tuple(a for a in runs.axes if a != "player")
    rows = compare_rows(runs, cell_axes)
    cols = _axis_columns(cell_axes) + [
        Column("a", "run A", axis=True), Column("b", "run B", axis=True), Column("metric", "metric", axis=True),
        Column("shared_cards", "cards", "int", "cards both played in the cell"),
        Column("differing", "diff.", "int", "shared cards whose per-card values differ"),
        Column("value_a", "value A", "mean"), Column("value_b", "value B", "mean"),
        Column("difference", "A − B", "diff", "mean difference over the shared cards, 95% cluster bootstrap"),
        Column("p_holm", "p", "p", "Wilcoxon signed-rank test over the shared cards, Holm-adjusted"),
        Column("apart", "apart")]
    return Table("compare", "Runs compared on the cards they share (paired by card)", cols, rows)


def weak_strict_table(runs: Runs) -> Table:
    group = ("player", "collection", "setting", "environment", "protocol")
    rows = _cells(runs, group)
    for r in rows:
        r["gap"] = (None if r["strict_esr"] is None or r["weak_esr"] is None
                    else r["weak_esr"] - r["strict_esr"])
    cols = _axis_columns(group) + sample_columns() + [
        Column("weak_esr", "weak ESR", "rate"), Column("strict_esr", "strict ESR", "rate"),
        Column("gap", "weak − strict", "rate"), Column(COUNTS[3][0], COUNTS[3][1], "int", COUNTS[3][2])]
    return Table("weak_strict", "Weak against strict ESR, all budgets pooled (analogue of the paper's Table 7)",
                 cols, rows)


def usage_tab(runs: Runs) -> Table:
    rows = usage_by_who(runs.rows, runs.judgements)
    cols = [Column("role", "role"), Column("who", "player or judge"), Column("protocol", "protocol"),
            Column("episodes", "episodes", "int"), Column("input_tokens", "input tokens", "int"),
            Column("output_tokens", "output tokens", "int"), Column("cost_usd", "cost $", "usd")]
    return Table("usage", "Tokens and dollars per protocol (analogue of the paper's Table 6), "
                 "unfinished episodes included", cols, rows)


def failures_table(runs: Runs) -> Table:
    players = runs.players
    rows = failures_by_player(runs.rows, runs.judgements, players)
    cols = [Column("source", "assigned by"), Column("mode", "failure mode")] + [Column(p, p, "int") for p in players]
    return Table("failures", "Failure modes per player (the numbers of the paper's Figure 6)", cols, rows)


def cards_table(runs: Runs) -> Table:
    """Per card, world, setting, protocol and player: successes of episodes (no
    interval: within a card the repetitions are the only sample)."""
    group = ("card", "setting", "environment", "protocol", "player")
    rows = _cells(runs, group)
    for r in rows:
        r["strict_of"], r["weak_of"] = f"{r['strict_k']}/{r['strict_n']}", f"{r['weak_k']}/{r['weak_n']}"
    cols = _axis_columns(group) + [
        Column("strict_of", "strict", "ratio", "strict successes of decided episodes"),
        Column("weak_of", "weak", "ratio", "weak successes of finished episodes"),
        Column("mean_ps", "mean PS", "mean"), Column("identical", "same", "int", "1 when every repetition "
                                                     "gave the same outcome")]
    return Table("cards", "ESR and PS per card, protocols apart", cols, rows)

