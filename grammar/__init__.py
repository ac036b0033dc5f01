"""The card grammar (sci.lark) and its syntax-error catalogue, as data.

`terminal_pattern(NAME)` reads a terminal's regular expression from the
grammar text, so that tools that match card words without the parser (the
JSON schema, the language server, option values) match what the grammar does.
"""

from __future__ import annotations

import functools
import re
from importlib import resources


@functools.lru_cache(maxsize=None)
def terminal_pattern(name: str) -> str:
    """The regular expression of a `NAME: /.../` terminal of sci.lark."""
    text = resources.files(__name__).joinpath("sci.lark").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(name)}(?:\.\d+)?:\s*/(.*)/\s*$", text, re.M)
    if found is None:
        raise KeyError(f"sci.lark has no terminal {name} written as one /regex/")
    return found.group(1)
