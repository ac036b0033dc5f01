"""The card collections: an index of cards and the Temporal date rules.

`mutation_kind` names the counterfactual's kind from what it changes:
    replaced law                  a `law` or `let` replaced outright
    parameter scaling             `scale P by F`
    interaction term switched on  `set P = ...` where P was 0 in the original
    exponent or coefficient change   any other `set` (often with `rebalance`)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

MUTATION_KINDS = ("exponent or coefficient change", "parameter scaling",
                  "interaction term switched on", "replaced law")


def mutation_kind(card) -> str:
    """The kind(s) of a checked card's counterfactual (see module doc)."""
    kinds = []
    for m in card.mutations:
        if m.kind in ("law", "let"):
            kinds.append("replaced law")
        elif m.kind == "scale":
            kinds.append("parameter scaling")
        elif m.kind == "set":
            was = card.original.params[m.target].value
            kinds.append("interaction term switched on" if was == 0 else "exponent or coefficient change")
    ordered = [k for k in MUTATION_KINDS if k in kinds]
    return " + ".join(ordered) if ordered else "none"


@dataclass
class CardEntry:
    path: str
    name: str
    title: str
    collection: str
    field: str
    inputs: list[str]
    outputs: list[str]
    constraints: int
    mutation: str
    published: Optional[str]
    preprint: Optional[str]
    errors: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def index_cards(paths: Iterable[Path]) -> list[CardEntry]:
    """One entry per card file; a card that does not check is listed with
    its error count and what could be read."""
    from .compiler import check_file
    out = []
    for p in paths:
        result = check_file(p)
        c = result.card
        if c is None:
            out.append(CardEntry(str(p), Path(p).stem, "", "", "", [], [], 0, "", None, None,
                                 len(result.errors)))
            continue
        out.append(CardEntry(
            str(p), c.name, c.title, c.collection, c.field,
            [f"{i.name} [{i.unit.text}]" + (" (integer)" if i.kind == "integer" else
                                             " (set)" if i.kind == "set" else "") for i in c.inputs],
            [f"{o.name} [{o.unit.text}]" for o in c.outputs], len(c.constraints), mutation_kind(c),
            c.published, c.preprint, 0))
    return out


def after_cutoff(published: Optional[str], preprint: Optional[str], cutoff: Optional[dt.date]) -> tuple[bool, str]:
    """Is a Temporal card safe for a model with this knowledge cutoff? Both
    its journal date and its first-preprint date must be after the cutoff."""
    if cutoff is None:
        return False, "the model's knowledge cutoff is unknown"
    for what, text in (("journal date", published), ("preprint date", preprint)):
        if not text:
            return False, f"the card has no {what}"
        if dt.date.fromisoformat(text) <= cutoff:
            return False, f"its {what} {text} is not after the cutoff {cutoff.isoformat()}"
    return True, ""


def parse_window(text: str) -> tuple[Optional[dt.date], Optional[dt.date]]:
    """`FROM..TO` with YYYY-MM-DD dates; either side may be empty."""
    lo, sep, hi = text.partition("..")
    if not sep:
        raise ValueError("a window is written FROM..TO, e.g. 2025-01-01..2025-12-31 (either side may be empty)")
    try:
        return (dt.date.fromisoformat(lo) if lo else None, dt.date.fromisoformat(hi) if hi else None)
    except ValueError as exc:
        raise ValueError(f"bad date in window {text!r}: {exc}") from None


def in_window(published: Optional[str], preprint: Optional[str],
              window: tuple[Optional[dt.date], Optional[dt.date]]) -> bool:
    """Both dates of a card within the window (inclusive)."""
    lo, hi = window
    for text in (published, preprint):
        if not text:
            return False
        d = dt.date.fromisoformat(text)
        if (lo and d < lo) or (hi and d > hi):
            return False
    return True
