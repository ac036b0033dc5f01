"""Lark, the parser library, as every module of the compiler imports it.

When Lark loads it tries `import regex` (the third-party module: a quarter
of Lark's own load, which a lint pays on every file) and uses it for two
things only: `Lark(regex=True)`, which no grammar of ours asks for, and
measuring terminals that name Unicode categories (`\\p{L}`), which
grammar/sci.lark does not use; its terminals are compiled by `re` either
way. So Lark is loaded with `regex` hidden from it. A later `import regex`
anywhere else in the process works as usual; a Lark or a regex loaded
before this module is used as it is.
"""

from __future__ import annotations

import sys

if "lark" not in sys.modules and "regex" not in sys.modules:
    sys.modules["regex"] = None  # `import regex` raises ImportError: Lark falls back to `re`
    try:
        import lark  # noqa: F401
    finally:
        if sys.modules.get("regex", 0) is None:
            del sys.modules["regex"]

from lark import Lark, Token, Tree  # noqa: E402
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken  # noqa: E402

__all__ = ["Lark", "Token", "Tree", "UnexpectedCharacters", "UnexpectedInput", "UnexpectedToken"]
