"""Commands that rewrite card files: fmt, export, import."""

from __future__ import annotations

import json
import sys

import click

from ..compiler.atomic import write_atomic
from .common import EXIT_FINDINGS, EXIT_OK, card_files, say


@click.command(name="fmt")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--check", is_flag=True, help="Write nothing; exit 1 listing the files that would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print what would change as a diff.")


def fmt_cmd(paths, check, show_diff):
    """Lay out cards in the one canonical layout (files or folders of *.sci).

    Comments and blank-line groups are kept; formatting twice changes
    nothing. Exit status: 0 done (or nothing to change), 1 with --check when
    a file would change or when a card does not parse, 2 usage error.
    """
    import difflib
    from pathlib import Path

    from ..compiler import render
    from ..compiler.build import read_card_text
    from ..compiler.format import format_text

    files = card_files(paths)
    changed, failed = [], 0
    for f in files:
        try:
            old = read_card_text(Path(f))  # as lint reads it: line endings as written
        except (OSError, UnicodeDecodeError) as exc:
            say(f"{f}: cannot read: {getattr(exc, 'strerror', None) or exc}", err=True)
            failed += 1
            continue
        result = format_text(old, str(f))
        if result.text is None:
            failed += 1
            for d in result.diagnostics:
                click.echo(render(d, result.source), err=True)
            continue
        if result.text == old:
            continue
        changed.append(f)
        if show_diff:
            click.echo("".join(difflib.unified_diff(old.splitlines(True), result.text.splitlines(True),
                                                    f"{f} (as written)", f"{f} (formatted)")), nl=False)
        elif check:
            click.echo(f"would reformat {f}")
        else:
            write_atomic(f, result.text)
            click.echo(f"reformatted {f}")
    verb = "would change" if (check or show_diff) else "changed"
    click.echo(f"{len(files)} card{'s' if len(files) != 1 else ''}: {len(changed)} {verb}"
               + (f", {failed} could not be formatted" if failed else ""), err=True)
    sys.exit(EXIT_FINDINGS if failed or (check and changed) else EXIT_OK)


@click.command(name="export")
@click.argument("card_path", metavar="CARD", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True)
@click.option("-o", "--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write here instead of standard output.")


def export_cmd(card_path, fmt, out_file):
    """Write a card as JSON (schema: scigame/data/card.schema.json).

    Exit status 1 (with the lint errors) if the card does not check.
    """
    from pathlib import Path

    from ..compiler import check_file, parse_source, render
    from ..interchange import export_card

    result = check_file(card_path)
    if not result.ok:
        for d in result.errors:
            click.echo(render(d, result.source), err=True)
        sys.exit(EXIT_FINDINGS)
    text = json.dumps(export_card(parse_source(result.source.text, card_path)[0]), indent=2) + "\n"
    if out_file:
        write_atomic(out_file, text)
    else:
        click.echo(text, nl=False)


@click.command(name="import")
@click.argument("json_file", metavar="CARD.json", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--out", "out_file", required=True, type=click.Path(dir_okay=False),
              help="The .sci file to write.")


def import_cmd(json_file, out_file):
    """Write a JSON card (as `export` writes it) as a .sci card.

    A problem is reported with its JSON path (`$.inputs[0].domain.lo`) and
    exit status 1; nothing is written then.
    """
    from pathlib import Path

    from ..interchange import InterchangeError, import_card, read_card_json

    try:
        text = import_card(read_card_json(Path(json_file).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {json_file}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        say(f"{json_file}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}", err=True)
        sys.exit(EXIT_FINDINGS)
    except InterchangeError as exc:
        say(f"{json_file}: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    write_atomic(out_file, text)
    click.echo(f"wrote {out_file}")


#: The commands of this module, for scigame.cli.
COMMANDS = [fmt_cmd, export_cmd, import_cmd]
