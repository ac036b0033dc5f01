"""The one sanitiser for text that reaches a terminal.

A card's strings and comments, a model's reply and an endpoint's error
message are untrusted; printed raw, their control characters would drive
the terminal (set its title, clear the screen, plant a hyperlink, hide or
reorder text). `printable` makes each such character visible instead, one
character for one, so lint's carets stay under their columns: C0 controls
and DEL become their Unicode control pictures (ESC shows as ␛), C1
controls, lone surrogates and the bidirectional overrides become U+FFFD.
Newlines stay (they are ours to print) unless `newlines=False`; tabs stay.

A leaf module (standard library only): lint, eval and the command line's
error handler all call it.
"""

from __future__ import annotations

import re

#: The characters `printable` replaces. Patterns, compiled by `re` (and kept in its cache) on the
#: first call: compiling them is ~2 ms, which a lint that prints no diagnostic need not pay.
_CONTROLS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]"
_CONTROLS_AND_NEWLINES = "[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]"


def _picture(match: re.Match) -> str:
    c = ord(match.group(0))
    if c < 0x20:
        return chr(0x2400 + c)
    if c == 0x7F:
        return "\u2421"
    return "\ufffd"


def printable(text, newlines: bool = True) -> str:
    """`text` safe to print (see the module doc)."""
    s = "" if text is None else str(text)
    return re.sub(_CONTROLS if newlines else _CONTROLS_AND_NEWLINES, _picture, s)
