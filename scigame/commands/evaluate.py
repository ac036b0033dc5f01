"""Playing the episode matrix and judging it: eval, judge."""

from __future__ import annotations

import sys
from typing import NamedTuple

import click

from ..options import config_options, llm_options
from .common import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, console_width, default_eval_paths, progress,
                     say, stop_on_auth_error)


@click.command(name="eval")
@click.argument("paths", nargs=-1, type=click.Path())
@config_options("player", "rerun_failed")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@llm_options("OpenAI-compatible endpoint (openai:MODEL players).", timeout=120.0)
@config_options("max_cost", "tool_wall")
@click.option("--by", "by", type=click.Choice(["cell", "card"]), default="cell", show_default=True,
              help="Summarise per cell, or per card with every failed episode's submission beside the law.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "latex", "csv", "json"]), default="text",
              show_default=True, help="How to print the summary (as for `scigame report`).")


def eval_cmd(paths, quiet, by, fmt, llm, **options):
    """Play the episode matrix and store every episode.

    With no PATHS it uses the bundled cards (the repository's cards/).
    The defaults run the baseline player over both settings, both
    environments and all three protocols, 3 repetitions, B = 4. The run is
    resumable: rerunning the same command skips finished episodes.
    """
    import asyncio

    from ..executors import ExecutorError
    from ..llm.client import AuthFailure
    from ..options import check_output_folder, eval_config, resolve_config
    from ..players import PlayerSpecError
    from ..runner import run_eval
    from ..sandbox import SandboxUnavailable
    from ..summary import summarize_run

    config = eval_config(options, paths, llm, default_eval_paths())
    resolved = resolve_config(config)
    check_output_folder(config.out, "--out")
    bar, on_progress = progress("episodes", quiet)
    try:
        with bar:
            report = asyncio.run(run_eval(config, on_progress, resolved=resolved))
    except PlayerSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--player")
    except ExecutorError as exc:
        raise click.UsageError(str(exc))
    except SandboxUnavailable as exc:  # --tools python where no sandbox can be built: never unsandboxed
        click.echo(f"scigame: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except AuthFailure as exc:  # found before any episode started (e.g. no key)
        say(f"scigame: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    summary = summarize_run(report.folder)
    _print_eval(report, summary, config, Printing(by, fmt))
    stop_on_auth_error(report.auth_error, report.errors)
    # episodes left unstarted by --max-cost are not findings: the budget did its job (docs/cli.md)
    sys.exit(EXIT_FINDINGS if report.skipped_cards or report.unfinished else EXIT_OK)


class Printing(NamedTuple):
    """How eval prints what it played (its options beside the run's, which are EvalConfig's)."""

    by: str  # the summary per cell or per card
    fmt: str  # the summary's format


def _print_summary(report, run: Printing) -> None:
    """This invocation's episodes as the report's tables (per cell or per card), and the folder's totals."""
    from ..errors import UserFacingError
    from ..report.invocation import eval_summary, invocation_runs
    try:
        inv = invocation_runs(report.folder, report.planned_keys)
    except UserFacingError as exc:  # a damaged record or log of an earlier run: the episodes are stored all the same
        say(f"scigame: the summary tables cannot be drawn: {exc}", err=True)
        return
    text, lines = eval_summary(inv, report.folder, run.by, run.fmt, console_width())
    if run.fmt == "json":
        click.echo(text)
    else:
        say(text)
    for line in lines:
        _echo(line, err=run.fmt != "text")


def _echo(text: str, err: bool = False) -> None:
    """A line for people, wrapped to the terminal's width."""
    from ..report.formats import wrap_text
    say(wrap_text(text, console_width()), err=err)


def _print_eval(report, summary, config, run: Printing) -> None:
    """The invocation's summary and what became of its episodes (errors aside)."""
    from ..summary import spend_text

    for path, why in report.skipped_cards:
        say(f"skipped {path}: {why}", err=True)
    if report.excluded:
        say(f"{len(report.excluded)} Temporal card(s) excluded:", err=True)
        for name, why in report.excluded:
            say(f"  {name}: {why}", err=True)
    _print_summary(report, run)
    text = run.fmt == "text"  # machine formats keep stdout for the tables alone
    if summary.stale:
        _echo(f"({summary.stale} episodes of earlier versions of edited cards are kept in the store "
              "but left out of this summary)", err=not text)
    if summary.spend["calls"] or summary.spend["spent_usd"]:
        _echo(spend_text(summary.spend), err=not text)
    for warning in report.warnings:
        _echo(f"warning: {warning}", err=True)
    _echo(f"{report.played} played, {report.skipped} already finished, {report.unfinished} unfinished "
          f"of {report.planned} planned; run folder: {report.folder}", err=not text)
    if report.not_started:
        _echo(f"{report.not_started} episodes not started: the run has spent ${report.spent_usd:.4f} "
              f"of --max-cost ${config.max_cost:.4f}; rerun with a larger --max-cost to go on", err=True)
    for reason in report.unfinished_reasons[:5]:
        _echo(f"unfinished: {reason}", err=True)
    if len(report.unfinished_reasons) > 5:
        say(f"unfinished: ... and {len(report.unfinished_reasons) - 5} more (each episode's "
                   "`error` is in the store)", err=True)


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--judge", "judges", multiple=True, required=True,
              help="openai:MODEL; repeat for a panel of judges.")
@llm_options("OpenAI-compatible endpoint of the judges.", timeout=120.0)
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 256))
@click.option("--force", is_flag=True, help="Judge again episodes already judged.")
@click.option("--quiet", is_flag=True)


def judge(run_dir, judges, llm, concurrency, force, quiet):
    """Score the final explanations of a run's episodes with LLM judges (SES).

    Each non-null criterion must quote the transcript; quotes are verified
    and an unverifiable one counts as null. Results go into the run's store;
    `scigame report` then shows SES and the judges' agreement.
    """
    import asyncio
    from pathlib import Path

    from ..llm.judge import agreement, judge_run
    from ..store import DB_NAME, Store
    from ..summary import alpha_text

    if not (Path(run_dir) / DB_NAME).exists():
        raise click.UsageError(f"{run_dir} is not a run folder (no {DB_NAME})")
    panel = _judge_panel(judges, llm)
    bar, on_progress = progress("judging", quiet)
    with bar:
        result = asyncio.run(judge_run(Path(run_dir), panel, concurrency, force, on_progress))
    with Store(run_dir) as store:
        alpha = agreement(store.judgement_rows())
    click.echo(f"{result.judged} judged, {result.skipped} already judged, {result.unfinished} left for a "
               f"later run (endpoint faults); {result.unverified} scores made null for unverifiable quotes")
    if len(panel) > 1:
        click.echo("Krippendorff's alpha: " + alpha_text(alpha))
    stop_on_auth_error(result.auth_error, result.errors)
    sys.exit(EXIT_FINDINGS if result.unfinished else EXIT_OK)


def _judge_panel(judges, llm) -> list:
    """(spec, ChatClient) per --judge, each with its API key present, or a usage error."""
    from ..llm.client import AuthFailure, ChatClient
    from ..llm.registry import load_registry

    registry = load_registry(llm.models_file)
    panel = []
    for spec in judges:
        kind, _, model = spec.partition(":")
        if kind != "openai" or not model:
            raise click.BadParameter(f"{spec!r}: judges are openai:MODEL", param_hint="--judge")
        config = llm.config(model)
        try:
            config.api_key()
        except AuthFailure as exc:
            click.echo(f"scigame: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        panel.append((spec, ChatClient(config, registry)))
    return panel


#: The commands of this module, for scigame.cli.
COMMANDS = [eval_cmd, judge]
