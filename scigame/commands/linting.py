"""What `scigame lint` does, without click: the click command in cards.py
and the fast path that `python -m scigame lint ...` (and the `scigame`
script) take before click is imported run the same `run_lint`.

The fast path reads only the plain form of lint's command line (paths,
`-f/--format human|json`, `--notes/--no-notes`, `--color/--no-color`);
anything else (help, an unknown option, no path, a path that names nothing)
goes to click, which words the usage error as for every other command.
Loading click and the other commands' modules is a tenth of a lint, and
editors and pre-commit hooks lint one file per process.
"""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from typing import Callable, Optional

#: click's own pattern for an ANSI escape (click.utils.strip_ansi), for output that must not colour.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")

_FORMATS = ("human", "json")


@contextlib.contextmanager
def no_collection_while_loading(own_process: bool):
    """In a process of its own (the fast path), pause Python's cyclic
    garbage collector while the modules, Lark's tables and the first card
    load, then freeze what they made out of every later collection
    (`gc.freeze`): loading allocates some hundred thousand long-lived
    objects, which the collector would otherwise traverse about a hundred
    times, a twentieth of a lint, to find nothing to free. Later cards are
    checked with the collector running. A caller inside a longer-lived
    process (click's command, a test) keeps its collector as it is."""
    if not own_process or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def run_lint(files: list, fmt: str, notes: bool, color: Optional[bool], echo: Callable,
             own_process: bool = False) -> int:
    """Check `files` and print their findings with `echo` (click.echo's
    signature); the exit code: 1 if any card has errors, else 0.
    `own_process`: this process ends with the lint (see no_collection_while_loading)."""
    with no_collection_while_loading(own_process):
        from ..compiler import check_file, render  # numpy on one BLAS thread (scigame/blas_threads.py)
        results = [check_file(f) for f in files[:1]]
    results += [check_file(f) for f in files[1:]]
    diagnostics = [d for r in results for d in r.diagnostics
                   if notes or fmt == "json" or d.severity.value != "note"]
    errors = sum(len(r.errors) for r in results)
    warnings = sum(len(r.warnings) for r in results)
    if fmt == "json":
        import json
        echo(json.dumps([d.to_dict() for d in diagnostics], indent=2))
    else:
        use_color = sys.stdout.isatty() if color is None else color
        by_path = {r.source.path: r.source for r in results}
        for d in diagnostics:
            echo(render(d, by_path.get(d.path), color=use_color), color=use_color)
            echo()
        failed = sum(1 for r in results if not r.ok)
        echo(f"checked {len(results)} card{'s' if len(results) != 1 else ''}: "
             f"{errors} error{'s' if errors != 1 else ''}, "
             f"{warnings} warning{'s' if warnings != 1 else ''}"
             + (f" ({failed} card{'s' if failed != 1 else ''} failed)" if failed else ""))
    return 1 if errors else 0


def plain_echo(message: str = "", color: Optional[bool] = None) -> None:
    """click.echo for text to standard output: a newline added, escapes
    removed unless colour is asked for (or, with `color` None, unless
    standard output is a terminal), flushed."""
    out = sys.stdout
    if out is None:
        return
    text = message + "\n"
    if not (out.isatty() if color is None else color):
        text = _ANSI.sub("", text)
    out.write(text)
    out.flush()


def plain_lint_arguments(args: list[str]) -> Optional[tuple[list[str], str, bool, Optional[bool]]]:
    """(paths, format, notes, color) when `args` (what follows `lint`) is
    lint's plain form, else None (click reads it)."""
    paths: list[str] = []
    fmt, notes, color = "human", False, None
    flags = {"--notes": ("notes", True), "--no-notes": ("notes", False),
             "--color": ("color", True), "--no-color": ("color", False)}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in flags:
            name, value = flags[arg]
            notes, color = (value, color) if name == "notes" else (notes, value)
        elif arg in ("-f", "--format") and i + 1 < len(args) and args[i + 1] in _FORMATS:
            fmt = args[i + 1]
            i += 1
        elif arg.startswith("--format=") and arg.split("=", 1)[1] in _FORMATS:
            fmt = arg.split("=", 1)[1]
        elif arg.startswith("-") or not arg.strip():
            return None
        else:
            paths.append(arg)
        i += 1
    return (paths, fmt, notes, color) if paths else None


def fast_lint(argv: list[str]) -> Optional[int]:
    """Run `lint` without click when `argv` (the arguments after the
    program's name) is its plain form and every path names cards: the exit
    code; None when click should read the command line instead. A failure
    while linting is worded by the command line's one handler, as under click."""
    if not argv or argv[0] != "lint":
        return None
    plain = plain_lint_arguments(argv[1:])
    if plain is None:
        return None
    paths, fmt, notes, color = plain
    from ..discovery import CardPathError, find_cards
    try:
        files = find_cards(paths)
    except CardPathError:
        return None  # click words the usage error
    try:
        return run_lint(files, fmt, notes, color, plain_echo, own_process=True)
    except Exception as exc:  # noqa: BLE001 - worded (or re-raised) by the command line's one handler
        from .guard import fail
        fail(exc)
    except KeyboardInterrupt as exc:
        from .guard import fail
        fail(exc)
