"""What several commands share: exit codes, finding cards, loading one,
the progress bar, console width."""

from __future__ import annotations

import os
import sys

import click

from ..discovery import CardPathError, find_cards

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

#: The two worlds, as an option's choice.
ENV = click.Choice(["original", "counterfactual"])


def bundled_cards() -> str:
    from pathlib import Path
    bundled = Path(__file__).resolve().parent.parent.parent / "cards"
    if not bundled.is_dir():
        raise click.UsageError("no PATHS given and no bundled cards/ folder found")
    return str(bundled)


#: What `scigame eval` (and `scigame mcp`) play when no PATHS are given: the paper's two
#: collections. The system cards (cards/systems) integrate an initial-value problem per
#: reading and per candidate law, minutes per card for the baseline, so they are played
#: when named (`scigame eval cards/systems`), keeping the README's first command short.
DEFAULT_EVAL_COLLECTIONS = ("historical", "temporal")


def default_eval_paths() -> tuple[str, ...]:
    """The bundled folders `scigame eval` plays without PATHS (DEFAULT_EVAL_COLLECTIONS)."""
    from pathlib import Path
    bundled = Path(bundled_cards())
    return tuple(str(bundled / name) for name in DEFAULT_EVAL_COLLECTIONS if (bundled / name).is_dir())


def card_files(paths, bundled: bool = False) -> list:
    """The .sci files of PATHS (the bundled cards if none are given and
    `bundled`), or a usage error."""
    try:
        return find_cards(paths or ((bundled_cards(),) if bundled else ()))
    except CardPathError as exc:
        raise click.UsageError(str(exc))


def say(message: str, err: bool = False) -> None:
    """Print a line that may hold untrusted text (a card's strings, a model's
    reply, an endpoint's message) through the one terminal sanitiser."""
    from ..compiler.terminal import printable
    click.echo(printable(message), err=err)


def load(card_path: str):
    """A compiled card from a .sci file or a compiled folder, or a clean error."""
    from ..card import CardError, load_card
    try:
        return load_card(card_path)
    except CardError as exc:
        say(f"scigame: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)


def console_width():
    """The width tables are drawn to: $COLUMNS when set, else the terminal's
    (None: rich asks the terminal), else 200 columns."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 40:
        return int(columns)
    return None if sys.stdout.isatty() else 200


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def progress(label: str, quiet: bool):
    """A rich progress bar with ETA, and the callback the runners report to
    (event "plan" with the already-done count and the total, then each step)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("eta"), TimeRemainingColumn(), disable=quiet)
    task_id = None

    def on_progress(event, done, total):
        nonlocal task_id
        if event == "plan":
            task_id = bar.add_task(label, total=total, completed=done)
        else:
            bar.update(task_id, completed=done)

    return bar, on_progress


def stop_on_auth_error(auth_error, errors) -> None:
    """Exit 2 when the endpoint refused the credentials or something broke
    (an LLM command's run report says so)."""
    for err in errors:
        say(f"error: {err}", err=True)
    if auth_error:
        say(f"scigame: stopped: the endpoint refused the credentials: {auth_error}", err=True)
        sys.exit(EXIT_USAGE)
    if errors:
        sys.exit(EXIT_USAGE)
