"""Commands that read and build cards: lint, cards, worlds, compile, new, lsp."""

from __future__ import annotations

import json
import sys

import click

from ..compiler.atomic import write_atomic
from .common import EXIT_FINDINGS, EXIT_OK, card_files, console_width
from .linting import run_lint


@click.command()
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
    sys.exit(run_lint(card_files(paths), fmt, notes, color, click.echo))


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)


def cards(paths, fmt):
    """List cards: collection, field, inputs, outputs, mutation kind, dates.

    With no PATHS it lists the bundled cards.
    """
    from ..collection import index_cards

    files = card_files(paths, bundled=True)
    entries = index_cards(files)
    if fmt == "json":
        click.echo(json.dumps([e.to_dict() for e in entries], indent=2))
    else:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
        t = Table(title=f"{len(entries)} cards")
        for col in ("card", "collection", "field", "inputs", "outputs", "mutation", "published", "preprint"):
            t.add_column(col)
        for e in entries:
            if e.errors:
                t.add_row(escape(e.name), f"[red]{e.errors} lint error{'s' if e.errors != 1 else ''}[/red]", "", "", "", "", "", "")
                continue
            t.add_row(*(escape(x) for x in (e.name, e.collection, e.field, ", ".join(e.inputs),
                                             ", ".join(e.outputs), e.mutation, e.published or "",
                                             e.preprint or "")))
        Console(width=console_width()).print(t)
    sys.exit(EXIT_FINDINGS if any(e.errors for e in entries) else EXIT_OK)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "markdown", "comment", "json"]),
              default="human", show_default=True,
              help="markdown: the table of docs/collections.md; comment: each card's `# worlds:` comment.")


def worlds(paths, fmt):
    """Compare each card's two worlds: the counterfactual / original output
    ratio (min, median, max) over the hidden evaluation set.

    With no PATHS it reads the bundled cards. Exit status 1 if a card has
    lint errors.
    """
    from ..worlds import card_worlds, comment, markdown

    files = card_files(paths, bundled=True)
    entries = card_worlds(files)
    if fmt == "json":
        click.echo(json.dumps([r.to_dict() for e in entries for r in e.rows], indent=2))
    elif fmt == "markdown":
        click.echo(markdown(entries))
    elif fmt == "comment":
        click.echo("\n\n".join(f"{e.path}:\n{comment(e)}" for e in entries if not e.errors))
    else:
        from rich.console import Console
        from rich.table import Table
        from ..worlds import sig
        t = Table(title="counterfactual / original output ratio over the evaluation set")
        for col in ("card", "output", "min", "median", "max", "magnitude differs"):
            t.add_column(col, justify="right" if col in ("min", "median", "max") else "left")
        for e in entries:
            if e.errors:
                t.add_row(e.name, f"[red]{e.errors} lint error{'s' if e.errors != 1 else ''}[/red]", "", "", "", "")
            for r in e.rows:
                t.add_row(r.card, r.output, sig(r.low), sig(r.median), sig(r.high), "yes" if r.magnitude else "")
        Console(width=console_width()).print(t)
    for e in entries:
        if e.errors:
            click.echo(f"{e.path}: {e.errors} lint error{'s' if e.errors != 1 else ''}; "
                       f"run `scigame lint {e.path}`", err=True)
    sys.exit(EXIT_FINDINGS if any(e.errors for e in entries) else EXIT_OK)


@click.command(name="compile")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder to write compiled cards into (one subfolder per card).")
@click.option("--force", is_flag=True, help="Rebuild even cards whose source has not changed.")
@click.option("--warm/--no-warm", default=False, show_default=True,
              help="Also JIT-compile the simulators now, filling numba's disk cache.")


def compile_cmd(paths, out_dir, force, warm):
    """Compile cards into simulators, public views, predictor schemas and
    hidden evaluation sets. Unchanged cards are not rebuilt.

    Exit status: 0 all compiled, 1 some cards failed lint, 2 usage error.
    """
    from pathlib import Path

    from ..compiler.build import compile_paths
    from ..compiler.diagnostics import render
    from ..compiler.source import SourceText
    from ..options import check_output_folder

    files = card_files(paths)
    check_output_folder(out_dir, "-o")
    counts = {"built": 0, "rebuilt": 0, "unchanged": 0, "failed": 0}
    for f, result in zip(files, compile_paths(files, Path(out_dir), force=force)):
        counts[result.status] += 1
        if result.status == "failed":
            if result.message:
                click.echo(f"scigame: {result.message}", err=True)
                continue
            source = SourceText(str(f), Path(f).read_text(encoding="utf-8", errors="replace"))
            for d in result.diagnostics:
                if d.is_error:
                    click.echo(render(d, source), err=True)
            click.echo(f"{f}: not compiled (lint errors above)", err=True)
            continue
        note = " (its files did not match the manifest's hashes)" if result.status == "rebuilt" else ""
        click.echo(f"{result.status:>9}  {f} -> {result.folder}{note}")
        if warm:
            from ..card import warm_kernels
            warm_kernels(result.folder, rebuilt=result.status != "unchanged")
    click.echo(f"{counts['built']} built, " + (f"{counts['rebuilt']} rebuilt, " if counts["rebuilt"] else "")
               + f"{counts['unchanged']} unchanged, {counts['failed']} failed")
    sys.exit(EXIT_FINDINGS if counts["failed"] else EXIT_OK)


@click.command(name="lsp")


def lsp_cmd():
    """Run the .sci language server on stdin/stdout (for editors).

    Diagnostics as you type, hover with units and dimensions, go to
    definition. Needs the `lsp` extra: pip install 'scigame[lsp]'.
    """
    try:
        import pygls  # noqa: F401
    except ImportError:
        raise click.UsageError("the language server needs pygls: pip install 'scigame[lsp]'") from None
    from ..lsp import serve
    serve()


@click.command(name="new")
@click.argument("name")
@click.option("--collection", type=click.Choice(["historical", "temporal"]), default="historical",
              show_default=True)
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Folder to write NAME.sci in.")
@click.option("--force", is_flag=True, help="Overwrite an existing NAME.sci.")


def new_cmd(name, collection, out_dir, force):
    """Write NAME.sci: a commented card skeleton that lints, with W303
    warnings for every TODO left to fill in."""
    from pathlib import Path

    from ..compiler.checker import FUNCTIONS, KEYWORDS
    from ..skeleton import skeleton

    if name in KEYWORDS or name in FUNCTIONS or name == "pi":
        raise click.BadParameter(f"{name!r} is a reserved word of the card language", param_hint="NAME")
    try:
        text = skeleton(name, collection)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
    path = Path(out_dir) / f"{name}.sci"
    if path.exists() and not force:
        raise click.UsageError(f"{path} exists (use --force to overwrite it)")
    write_atomic(path, text)
    click.echo(f"wrote {path}; next: scigame lint {path}")


#: The commands of this module, for scigame.cli.
COMMANDS = [lint, cards, worlds, compile_cmd, lsp_cmd, new_cmd]
