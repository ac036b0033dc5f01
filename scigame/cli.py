"""The `scigame` command line. The only place that prints or picks exit codes."""

from __future__ import annotations

import json
import math
import sys

import click

from . import __version__
from .discovery import CardPathError, find_cards
from .errors import UserFacingError
from .options import DOLLARS, SECONDS, TEMPERATURE, parse_budgets, parse_number

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
        except BrokenPipeError:  # `scigame lint ... | head`: the reader left; leave quietly
            import os
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT_FINDINGS)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except UserFacingError as exc:  # a damaged store, a run folder in use: already one line
            click.echo(f"scigame: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except OSError as exc:  # the file system said no: name the file
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"scigame: {where}{exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
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

    Write a card in the .sci language and check it with `scigame lint`;
    `compile` it into simulators, `simulate` an experiment, `score` a
    predictor, and `eval` a player over the whole episode matrix.
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
            click.echo(render(d, by_path.get(d.path), color=use_color), color=use_color)
            click.echo()
        failed = sum(1 for r in results if not r.ok)
        click.echo(f"checked {len(results)} card{'s' if len(results) != 1 else ''}: "
                   f"{errors} error{'s' if errors != 1 else ''}, "
                   f"{warnings} warning{'s' if warnings != 1 else ''}"
                   + (f" ({failed} card{'s' if failed != 1 else ''} failed)" if failed else ""))
    sys.exit(EXIT_FINDINGS if errors else EXIT_OK)


def _bundled_cards() -> str:
    from pathlib import Path
    bundled = Path(__file__).resolve().parent.parent / "cards"
    if not bundled.is_dir():
        raise click.UsageError("no PATHS given and no bundled cards/ folder found")
    return str(bundled)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)
def cards(paths, fmt):
    """List cards: collection, field, inputs, outputs, mutation kind, dates.

    With no PATHS it lists the bundled cards.
    """
    from .collection import index_cards

    try:
        files = find_cards(paths or (_bundled_cards(),))
    except CardPathError as exc:
        raise click.UsageError(str(exc))
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
        Console(width=None if sys.stdout.isatty() else 200).print(t)
    sys.exit(EXIT_FINDINGS if any(e.errors for e in entries) else EXIT_OK)


@main.command()
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
    from .worlds import card_worlds, comment, markdown

    try:
        files = find_cards(paths or (_bundled_cards(),))
    except CardPathError as exc:
        raise click.UsageError(str(exc))
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
        from .worlds import sig
        t = Table(title="counterfactual / original output ratio over the evaluation set")
        for col in ("card", "output", "min", "median", "max", "magnitude differs"):
            t.add_column(col, justify="right" if col in ("min", "median", "max") else "left")
        for e in entries:
            if e.errors:
                t.add_row(e.name, f"[red]{e.errors} lint error{'s' if e.errors != 1 else ''}[/red]", "", "", "", "")
            for r in e.rows:
                t.add_row(r.card, r.output, sig(r.low), sig(r.median), sig(r.high), "yes" if r.magnitude else "")
        Console(width=None if sys.stdout.isatty() else 200).print(t)
    for e in entries:
        if e.errors:
            click.echo(f"{e.path}: {e.errors} lint error{'s' if e.errors != 1 else ''}; "
                       f"run `scigame lint {e.path}`", err=True)
    sys.exit(EXIT_FINDINGS if any(e.errors for e in entries) else EXIT_OK)


def _load(card_path: str):
    """A compiled card from a .sci file or a compiled folder, or a clean error."""
    from .card import CardError, load_card
    try:
        return load_card(card_path)
    except CardError as exc:
        click.echo(f"scigame: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)


_ENV = click.Choice(["original", "counterfactual"])


@main.command(name="compile")
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

    from .compiler.build import compile_paths
    from .compiler.diagnostics import render
    from .compiler.source import SourceText
    from .options import check_output_folder

    try:
        files = find_cards(paths)
    except CardPathError as exc:
        raise click.UsageError(str(exc))
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
            from .card import warm_kernels
            warm_kernels(result.folder, rebuilt=result.status != "unchanged")
    click.echo(f"{counts['built']} built, " + (f"{counts['rebuilt']} rebuilt, " if counts["rebuilt"] else "")
               + f"{counts['unchanged']} unchanged, {counts['failed']} failed")
    sys.exit(EXIT_FINDINGS if counts["failed"] else EXIT_OK)


def _parse_assignments(pairs) -> dict[str, float]:
    values: dict[str, float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.UsageError(f"expected NAME=VALUE, got {pair!r}")
        if name in values:
            raise click.UsageError(f"{name} is given twice")
        try:
            values[name] = parse_number(text)
        except ValueError as exc:
            raise click.UsageError(f"{name}: {exc}") from None
    return values


@main.command()
@click.argument("card_path", metavar="CARD")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option("--env", "env", type=_ENV, required=True, help="Which world to observe.")
@click.option("--exact", is_flag=True, help="The law's exact values: no noise, no quantisation.")
@click.option("--seed", type=click.IntRange(0), default=None,
              help="Seed of the measurement noise (outputs with `noise`): the same seed, the same values.")
def simulate(card_path, assignments, env, exact, seed):
    """Print the observation for one experiment as JSON.

    CARD is a .sci file or a compiled card folder. Exit status 1 (with
    every reason) if the oracle rejects the inputs.
    """
    from .oracle import Rejection

    card = _load(card_path)
    values = _parse_assignments(assignments)
    try:
        observed = card.simulate(env, values, exact=exact, seed=seed)
    except Rejection as exc:
        click.echo("scigame: rejected: " + "; ".join(exc.reasons), err=True)
        sys.exit(EXIT_FINDINGS)
    out = {"environment": env, "exact": exact, "inputs": values,
           "outputs": {k: float(v[0]) for k, v in observed.items()},
           "units": {o.name: o.unit for o in card.data.outputs}}
    click.echo(json.dumps(out, indent=2))


@main.command()
@click.argument("card_path", metavar="CARD")
@click.argument("predictor_file", metavar="PREDICTOR.json", type=click.Path(dir_okay=False))
@click.option("--env", "env", type=_ENV, required=True, help="Which world's law to score against.")
@click.option("--timeout", default=5.0, show_default=True, type=SECONDS,
              help="Seconds sympy may take to decide strict equivalence (then strict is null).")
def score(card_path, predictor_file, env, timeout):
    """Validate and score a predictor on the card's hidden evaluation set.

    Prints JSON with valid, reason, ps, weak, strict and per-output errors.
    Exit status 0 when the predictor was scored (valid or not), 1 when the
    card cannot be loaded (lint errors), 2 on usage errors.
    """
    from pathlib import Path

    card = _load(card_path)
    try:
        text = Path(predictor_file).read_bytes()
    except OSError as exc:
        raise click.UsageError(f"cannot read {predictor_file}: {exc.strerror}") from None
    result = card.score(text, env, strict_timeout=timeout)
    click.echo(result.model_dump_json(indent=2))


def _progress(label: str, quiet: bool):
    """A rich progress bar with ETA, and the callback the runners report to
    (event "plan" with the already-done count and the total, then each step)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("eta"), TimeRemainingColumn(), disable=quiet)
    task_id = None

    def on_progress(event, done, total):
        nonlocal task_id
        if event == "plan":
            task_id = progress.add_task(label, total=total, completed=done)
        else:
            progress.update(task_id, completed=done)

    return progress, on_progress


def _csv_choice(values: str, allowed: tuple[str, ...], what: str) -> list[str]:
    items = [v.strip() for v in values.split(",") if v.strip()]
    if "all" in items:
        return list(allowed)
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise click.BadParameter(f"{', '.join(bad) or values!r}: choose from {', '.join(allowed)} (or all)",
                                 param_hint=f"--{what}")
    return list(dict.fromkeys(items))


def _budgets(text: str) -> list[int]:
    return parse_budgets(text)


def _noises(text: str) -> list:
    """--noise: comma-separated relative noise levels (`card`: each card's own)."""
    out = []
    for item in (v.strip() for v in text.split(",") if v.strip()):
        if item == "card":
            out.append(None)
            continue
        try:
            value = float(item.rstrip("%")) / (100.0 if item.endswith("%") else 1.0)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and value >= 0):
            raise click.BadParameter(f"{item!r}: a relative noise level is a number >= 0 (e.g. 0.01 or 1%), "
                                     "or `card`", param_hint="--noise")
        out.append(value)
    if not out:
        raise click.BadParameter("give at least one noise level", param_hint="--noise")
    return list(dict.fromkeys(out))


def _distractor_counts(text: str) -> list[int]:
    from .controls import MAX_DISTRACTORS
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = [-1]
    if not values or any(not 0 <= v <= MAX_DISTRACTORS for v in values):
        raise click.BadParameter(f"{text!r}: comma-separated whole numbers from 0 to {MAX_DISTRACTORS}",
                                 param_hint="--distractors")
    return list(dict.fromkeys(values))


def _fmt(v, pct=False):
    if v is None:
        return "–"
    return f"{100 * v:.0f}%" if pct else (f"{v:.3f}" if isinstance(v, float) else str(v))


def _print_summary(table: list[dict], failures: dict[str, int], usage: list[dict] | None = None,
                   stale: int = 0) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="summary", show_lines=False)
    players = {r["player"] for r in table}
    # the controls and out-of-domain scores get columns only where a run has them
    controls = [c for c, default in (("noise", "card"), ("context", "full"), ("distractors", 0))
                if any(r.get(c, default) != default for r in table)]
    ood = any(r.get("mean_ps_ood") is not None for r in table)
    names = (("player",) if len(players) > 1 else ()) + (
        "collection", "setting", "environment", "protocol", "B", *controls, "n", "strict ESR", "weak ESR",
        "mean PS", "form", *(("PS ood", "weak ood") if ood else ()), "SES", "valid", "invalid", "missing", "undet.",
        "breaks", "unfinished")
    for col in names:
        t.add_column(col, justify="left" if col in ("player", "collection", "setting", "environment",
                                                    "protocol", "noise", "context") else "right")
    for r in table:
        cells = ([r["player"]] if len(players) > 1 else []) + [
            r["collection"], r["setting"], r["environment"], r["protocol"], str(r["budget"]),
            *(str(r[c]) for c in controls),
            str(r["finished"]), _fmt(r["strict_esr"], True), _fmt(r["weak_esr"], True), _fmt(r["mean_ps"]),
            _fmt(r.get("mean_form_credit")),
            *((_fmt(r.get("mean_ps_ood")), _fmt(r.get("weak_ood"), True)) if ood else ()),
            _fmt(r.get("mean_ses")), str(r["valid"]), str(r["invalid"]), str(r["missing"]),
            str(r["undetermined"]), str(r["protocol_breaks"]), str(r["unfinished"])]
        t.add_row(*cells)
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(t)
    if stale:
        console.print(f"({stale} episodes of earlier versions of edited cards are kept in the store "
                      "but left out of this summary)")
    if failures:
        console.print("failure modes: " + ", ".join(f"{k} {v}" for k, v in failures.items()))
    if usage and any(u["input_tokens"] or u["output_tokens"] for u in usage):
        u_table = Table(title="tokens and cost")
        for col in ("player", "protocol", "episodes", "input tokens", "output tokens", "cost $"):
            u_table.add_column(col, justify="left" if col in ("player", "protocol") else "right")
        for u in usage:
            u_table.add_row(u["player"], u["protocol"], str(u["episodes"]), str(u["input_tokens"]),
                            str(u["output_tokens"]), f"{u['cost_usd']:.4f}")
        console.print(u_table)


@main.command(name="eval")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--player", default="baseline", show_default=True,
              help="baseline | openai:MODEL | replay:RUN_DIR")
@click.option("--setting", "settings", default="all", show_default=True,
              help="identification,discovery (comma-separated) or all")
@click.option("--env", "envs", default="all", show_default=True, help="original,counterfactual or all")
@click.option("--protocol", "protocols", default="all", show_default=True, help="prior,fixed,adaptive or all")
@click.option("--budget", "budgets", default="4", show_default=True,
              help="Fixed-protocol budgets B, comma-separated (e.g. 1,2,4,8).")
@click.option("--reps", default=3, show_default=True, type=click.IntRange(1, 1000),
              help="Independent repetitions per cell.")
@click.option("--max-steps", type=click.IntRange(1, 100000), default=None,
              help="Adaptive step cap (default: each card's `adaptive ... max_steps`).")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 256),
              help="Episodes in flight at once (players that wait on a network, e.g. openai:MODEL).")
@click.option("--workers", type=click.IntRange(1, 4096), default=None,
              help="Worker processes (or Ray tasks in flight) for CPU-bound players such as the "
                   "baseline. [default: the cores available; with --executor ray, the cluster's CPUs]")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where episodes run: this machine, or a Ray cluster (pip install -e '.[ray]').")
@click.option("--ray-address", default=None, metavar="ADDR",
              help="The Ray cluster to join (host:port, or `auto`); default: start a local Ray instance.")
@click.option("--seed", default=0, show_default=True, type=int, help="Base seed of the run.")
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Run folder (default: runs/<player>). Rerunning the same command resumes it.")
@click.option("--force", is_flag=True, help="Replay every episode, finished or not.")
@click.option("--rerun-failed", is_flag=True, help="Also replay finished episodes that failed weak ESR.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (openai:MODEL players).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Environment variable that holds the API key.")
@click.option("--reasoning-effort", default=None, help="Passed to the endpoint (e.g. low, medium, high).")
@click.option("--temperature", type=TEMPERATURE, default=None, help="Sampling temperature, where supported.")
@click.option("--max-tokens", type=click.IntRange(1), default=None, help="Completion token cap per call.")
@click.option("--timeout", type=SECONDS, default=120.0, show_default=True, help="Seconds per LLM call.")
@click.option("--max-retries", type=click.IntRange(0, 50), default=6, show_default=True,
              help="Retries of an infrastructure fault (429, 5xx, timeouts) per call.")
@click.option("--no-structured", is_flag=True, help="Do not ask the endpoint for structured outputs.")
@click.option("--models", "models_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Model registry (prices, cutoffs) to use instead of the bundled one.")
@click.option("--max-cost", type=DOLLARS, default=None,
              help="Dollars: stop starting new episodes once the run folder has spent this much.")
@click.option("--window", default=None, metavar="FROM..TO",
              help="Keep only Temporal cards whose journal and preprint dates fall in this window "
                   "(YYYY-MM-DD; either side may be empty).")
@click.option("--noise", "noises", default="card", show_default=True,
              help="Relative measurement noise on every output, comma-separated levels for a sweep "
                   "(e.g. 0,0.001,0.01); `card`: each output's own `noise`.")
@click.option("--context", "contexts", default="full", show_default=True,
              help="Prior knowledge in the task text: full, no-background, anonymous (comma-separated).")
@click.option("--distractors", "distractors", default="0", show_default=True,
              help="Extra inputs the law ignores, comma-separated counts (e.g. 0,2).")
def eval_cmd(paths, player, settings, envs, protocols, budgets, reps, max_steps, concurrency, workers,
             executor, ray_address, seed, out_dir, force, rerun_failed, quiet, base_url, api_key_env,
             reasoning_effort, temperature, max_tokens, timeout, max_retries, no_structured, models_file,
             max_cost, window, noises, contexts, distractors):
    """Play the episode matrix and store every episode.

    With no PATHS it uses the bundled cards (the repository's cards/).
    The defaults run the baseline player over both settings, both
    environments and all three protocols, 3 repetitions, B = 4. The run is
    resumable: rerunning the same command skips finished episodes.
    """
    import asyncio
    from pathlib import Path

    from .controls import CONTEXTS
    from .executors import ExecutorError
    from .players import PlayerSpecError
    from .records import ENVIRONMENTS, PROTOCOLS, SETTINGS
    from .runner import EvalConfig, run_eval
    from .store import Store
    from .summary import current_rows, failure_counts, spend_summary, spend_text, usage_table, write_summary

    if ray_address and executor != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    if not paths:
        paths = (_bundled_cards(),)
    slug = player.replace(":", "_").replace("/", "_")
    config = EvalConfig(
        paths=list(paths), player=player, settings=_csv_choice(settings, SETTINGS, "setting"),
        environments=_csv_choice(envs, ENVIRONMENTS, "env"),
        protocols=_csv_choice(protocols, PROTOCOLS, "protocol"), budgets=_budgets(budgets),
        repetitions=reps, max_steps=max_steps, concurrency=concurrency, workers=workers, executor=executor,
        ray_address=ray_address, seed=seed,
        out=out_dir or str(Path("runs") / slug), force=force, rerun_failed=rerun_failed,
        max_cost=max_cost, window=window, noises=_noises(noises),
        contexts=_csv_choice(contexts, CONTEXTS, "context"), distractors=_distractor_counts(distractors),
        llm={"base_url": base_url, "api_key_env": api_key_env, "reasoning_effort": reasoning_effort,
             "temperature": temperature, "max_tokens": max_tokens, "timeout": timeout,
             "max_retries": max_retries, "structured": not no_structured, "models": models_file})
    try:
        find_cards(config.paths)
    except CardPathError as exc:
        raise click.UsageError(str(exc))
    from .options import check_output_folder
    check_output_folder(config.out, "--out")
    if window:
        from .collection import parse_window
        try:
            parse_window(window)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--window")

    progress, on_progress = _progress("episodes", quiet)
    from .llm.client import AuthFailure
    try:
        with progress:
            report = asyncio.run(run_eval(config, on_progress))
    except PlayerSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--player")
    except ExecutorError as exc:
        raise click.UsageError(str(exc))
    except AuthFailure as exc:  # found before any episode started (e.g. no key)
        click.echo(f"scigame: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    for path, why in report.skipped_cards:
        click.echo(f"skipped {path}: {why}", err=True)
    if report.excluded:
        click.echo(f"{len(report.excluded)} Temporal card(s) excluded:", err=True)
        for name, why in report.excluded:
            click.echo(f"  {name}: {why}", err=True)
    with Store(report.folder) as store:
        rows, judgements, spend = store.rows(), store.judgement_rows(), spend_summary(store)
    rows, stale = current_rows(rows)
    table = write_summary(report.folder, rows, judgements, spend)
    _print_summary(table, failure_counts(rows), usage_table(rows), stale)
    if spend["calls"] or spend["spent_usd"]:
        click.echo(spend_text(spend))
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"{report.played} played, {report.skipped} already finished, {report.unfinished} unfinished "
               f"of {report.planned} planned; run folder: {report.folder}")
    if report.not_started:
        click.echo(f"{report.not_started} episodes not started: the run has spent ${report.spent_usd:.4f} "
                   f"of --max-cost ${max_cost:.4f}; rerun with a larger --max-cost to go on", err=True)
    for reason in report.unfinished_reasons[:5]:
        click.echo(f"unfinished: {reason}", err=True)
    if len(report.unfinished_reasons) > 5:
        click.echo(f"unfinished: ... and {len(report.unfinished_reasons) - 5} more (each episode's "
                   "`error` is in the store)", err=True)
    for err in report.errors:
        click.echo(f"error: {err}", err=True)
    if report.auth_error:
        click.echo(f"scigame: stopped: the endpoint refused the credentials: {report.auth_error}", err=True)
        sys.exit(EXIT_USAGE)
    if report.errors:
        sys.exit(EXIT_USAGE)
    # episodes left unstarted by --max-cost are not findings: the budget did its job (docs/cli.md)
    sys.exit(EXIT_FINDINGS if report.skipped_cards or report.unfinished else EXIT_OK)


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--judge", "judges", multiple=True, required=True,
              help="openai:MODEL; repeat for a panel of judges.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint of the judges.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True)
@click.option("--reasoning-effort", default=None)
@click.option("--temperature", type=TEMPERATURE, default=None, help="Sampling temperature, where supported.")
@click.option("--max-tokens", type=click.IntRange(1), default=None, help="Completion token cap per call.")
@click.option("--no-structured", is_flag=True, help="Do not ask the endpoint for structured outputs.")
@click.option("--timeout", type=SECONDS, default=120.0, show_default=True)
@click.option("--max-retries", type=click.IntRange(0, 50), default=6, show_default=True)
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 256))
@click.option("--models", "models_file", type=click.Path(dir_okay=False, exists=True), default=None)
@click.option("--force", is_flag=True, help="Judge again episodes already judged.")
@click.option("--quiet", is_flag=True)
def judge(run_dir, judges, base_url, api_key_env, reasoning_effort, temperature, max_tokens, no_structured,
          timeout, max_retries, concurrency, models_file, force, quiet):
    """Score the final explanations of a run's episodes with LLM judges (SES).

    Each non-null criterion must quote the transcript; quotes are verified
    and an unverifiable one counts as null. Results go into the run's store;
    `scigame report` then shows SES and the judges' agreement.
    """
    import asyncio
    from pathlib import Path

    from .llm.client import AuthFailure, ChatClient, LLMConfig
    from .llm.judge import agreement, judge_run
    from .llm.registry import load_registry
    from .store import DB_NAME, Store

    if not (Path(run_dir) / DB_NAME).exists():
        raise click.UsageError(f"{run_dir} is not a run folder (no {DB_NAME})")
    registry = load_registry(models_file)
    panel = []
    for spec in judges:
        kind, _, model = spec.partition(":")
        if kind != "openai" or not model:
            raise click.BadParameter(f"{spec!r}: judges are openai:MODEL", param_hint="--judge")
        config = LLMConfig(model=model, base_url=base_url, api_key_env=api_key_env,
                           reasoning_effort=reasoning_effort, temperature=temperature, max_tokens=max_tokens,
                           structured=not no_structured, timeout=timeout, max_retries=max_retries)
        try:
            config.api_key()
        except AuthFailure as exc:
            click.echo(f"scigame: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        panel.append((spec, ChatClient(config, registry)))
    progress, on_progress = _progress("judging", quiet)
    with progress:
        result = asyncio.run(judge_run(Path(run_dir), panel, concurrency, force, on_progress))
    with Store(run_dir) as store:
        alpha = agreement(store.judgement_rows())
    click.echo(f"{result.judged} judged, {result.skipped} already judged, {result.unfinished} left for a "
               f"later run (endpoint faults); {result.unverified} scores made null for unverifiable quotes")
    if len(panel) > 1:
        click.echo("Krippendorff's alpha: " + ", ".join(
            f"{k} {'–' if v is None else f'{v:.3f}'}" for k, v in alpha.items()))
    for err in result.errors:
        click.echo(f"error: {err}", err=True)
    if result.auth_error:
        click.echo(f"scigame: stopped: the endpoint refused the credentials: {result.auth_error}", err=True)
        sys.exit(EXIT_USAGE)
    if result.errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if result.unfinished else EXIT_OK)


@main.command()
@click.argument("run_dirs", metavar="RUN_DIR...", nargs=-1, required=True,
                type=click.Path(file_okay=False, exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "human", "markdown", "latex", "csv", "json"]),
              default="text", show_default=True, help="How to print the tables (human is text).")
@click.option("--table", "tables", multiple=True, metavar="NAME",
              help="Print only this table (repeatable): main, weak_strict, usage, failures, cards; default all.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the self-contained HTML report to this file.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), default=None,
              help="Also write every figure as a PNG into this folder.")
@click.option("--title", default=None, help="Title of the HTML report.")
def report(run_dirs, fmt, tables, html_file, plots_dir, title):
    """Tables, figures and an HTML page of one or more runs, side by side:
    ESR and PS with 95% intervals per cell, weak vs strict ESR, tokens and
    dollars, failure modes, per card; the HTML adds the figures, every
    episode's transcript and the runs' provenance."""
    from pathlib import Path

    from .report import TABLES, RunFolderError, build_tables, load_runs, render, report_json, write_html

    if plots_dir:
        from .options import check_output_folder
        check_output_folder(plots_dir, "--plots")
    for name in tables:
        if name not in TABLES:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(TABLES)}", param_hint="--table")
    try:
        runs = load_runs(list(run_dirs))
    except RunFolderError as exc:
        raise click.UsageError(str(exc))
    built = build_tables(runs)
    chosen = [built[n] for n in (tables or built)]
    if html_file:
        click.echo(f"wrote {write_html(runs, built, Path(html_file), title)}", err=True)
    if plots_dir:
        from .report.plots import write_plots
        for path in write_plots(runs, built, Path(plots_dir)):
            click.echo(f"wrote {path}", err=True)
    if fmt == "json":
        data = report_json(runs, built)
        data["tables"] = {t.name: data["tables"][t.name] for t in chosen}
        click.echo(json.dumps(data, indent=2))
        return
    width = None if sys.stdout.isatty() else 200
    click.echo(render(chosen, "text" if fmt == "human" else fmt, width), nl=False)
    if fmt in ("text", "human"):
        _print_judges(runs)


def _print_judges(runs) -> None:
    from .llm.judge import agreement
    from .summary import judge_usage, spend_text

    for p in runs.provenance:
        if p.spend.get("calls") or p.spend.get("spent_usd"):
            click.echo(f"{p.folder}: {spend_text(p.spend)}")
    stale = sum(p.stale for p in runs.provenance)
    if stale:
        click.echo(f"({stale} episodes of earlier versions of edited cards are kept in the store "
                   "but left out of this report)")
    if not runs.judgements:
        return
    u = judge_usage(runs.judgements)
    click.echo(f"judges: {u['input_tokens']} input and {u['output_tokens']} output tokens, ${u['cost_usd']:.4f}")
    if len({j["judge"] for j in runs.judgements}) > 1:
        click.echo("judge agreement (Krippendorff's alpha): " + ", ".join(
            f"{k} {'–' if v is None else f'{v:.3f}'}" for k, v in agreement(runs.judgements).items()))


# ---- Temporal curation: extract an anchored draft card, then review it --------------

def _curation_client(model, base_url, api_key_env, reasoning_effort, timeout, max_retries):
    """A ChatClient for `openai:MODEL`, or a usage error."""
    from .llm.client import ChatClient, LLMConfig

    kind, _, name = model.partition(":")
    if kind != "openai" or not name:
        raise click.BadParameter(f"{model!r}: expected openai:MODEL", param_hint="--model")
    return ChatClient(LLMConfig(model=name, base_url=base_url, api_key_env=api_key_env,
                                reasoning_effort=reasoning_effort, timeout=timeout, max_retries=max_retries))


def _run_llm(coro_factory, client):
    """Run one curation coroutine; endpoint trouble becomes a message and an exit code."""
    import asyncio

    from .curation import CurationError
    from .llm.client import AuthFailure
    from .players.base import PlayerFault

    async def go():
        try:
            return await coro_factory()
        finally:
            await client.close()

    try:
        return asyncio.run(go())
    except AuthFailure as exc:
        click.echo(f"scigame: the endpoint refused the credentials: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except PlayerFault as exc:
        click.echo(f"scigame: the endpoint failed: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    except CurationError as exc:
        click.echo(f"scigame: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)


_CURATION_OPTIONS = [
    click.option("--model", required=True, help="openai:MODEL"),
    click.option("--base-url", default=None, help="OpenAI-compatible endpoint."),
    click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
                 help="Environment variable that holds the API key."),
    click.option("--reasoning-effort", default=None, help="Passed to the endpoint (e.g. low, medium, high)."),
    click.option("--timeout", type=SECONDS, default=300.0, show_default=True, help="Seconds per LLM call."),
    click.option("--max-retries", type=click.IntRange(0, 50), default=6, show_default=True,
                 help="Retries of an infrastructure fault per call."),
]


def _curation_options(f):
    for option in reversed(_CURATION_OPTIONS):
        f = option(f)
    return f


@main.command()
@click.argument("source", metavar="SOURCE.txt", type=click.Path(exists=True, dir_okay=False))
@_curation_options
@click.option("--out", "out_dir", default="drafts", show_default=True, type=click.Path(file_okay=False),
              help="Folder for <card>.sci and <card>.provenance.json.")
def curate(source, model, base_url, api_key_env, reasoning_effort, timeout, max_retries, out_dir):
    """Extract a Temporal draft card from a source text with an LLM.

    The source is numbered line by line; the LLM writes one card and
    anchors every number and claim to source lines. The anchors are
    verified and the card linted; problems are sent back (at most twice).
    Writes OUT/<card>.sci and OUT/<card>.provenance.json. Exit status:
    0 verified draft, 1 failed, 2 usage error.
    """
    from .curation import curate as run_curate

    client = _curation_client(model, base_url, api_key_env, reasoning_effort, timeout, max_retries)
    result = _run_llm(lambda: run_curate(source, client, out_dir), client)
    if not result.ok:
        click.echo(f"scigame: curation of {source} failed after {result.corrections} corrections; "
                   "the last draft still has these problems:", err=True)
        for p in result.problems:
            click.echo(f"  - {p}", err=True)
        sys.exit(EXIT_FINDINGS)
    click.echo(f"draft {result.draft_path} (provenance {result.provenance_path}); "
               f"{result.corrections} correction{'s' if result.corrections != 1 else ''}, "
               f"${result.usage.cost_usd:.4f}")
    click.echo(f"next: scigame review {result.draft_path} --source {source} --model MODEL")
    sys.exit(EXIT_OK)


@main.command()
@click.argument("draft", metavar="DRAFT.sci", type=click.Path(exists=True, dir_okay=False))
@click.option("--source", "source", required=True, metavar="SOURCE.txt",
              type=click.Path(exists=True, dir_okay=False), help="The source text the draft claims to follow.")
@_curation_options
def review(draft, source, model, base_url, api_key_env, reasoning_effort, timeout, max_retries):
    """Review a draft card against its source with an independent LLM call.

    Prints the verdict and reasons and writes <card>.review.json next to
    the draft. Exit status: 0 only when the reviewer accepts and the draft
    lints clean (no errors, no warnings); 1 otherwise; 2 usage error.
    """
    from .curation import review as run_review
    from .curation import write_review

    client = _curation_client(model, base_url, api_key_env, reasoning_effort, timeout, max_retries)
    result = _run_llm(lambda: run_review(draft, source, client), client)
    path = write_review(result)
    click.echo(f"verdict: {result.verdict}")
    for r in result.reasons:
        click.echo(f"  - {r}")
    click.echo("checks: " + ", ".join(f"{k} {v}" for k, v in result.checks.items()))
    for p in result.lint:
        click.echo(f"lint: {p}", err=True)
    for p in result.problems:
        click.echo(f"problem: {p}", err=True)
    if result.verdict == "accept" and not result.accepted:
        click.echo("scigame: the reviewer accepted, but the draft is not clean (see above): not accepted",
                   err=True)
    click.echo(f"review written to {path}")
    sys.exit(EXIT_OK if result.accepted else EXIT_FINDINGS)


@main.command(name="fmt")
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

    from .compiler import render
    from .compiler.format import format_text

    try:
        files = find_cards(paths)
    except CardPathError as exc:
        raise click.UsageError(str(exc))
    changed, failed = [], 0
    for f in files:
        try:
            old = Path(f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            click.echo(f"{f}: cannot read: {getattr(exc, 'strerror', None) or exc}", err=True)
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
            Path(f).write_text(result.text, encoding="utf-8")
            click.echo(f"reformatted {f}")
    verb = "would change" if (check or show_diff) else "changed"
    click.echo(f"{len(files)} card{'s' if len(files) != 1 else ''}: {len(changed)} {verb}"
               + (f", {failed} could not be formatted" if failed else ""), err=True)
    sys.exit(EXIT_FINDINGS if failed or (check and changed) else EXIT_OK)


@main.command(name="export")
@click.argument("card_path", metavar="CARD", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True)
@click.option("-o", "--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write here instead of standard output.")
def export_cmd(card_path, fmt, out_file):
    """Write a card as JSON (schema: scigame/data/card.schema.json).

    Exit status 1 (with the lint errors) if the card does not check.
    """
    from pathlib import Path

    from .compiler import check_file, parse_source, render
    from .interchange import export_card

    result = check_file(card_path)
    if not result.ok:
        for d in result.errors:
            click.echo(render(d, result.source), err=True)
        sys.exit(EXIT_FINDINGS)
    text = json.dumps(export_card(parse_source(result.source.text, card_path)[0]), indent=2) + "\n"
    if out_file:
        Path(out_file).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@main.command(name="import")
@click.argument("json_file", metavar="CARD.json", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--out", "out_file", required=True, type=click.Path(dir_okay=False),
              help="The .sci file to write.")
def import_cmd(json_file, out_file):
    """Write a JSON card (as `export` writes it) as a .sci card.

    A problem is reported with its JSON path (`$.inputs[0].domain.lo`) and
    exit status 1; nothing is written then.
    """
    from pathlib import Path

    from .interchange import InterchangeError, import_card

    try:
        data = json.loads(Path(json_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {json_file}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        click.echo(f"{json_file}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}", err=True)
        sys.exit(EXIT_FINDINGS)
    try:
        text = import_card(data)
    except InterchangeError as exc:
        click.echo(f"{json_file}: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    Path(out_file).write_text(text, encoding="utf-8")
    click.echo(f"wrote {out_file}")


@main.command(name="lsp")
def lsp_cmd():
    """Run the .sci language server on stdin/stdout (for editors).

    Diagnostics as you type, hover with units and dimensions, go to
    definition. Needs the `lsp` extra: pip install 'scigame[lsp]'.
    """
    try:
        import pygls  # noqa: F401
    except ImportError:
        raise click.UsageError("the language server needs pygls: pip install 'scigame[lsp]'") from None
    from .lsp import serve
    serve()


@main.command(name="new")
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

    from .compiler.checker import FUNCTIONS, KEYWORDS
    from .skeleton import skeleton

    if name in KEYWORDS or name in FUNCTIONS or name == "pi":
        raise click.BadParameter(f"{name!r} is a reserved word of the card language", param_hint="NAME")
    try:
        text = skeleton(name, collection)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
    path = Path(out_dir) / f"{name}.sci"
    if path.exists() and not force:
        raise click.UsageError(f"{path} exists (use --force to overwrite it)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path}; next: scigame lint {path}")


if __name__ == "__main__":  # pragma: no cover
    main()
