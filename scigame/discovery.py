"""Finding card files: the paths a user names, folders searched for `*.sci`."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable


class CardPathError(ValueError):
    """A named path that does not exist or holds no cards."""


def find_cards(paths: Iterable[str | Path]) -> list[Path]:
    """Card files under the given files and folders, sorted, without repeats.

    A file is taken whatever its suffix (the user named it); a folder is
    searched recursively for `*.sci`.
    """
    found: dict[Path, None] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            cards = sorted(q for q in p.rglob("*.sci") if q.is_file())
            if not cards:
                raise CardPathError(f"no .sci files under {raw}")
            for q in cards:
                found.setdefault(q, None)
        elif p.is_file():
            found.setdefault(p, None)
        else:
            raise CardPathError(f"{raw}: no such file or folder")
    return list(found)
