"""The scigame card compiler: parse -> AST -> check -> emit.

Importable as `scigame.compiler` (the `compiler/` folder is mapped into the
`scigame` package by pyproject.toml). The front door:

    result = check_file("cards/historical/gravitation.sci")
    result.ok, result.card, result.diagnostics

Names are imported lazily, so `scigame.compiler.artifact` (the compiled-card
format the runtime reads) can be loaded without pint or Lark. Nothing here
imports the runtime, players or store of `scigame`.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "CheckResult": "front", "check_source": "front", "check_file": "front",
    "parse_source": "front",
    "render": "diagnostics", "Diagnostic": "diagnostics", "Severity": "diagnostics",
    "CODES": "diagnostics",
    "CheckedCard": "model", "SourceText": "source", "Span": "source",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
