"""The two worlds of each card side by side (`scigame worlds`): for every
output, the ratio |counterfactual| / |original| over the card's hidden
evaluation set (min, median, max), as lint's W400 measures it, and whether
the card acknowledges a size difference with `magnitude differs`.

The table in `docs/collections.md` and the `# worlds:` comment in every
bundled card are this module's output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

#: The first line of the comment a card carries about its two worlds.
COMMENT_HEAD = "# worlds: counterfactual / original output ratio over the evaluation set"


@dataclass(frozen=True)
class WorldRow:
    card: str
    path: str
    output: str
    low: float
    median: float
    high: float
    magnitude: Optional[str]  # the `magnitude differs` reason, if any

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class CardWorlds:
    path: str
    name: str
    rows: tuple[WorldRow, ...]
    errors: int


def card_worlds(paths: Iterable[Path]) -> list[CardWorlds]:
    """One entry per card file; a card with lint errors has no rows."""
    from .compiler import check_file
    from .compiler.sound_worlds import world_ratios
    out = []
    for p in paths:
        result = check_file(p)
        c = result.card
        if c is None:
            out.append(CardWorlds(str(p), Path(p).stem, (), len(result.errors)))
            continue
        rows = tuple(WorldRow(c.name, str(p), r.output, r.low, r.median, r.high, c.magnitude_reason)
                     for r in world_ratios(c))
        out.append(CardWorlds(str(p), c.name, rows, 0))
    return out


def sig(x: float) -> str:
    """Two significant digits, without an exponent for everyday sizes."""
    return f"{float(f'{x:.2g}'):g}"


def comment(card: CardWorlds, indent: str = "  ") -> str:
    """The `# worlds:` comment for one card, as it appears in the card."""
    lines = [indent + COMMENT_HEAD]
    for r in card.rows:
        lines.append(f"{indent}#   {r.output}: min {sig(r.low)}, median {sig(r.median)}, max {sig(r.high)}")
    return "\n".join(lines)


def markdown(cards: list[CardWorlds]) -> str:
    """A Markdown table, one row per output of every card."""
    lines = ["| card | output | min | median | max | `magnitude differs` |",
             "|---|---|---:|---:|---:|---|"]
    for card in cards:
        if card.errors:
            lines.append(f"| {card.name} | (lint errors: {card.errors}) | | | | |")
        for r in card.rows:
            ack = "yes" if r.magnitude is not None else ""
            lines.append(f"| {r.card} | {r.output} | {sig(r.low)} | {sig(r.median)} | {sig(r.high)} | {ack} |")
    return "\n".join(lines)
