"""`scigame report`: tables, figures and an HTML page of runs."""

from __future__ import annotations

import json

import click

from .common import console_width


@click.command()
@click.argument("run_dirs", metavar="RUN_DIR...", nargs=-1, required=True,
                type=click.Path(file_okay=False, exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "human", "markdown", "latex", "csv", "json"]),
              default="text", show_default=True, help="How to print the tables (human is text).")
@click.option("--table", "tables", multiple=True, metavar="NAME",
              help="Print only this table (repeatable): main, compare (two or more runs), weak_strict, usage, "
                   "failures, cards; default all.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the self-contained HTML report to this file.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), default=None,
              help="Also write every figure as a PNG into this folder.")
@click.option("--title", default=None, help="Title of the HTML report.")
@click.option("--pool", is_flag=True,
              help="One column per player: pool a player's run folders (e.g. two seeds) instead of "
                   "showing each folder as its own column.")


def report(run_dirs, fmt, tables, html_file, plots_dir, title, pool):
    """Tables, figures and an HTML page of one or more runs, side by side:
    ESR and PS with 95% intervals per cell, weak vs strict ESR, tokens and
    dollars, failure modes, per card; the HTML adds the figures, every
    episode's transcript and the runs' provenance."""
    from pathlib import Path

    from ..report import TABLES, build_tables, load_runs, render, report_json, write_html

    if plots_dir:
        from ..options import check_output_folder
        check_output_folder(plots_dir, "--plots")
    for name in tables:
        if name not in TABLES:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(TABLES)}", param_hint="--table")
    runs = load_runs(list(run_dirs), pool=pool)  # a damaged folder: RunFolderError, one line naming the file
    built = build_tables(runs)
    missing = [n for n in tables if n not in built]
    if missing:  # `compare` needs two columns
        raise click.BadParameter(f"{', '.join(missing)}: needs two or more players or run folders",
                                 param_hint="--table")
    chosen = [built[n] for n in (tables or built)]
    if html_file:
        click.echo(f"wrote {write_html(runs, built, Path(html_file), title)}", err=True)
    if plots_dir:
        from ..report.plots import write_plots
        for path in write_plots(runs, built, Path(plots_dir)):
            click.echo(f"wrote {path}", err=True)
    if fmt == "json":
        data = report_json(runs, built)
        data["tables"] = {t.name: data["tables"][t.name] for t in chosen}
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(render(chosen, "text" if fmt == "human" else fmt, console_width()), nl=False)
    if fmt in ("text", "human"):
        from ..summary import report_notes
        from ..report.formats import wrap_text
        for line in report_notes(runs):
            click.echo(wrap_text(line, console_width()))


#: The commands of this module, for scigame.cli.
COMMANDS = [report]
