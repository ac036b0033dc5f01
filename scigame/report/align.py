"""What two runs share and what they do not, said before they are compared.

The report compares columns (players, or one player's run folders) only
on the cells and cards both have (`tables.compare_rows`); this module says
exactly what lies outside that: cards only one column played, cells only
one has, cards whose text differs between the runs, and the seeds and
controls each run was played with.
"""

from __future__ import annotations

from itertools import combinations

from ..summary import CONTROLS
from .data import Runs


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(items, most: int = 8) -> str:
    items = sorted(map(str, items))
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _seeds(runs: Runs, label: str) -> set:
    folders = set(runs.folders.get(label, []))
    return {i.get("config", {}).get("seed") for p in runs.provenance if p.folder in folders
            for i in p.invocations if i.get("player") and i.get("config")}


def _cell(row: dict, cell_axes) -> str:
    return " ".join(str(row.get(a)) for a in cell_axes)


def differences(runs: Runs) -> list[str]:
    """One paragraph per pair of columns: what they share and what differs."""
    cell_axes = [a for a in runs.axes if a != "player"]
    done = [r for r in runs.rows if r["status"] == "finished"]
    cards = {p: {r["card"] for r in done if r["player"] == p} for p in runs.players}
    cells = {p: {_cell(r, cell_axes) for r in done if r["player"] == p} for p in runs.players}
    hashes = {p: {(r["card"], r["card_hash"]) for r in done if r["player"] == p} for p in runs.players}
    out = []
    for a, b in combinations(runs.players, 2):
        shared = cards[a] & cards[b]
        parts = [f"{a} and {b} share {plural(len(shared), 'card')} and {plural(len(cells[a] & cells[b]), 'cell')}"]
        for x, y in ((a, b), (b, a)):
            if cards[x] - cards[y]:
                parts.append(f"{plural(len(cards[x] - cards[y]), 'card')} only in {x} ({_names(cards[x] - cards[y])})")
            if cells[x] - cells[y]:
                parts.append(f"{plural(len(cells[x] - cells[y]), 'cell')} only in {x} ({_names(cells[x] - cells[y], 3)})")
        edited = {c for c, h in hashes[a] ^ hashes[b] if c in shared}
        if edited:
            parts.append(f"{plural(len(edited), 'shared card')} differ in their text ({_names(edited)})")
        seeds = (_seeds(runs, a), _seeds(runs, b))
        if seeds[0] and seeds[1] and seeds[0] != seeds[1]:
            parts.append(f"seeds differ ({a}: {_names(seeds[0])}; {b}: {_names(seeds[1])})")
        for control in CONTROLS:
            values = [{str(r.get(control, CONTROLS[control])) for r in done if r["player"] == p} for p in (a, b)]
            if values[0] != values[1]:
                parts.append(f"{control} differs ({a}: {_names(values[0])}; {b}: {_names(values[1])})")
        if len(parts) == 1:
            parts.append("nothing else differs")
        out.append("; ".join(parts) + ". Comparisons use the shared cells and cards only.")
    return out
