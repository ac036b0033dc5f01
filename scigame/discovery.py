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
        if not str(raw).strip():
            raise CardPathError("an empty path was given (name a card file or a folder; `.` is this folder)")
        p = Path(raw)
        if p.is_dir():
            # every entry but a folder: an unreadable card is reported by the reader, not skipped
            cards = sorted(q for q in p.rglob("*.sci") if not q.is_dir())
            if not cards:
                raise CardPathError(f"no .sci files under {raw}")
            for q in cards:
                found.setdefault(q, None)
        elif p.is_file() or p.is_symlink():
            found.setdefault(p, None)
        else:
            raise CardPathError(f"{raw}: no such file or folder")
    return list(found)
