"""The `scigame` command line. The only place that prints or picks exit codes."""

from __future__ import annotations

import json
import sys

import click

from . import __version__
from .discovery import CardPathError, find_cards

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class _Group(click.Group):
    """Turns an unexpected exception into a one-line internal error (exit 2)
    instead of a traceback; `SCIGAME_DEBUG=1` shows the traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            import os
            if os.environ.get("SCIGAME_DEBUG"):
                raise
            click.echo(f"scigame: internal error: {type(exc).__name__}: {exc}\n"
                       "  (set SCIGAME_DEBUG=1 to see the traceback, and please report it)", err=True)
            sys.exit(EXIT_USAGE)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="scigame")
def main() -> None:
    """scigame: science cards compiled into paired discovery games for LLM agents.

    Write a card in the .sci language, check it with `scigame lint`, and
    (in later releases) compile and evaluate players on it.
    """


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human",
              show_default=True, help="Output format; json is a list of diagnostic objects.")
@click.option("--notes/--no-notes", default=False, show_default=True,
              help="Also show notes (e.g. the unit a `rebalance` gives a param).")
@click.option("--color/--no-color", default=None,
              help="Colour the human output (default: when writing to a terminal).")
def lint(paths, fmt, notes, color):
    """Parse and check cards (files or folders searched for *.sci).

    Prints `path:line:col: error[CODE]: message` with the source line and a
    caret for every finding. Exit status: 0 no errors (warnings allowed),
    1 errors, 2 usage or internal error.
    """
    from .compiler import check_file, render

    try:
        files = find_cards(paths)
    except CardPathError as exc:
        raise click.UsageError(str(exc))
    results = [check_file(f) for f in files]
    diagnostics = [d for r in results for d in r.diagnostics
                   if notes or fmt == "json" or d.severity.value != "note"]
    errors = sum(len(r.errors) for r in results)
    warnings = sum(len(r.warnings) for r in results)
    if fmt == "json":
        click.echo(json.dumps([d.to_dict() for d in diagnostics], indent=2))
    else:
        use_color = sys.stdout.isatty() if color is None else color
        by_path = {r.source.path: r.source for r in results}
        for d in diagnostics:
            click.echo(render(d, by_path.get(d.path), color=use_color))
            click.echo()
        failed = sum(1 for r in results if not r.ok)
        click.echo(f"checked {len(results)} card{'s' if len(results) != 1 else ''}: "
                   f"{errors} error{'s' if errors != 1 else ''}, "
                   f"{warnings} warning{'s' if warnings != 1 else ''}"
                   + (f" ({failed} card{'s' if failed != 1 else ''} failed)" if failed else ""))
    sys.exit(EXIT_FINDINGS if errors else EXIT_OK)


if __name__ == "__main__":  # pragma: no cover
    main()
