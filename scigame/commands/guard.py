"""The command line's one handler of a failure inside a command: the click
group's (cli.py) and lint's fast path's (linting.py)."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from ..errors import UserFacingError
from .common import EXIT_FINDINGS, EXIT_USAGE, say


def fail(exc: BaseException) -> NoReturn:
    """A line on standard error and an exit code, never a traceback
    (`SCIGAME_DEBUG=1` re-raises)."""
    if isinstance(exc, BrokenPipeError):  # `scigame lint ... | head`: the reader left; leave quietly
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_FINDINGS)
    if isinstance(exc, KeyboardInterrupt):
        click.echo("interrupted", err=True)
        sys.exit(130)
    if isinstance(exc, UserFacingError):  # a damaged store, a run folder in use: already one line
        say(f"scigame: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if isinstance(exc, OSError):  # the file system said no: name the file
        where = f"{exc.filename}: " if exc.filename else ""
        say(f"scigame: {where}{exc.strerror or exc}", err=True)
        sys.exit(EXIT_USAGE)
    import os
    if os.environ.get("SCIGAME_DEBUG"):
        raise exc
    if type(exc).__module__ == "sqlite3":  # damage Store's own check did not see: still one line
        say(f"scigame: a run store could not be read ({type(exc).__name__}: {exc}); it may be damaged",
            err=True)
        sys.exit(EXIT_USAGE)
    say(f"scigame: internal error: {type(exc).__name__}: {exc}\n"
        "  (set SCIGAME_DEBUG=1 to see the traceback, and please report it)", err=True)
    sys.exit(EXIT_USAGE)
