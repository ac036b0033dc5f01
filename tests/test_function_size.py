"""No function of the package is over 60 lines (its decorators aside, its
docstring and comments counted): a longer one is several steps that want
names. Tests are not held to it."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("scigame", "compiler", "grammar")
LIMIT = 60


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function or method longer than `limit` lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1  # from `def` (decorators aside) to its last line
            if length > limit:
                found.append((node.name, node.lineno, length))
    return found


def test_the_measure_counts_from_def_to_the_last_line():
    body = "\n".join(f"    x{i} = {i}" for i in range(59))
    assert long_functions(f"@decorator\n@another(1)\ndef f():\n{body}\n") == []  # 60 lines: allowed
    assert long_functions(f"def f():\n{body}\n    return 0\n") == [("f", 1, 61)]
    nested = f"class C:\n    async def g(self):\n{body.replace('    ', '        ')}\n        return 1\n"
    assert long_functions(nested) == [("g", 2, 61)]


def test_no_function_of_the_package_is_over_60_lines():
    too_long = [f"{path.relative_to(REPO)}:{line} {name} ({length} lines)"
                for folder in FOLDERS for path in sorted((REPO / folder).rglob("*.py"))
                for name, line, length in long_functions(path.read_text(encoding="utf-8"))]
    assert too_long == []
