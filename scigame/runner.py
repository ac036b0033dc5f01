"""The evaluation matrix: cards × environments × settings × protocols ×
budgets × repetitions, played by one player into one run folder.

The run folder holds `episodes.sqlite` (the store), `config.json` (the
exact configuration and package versions), `cards/` (the compiled cards
the run used) and, at the end, `summary.csv` / `summary.json`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import json
import platform
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Callable, Optional

from .compiler.atomic import write_atomic
from .card import CardError, CompiledCard, load_card
from .discovery import find_cards
from .episode_context import CALL_LEDGER, SLOT_RELEASE, Once
from .executors import make_executor
from .players import PlayerFactory, make_player
from .records import EpisodeKey
from .run_config import EvalConfig
from .runlock import hold_run_lock
from .store import Store


@dataclass
class PlannedEpisode:
    key: EpisodeKey
    card: CompiledCard
    seed: int
    max_steps: Optional[int]


@dataclass
class RunReport:
    folder: Path
    planned: int = 0
    skipped: int = 0  # already finished
    played: int = 0
    unfinished: int = 0
    skipped_cards: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    errors: list[str] = field(default_factory=list)  # internal errors (episodes left unfinished)
    not_started: int = 0  # left for later by --max-cost
    spent_usd: float = 0.0  # the run folder's total, this invocation included
    auth_error: str = ""  # the endpoint refused the credentials: the run stopped
    excluded: list[tuple[str, str]] = field(default_factory=list)  # Temporal cards left out, and why
    unfinished_reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # from the player's client (once per run)
    planned_keys: list[tuple] = field(default_factory=list)  # this invocation's episodes (EpisodeKey.as_tuple)


def episode_seed(base: int, key: EpisodeKey) -> int:
    """A stable seed per episode: the same key always plays the same way,
    and repetitions differ."""
    played = [key.card_hash, key.environment, key.setting, key.protocol, key.budget, key.repetition]
    if not key.controls.is_default:  # default controls keep the seeds runs had before controls existed
        played.append(key.controls.model_dump())
    text = json.dumps([base, *played])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


@dataclass(frozen=True)
class ResolvedRun:
    """What a run's options resolve to, found and read once and handed down
    (`resolve_run`): the card files of its paths, and its Temporal window as dates."""

    card_files: tuple[Path, ...]
    window: Optional[tuple[Optional[date], Optional[date]]] = None


def resolve_run(config: EvalConfig) -> ResolvedRun:
    """The card files and window of `config`: CardPathError for a path with no
    cards, ValueError for a window that does not read (the command turns
    them into usage errors before the run starts)."""
    from .collection import parse_window
    return ResolvedRun(tuple(find_cards(config.paths)), parse_window(config.window) if config.window else None)


def load_cards(paths: list[str], folder: Path) -> tuple[list[CompiledCard], list[tuple[str, str]]]:
    """Compile every card of `paths` into the run folder (see compile_cards)."""
    return compile_cards(find_cards(paths), folder)


def compile_cards(files, folder: Path) -> tuple[list[CompiledCard], list[tuple[str, str]]]:
    """Compile every card file into the run folder; cards that fail lint are
    skipped with the reason."""
    cards, skipped = [], []
    for path in files:
        try:
            cards.append(load_card(path, cache_dir=folder / "cards"))
        except CardError as exc:
            first = str(exc).splitlines()
            skipped.append((str(path), first[1] if len(first) > 1 else first[0]))
    return cards, skipped


def select_temporal(cards: list[CompiledCard], player_name: str, config: EvalConfig,
                    resolved: Optional[ResolvedRun] = None) -> tuple[list[CompiledCard], list[tuple[str, str]]]:
    """Leave out Temporal cards a model may have seen: for an LLM player,
    both the journal and the first-preprint date must be after the model's
    knowledge cutoff (from the model registry). `--window` keeps only
    Temporal cards whose dates fall inside it (as `resolved` read it, else
    as `config` gives it). Historical cards always stay."""
    from .collection import after_cutoff, in_window, parse_window

    window = resolved.window if resolved is not None else parse_window(config.window) if config.window else None
    cutoff, model = None, None
    if player_name.startswith("openai:"):
        from .llm.registry import load_registry
        model = player_name.split(":", 1)[1]
        info = load_registry(config.llm.get("models")).get(model)
        cutoff = info.knowledge_cutoff if info else None
    kept, excluded = [], []
    for card in cards:
        d = card.data
        if d.collection != "temporal":
            kept.append(card)
            continue
        if window is not None and not in_window(d.published, d.preprint, window):
            excluded.append((card.name, f"outside the window {config.window}"))
            continue
        if model is not None:
            ok, why = after_cutoff(d.published, d.preprint, cutoff)
            if not ok:
                excluded.append((card.name, f"{why} (model {model})"))
                continue
        kept.append(card)
    return kept, excluded


def _cells(config: EvalConfig, card: CompiledCard):
    """(environment, setting, protocol, budget) of every cell of one card."""
    for env, setting, protocol in itertools.product(config.environments, config.settings, config.protocols):
        if protocol == "fixed":
            budgets = config.budgets
        elif protocol == "adaptive":
            budgets = [config.max_steps or card.data.max_steps or 0]
        else:
            budgets = [0]
        for budget in budgets:
            yield env, setting, protocol, budget


def plan(config: EvalConfig, cards: list[CompiledCard], player_name: str) -> list[PlannedEpisode]:
    planned = []
    controls = list(itertools.product(config.noises, config.contexts, config.distractors))
    for card in cards:
        for (env, setting, protocol, budget), (noise, context, k) in itertools.product(
                _cells(config, card), controls):
            for rep in range(config.repetitions):
                key = EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment=env,
                                 setting=setting, protocol=protocol, budget=budget, repetition=rep,
                                 player=player_name, noise=noise, context=context, distractors=k,
                                 tools=config.tools)
                steps = (budget or None) if protocol == "adaptive" else None
                planned.append(PlannedEpisode(key, card, episode_seed(config.seed, key), steps))
    return planned


def _versions() -> dict:
    """The versions of Python and the packages a run depends on, for its config.json."""
    return dict(_installed_versions())


@functools.cache
def _installed_versions() -> tuple[tuple[str, Optional[str]], ...]:
    # read once per process: each read parses the packages' metadata files (10-30 ms), and a process that
    # plays several runs (a notebook, the benchmarks) runs the same packages in all of them
    from importlib.metadata import PackageNotFoundError, version
    out = [("python", platform.python_version())]
    for pkg in ("scigame", "numpy", "numba", "sympy", "pint", "lark", "pydantic", "openai"):
        try:
            out.append((pkg, version(pkg)))
        except PackageNotFoundError:
            out.append((pkg, None))
    return tuple(out)


async def run_eval(config: EvalConfig, on_progress: Callable[[str, int, int], None] | None = None,
                   player: tuple[str, PlayerFactory] | None = None,
                   resolved: Optional[ResolvedRun] = None) -> RunReport:
    """Play every episode of the matrix that is not finished yet.

    `on_progress(event, done, total)` is called with event "plan" once and
    "episode" after each episode. `player` = (name, factory) plays instead
    of `config.player` (for players defined in Python); such a player plays
    in this process unless `config.workers` asks for worker processes. `resolved` is what
    the command already found and read (`resolve_run`); without it the run
    resolves its config itself.
    """
    resolved = resolved if resolved is not None else resolve_run(config)
    folder = Path(config.out)
    folder.mkdir(parents=True, exist_ok=True)
    with hold_run_lock(folder):  # a second eval of this folder stops here (runlock.py)
        return await _run_locked(config, folder, on_progress, player, resolved)


async def _run_locked(config: EvalConfig, folder: Path, on_progress, player, resolved: ResolvedRun) -> RunReport:
    options = dict(config.llm)
    if config.player.startswith("openai:"):  # one connection kept alive per episode in flight
        options.setdefault("connections", config.concurrency)
    if config.tools != "none":
        from .llm.tools import ToolCaps
        options.update(tools=config.tools, tool_caps=ToolCaps(calls=config.tool_calls, cpu_seconds=config.tool_cpu,
                                                              wall_seconds=config.tool_wall))
    player_name, factory = player or make_player(config.player, **options)
    if player is not None and config.workers is None:  # a factory of the caller's (it may be a local class,
        config = replace(config, workers=1)  # which worker processes cannot receive) plays in this process
    executor = make_executor(config, factory)
    try:
        return await _run(config, on_progress, folder, player_name, factory, executor, resolved)
    finally:
        await executor.aclose()


async def _run(config: EvalConfig, on_progress, folder: Path, player_name: str, factory: PlayerFactory,
               executor, resolved: ResolvedRun) -> RunReport:
    report = RunReport(folder=folder)
    cards, report.skipped_cards = compile_cards(resolved.card_files, folder)
    cards, report.excluded = select_temporal(cards, player_name, config, resolved)
    planned = plan(config, cards, player_name)
    report.planned = len(planned)
    report.planned_keys = [p.key.as_tuple() for p in planned]
    invocation = {"config": asdict(config), "player": player_name, "versions": _versions(),
                  "cards": {c.name: c.data.source_sha256 for c in cards},
                  "skipped_cards": report.skipped_cards, "excluded_temporal": report.excluded,
                  "written_at": time.time()}
    write_atomic(folder / "config.json", json.dumps(invocation, indent=2))  # the latest invocation
    with open(folder / "invocations.jsonl", "a", encoding="utf-8") as log:  # and every one, in order
        log.write(json.dumps(invocation) + "\n")
    with Store(folder) as store:
        todo = _still_to_play(store, planned, config, report)
        if executor.kind != "inline":  # worker processes: the longest episodes first, the short ones fill the tail
            todo = longest_first(todo)
        if on_progress:
            on_progress("plan", report.skipped, len(planned))
        semaphore = asyncio.Semaphore(executor.slots)
        report.spent_usd = store.total_cost()
        from .llm.client import gather_until_auth_failure

        async def one(p: PlannedEpisode):
            await semaphore.acquire()
            release = Once(semaphore.release)
            token = SLOT_RELEASE.set(release)
            try:
                if config.max_cost is not None and report.spent_usd >= config.max_cost:
                    report.not_started += 1
                    return
                episode = await guarded_episode(store, p, executor, report)
            finally:
                SLOT_RELEASE.reset(token)
                release()
            if episode.status == "unfinished":
                report.unfinished += 1
                report.unfinished_reasons.append(f"{p.key.card} {p.key.environment} {p.key.setting} "
                                                 f"{p.key.protocol} rep {p.key.repetition}: {episode.error}")
            else:
                report.played += 1
            if on_progress:
                on_progress("episode", report.skipped + report.played + report.unfinished, len(planned))

        try:
            # an auth failure stops every episode in flight (none is stored half-done)
            report.auth_error = await gather_until_auth_failure([asyncio.create_task(one(p)) for p in todo])
        finally:
            close = getattr(factory, "aclose", None)
            if close is not None:
                await close()
            report.warnings = list(getattr(factory, "warnings", lambda: [])())
            report.spent_usd = store.total_cost()
    return report


def longest_first(todo: list[PlannedEpisode]) -> list[PlannedEpisode]:
    """The episodes in the order a pool of workers should start them: the
    ones that take longest first (a rank, not a time: Adaptive Discovery
    searches again after each of up to its step cap's experiments, Adaptive
    Identification refits, Fixed searches once, Prior not at all; more
    inputs, a larger search), so that no worker is left with one long
    episode while the others wait at the end of the run. The order is stable
    within a rank, and an episode plays the same wherever it runs (its seed
    is its key's), so the rows do not change."""
    rank = {"adaptive": 2, "fixed": 1}

    def cost(p: PlannedEpisode) -> tuple:
        key = p.key
        return (rank.get(key.protocol, 0), key.setting == "discovery", p.max_steps or key.budget,
                len(p.card.input_names))
    return sorted(todo, key=cost, reverse=True)


def _still_to_play(store: Store, planned: list[PlannedEpisode], config: EvalConfig,
                   report: RunReport) -> list[PlannedEpisode]:
    """The planned episodes the store does not hold finished (all of them with
    --force; a weak-ESR failure too with --rerun-failed); counts the rest as skipped."""
    todo = []
    for p in planned:
        stored = store.status(p.key)
        if stored and not config.force:
            status, weak_success = stored
            if status == "finished" and not (config.rerun_failed and not weak_success):
                report.skipped += 1
                continue
        todo.append(p)
    return todo


async def guarded_episode(store: Store, p: PlannedEpisode, executor, report: RunReport):
    """Play and store one episode as one new attempt, every call's usage
    archived as it arrives. One guard covers all of it, storage included: a
    bug (or a record that cannot be written) leaves this episode unfinished
    with an internal error, and the run goes on. Only an AuthFailure (or a
    cancellation) passes through; the calls made so far stay archived."""
    from .llm.client import AuthFailure
    from .records import Episode

    attempt: Optional[int] = None

    def ledger(usage) -> None:  # archived at once, and counted against --max-cost at once
        store.record_call(attempt, usage)
        report.spent_usd += usage.cost_usd

    token = CALL_LEDGER.set(ledger)
    try:
        attempt = store.begin_attempt(p.key)
        episode = await executor.play(p)
        metered = store.attempt_usage(attempt)
        if metered.calls:  # the archive saw every answered call, the episode's own sums may miss some
            episode = episode.model_copy(update={"spent": metered.model_copy(update={
                "retries": episode.spent.retries, "corrections": episode.spent.corrections})})
        report.spent_usd += store.finish_attempt(attempt, episode)  # a Python player's own usage
        return episode
    except AuthFailure:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug must not take the rest of the run down
        why = f"internal error: {type(exc).__name__}: {str(exc)[:500]}"
        report.errors.append(f"{p.key.card} {p.key.environment} {p.key.setting} {p.key.protocol}: "
                             f"{type(exc).__name__}: {str(exc)[:500]}")
        episode = Episode(key=p.key, collection=p.card.data.collection, seed=p.seed, task={},
                          status="unfinished", error=why)
        try:
            if attempt is None:
                raise RuntimeError("no attempt could be opened")
            episode.spent = store.attempt_usage(attempt)
            store.finish_attempt(attempt, episode)
        except Exception as again:  # noqa: BLE001 - the store itself failed: say so, keep going
            report.errors.append(f"{p.key.card}: the store could not record the episode: {again}")
        return episode
    finally:
        CALL_LEDGER.reset(token)
