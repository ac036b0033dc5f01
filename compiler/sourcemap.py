"""Pointing a failure inside a generated simulator back at the card.

The code writer (emit.py) records, for every generated line that comes from
a place in the card, that place; the build keeps the map in the manifest.
When a kernel fails (an exception raised while numba compiles it, or, with
`NUMBA_DISABLE_JIT=1`, while it runs as Python), `annotate` adds a note
naming the card line and column of each generated line in the failure, as
Jinja2 rewrites tracebacks through templates.
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path
from typing import Iterable, Optional

#: numba's messages cite the generated code as `File "…/simulator.py", line N`.
_CITED = re.compile(r'File "([^"]+)", line (\d+)')


def generated_lines(exc: BaseException, simulator: Path) -> list[int]:
    """The lines of `simulator` that a failure passed through or names, in
    order (innermost frame last), without repeats."""
    target = Path(simulator).resolve()
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__)
             if frame.lineno is not None and _same(frame.filename, target)]
    lines += [int(n) for f, n in _CITED.findall(str(exc)) if _same(f, target)]
    return list(dict.fromkeys(lines))


def card_place(source_map: Iterable[tuple[int, int, int]], line: int) -> Optional[tuple[int, int]]:
    """(card line, column) of a generated line, if it came from the card."""
    return next(((cl, cc) for gl, cl, cc in source_map if gl == line), None)


def annotate(exc: BaseException, simulator: Path, source_map, card_path: str) -> BaseException:
    """Add to `exc` one note per generated line it involves that comes from
    the card: `CARD:LINE:COL: ...`. Returns `exc` (for `raise`)."""
    for line in generated_lines(exc, simulator):
        place = card_place(source_map, line)
        if place is not None:
            exc.add_note(f"{card_path}:{place[0]}:{place[1]}: line {line} of the generated "
                         f"{Path(simulator).name} comes from here")
    return exc


def _same(filename: str, target: Path) -> bool:
    try:
        return Path(filename).resolve() == target
    except (OSError, ValueError):
        return False
