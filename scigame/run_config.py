"""`scigame eval`'s options, declared once: the fields of `EvalConfig`.

A field is the run's configuration as the runner reads it and as the run
folder's `config.json` saves it (`dataclasses.asdict`); its `Option` row
says how the command line writes it (flag, help, type and, for a value
typed as text such as `--setting all`, the text of its default). The
command's click options are made from these rows (`scigame.options.
config_options`), so an option cannot be added in one place and missed in
another (tests/test_run_config.py). The command line and the API share
every default: `workers=None` is the cores available, as `--workers` says.

This module imports nothing heavy: the command line reads its rows at
start-up, and the run's vocabulary is looked up only when a default is made.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional


#: An option row's `given` when the option holds its field's default.
FIELD_DEFAULT = "the field's default"


@dataclass(frozen=True)
class Option:
    """How the command line writes one EvalConfig field.

    `kind` is the click type: text, int, ints (a whole number in `bounds`),
    number (a finite number in `bounds`), choice (one of `choices`), flag
    (on or off) or folder. `text` is the default as typed, for a field that
    the command line reads from text (scigame.options.READERS): its value,
    read, is the field's default. `given` is what the option holds when it
    is not given, where that differs from the field's default (`--out`:
    none, the folder is then named after the player and the cards)."""

    flag: str
    help: str
    kind: str = "text"
    bounds: tuple[Optional[float], Optional[float]] = (None, None)
    choices: tuple[str, ...] = ()
    text: Optional[str] = None
    given: Any = FIELD_DEFAULT
    metavar: Optional[str] = None
    show_default: bool = True


def _option(default: Any = dataclasses.MISSING, *, factory=dataclasses.MISSING, **row) -> Any:
    """A field of EvalConfig with its command-line row."""
    return field(default=default, default_factory=factory, metadata={"option": Option(**row)})


def _all(name: str):
    """A default of every name in the run's vocabulary `name` (looked up when the default is made)."""
    def every() -> list[str]:
        from . import records
        return list(getattr(records, name))
    return every


@dataclass
class EvalConfig:
    """One run of the evaluation matrix (`scigame eval`, `scigame.run_eval`)."""

    paths: list[str]
    player: str = _option("baseline", flag="--player", help="baseline | openai:MODEL | replay:RUN_DIR")
    settings: list[str] = _option(factory=_all("SETTINGS"), flag="--setting", text="all",
                                  help="identification,discovery (comma-separated) or all")
    environments: list[str] = _option(factory=_all("ENVIRONMENTS"), flag="--env", text="all",
                                      help="original,counterfactual or all")
    protocols: list[str] = _option(factory=_all("PROTOCOLS"), flag="--protocol", text="all",
                                   help="prior,fixed,adaptive or all")
    budgets: list[int] = _option(factory=lambda: [4], flag="--budget", text="4",
                                 help="Fixed-protocol budgets B, comma-separated (e.g. 1,2,4,8).")
    repetitions: int = _option(3, flag="--reps", kind="ints", bounds=(1, 1000),
                               help="Independent repetitions per cell.")
    max_steps: Optional[int] = _option(  # overrides the cards' adaptive step caps
        None, flag="--max-steps", kind="ints", bounds=(1, 100000), show_default=False,
        help="Adaptive step cap (default: each card's `adaptive ... max_steps`).")
    concurrency: int = _option(
        1, flag="--concurrency", kind="ints", bounds=(1, 256),
        help="Episodes in flight at once (players that wait on a network, e.g. openai:MODEL).")
    workers: Optional[int] = _option(  # None: the cores available (Ray: the cluster's CPUs)
        None, flag="--workers", kind="ints", bounds=(1, 4096), show_default=False,
        help="Worker processes (or Ray tasks in flight) for CPU-bound players such as the "
             "baseline. [default: the cores available; with --executor ray, the cluster's CPUs]")
    executor: str = _option(  # see scigame/executors.py
        "local", flag="--executor", kind="choice", choices=("local", "ray"),
        help="Where episodes run: this machine, or a Ray cluster (pip install -e '.[ray]').")
    ray_address: Optional[str] = _option(
        None, flag="--ray-address", metavar="ADDR", show_default=False,
        help="The Ray cluster to join (host:port, or `auto`); default: start a local Ray instance.")
    seed: int = _option(0, flag="--seed", kind="int", help="Base seed of the run.")
    out: str = _option("runs/baseline", flag="--out", kind="folder", given=None, show_default=False,
                       help="Run folder (default: runs/<player>). Rerunning the same command resumes it.")
    force: bool = _option(False, flag="--force", kind="flag", show_default=False,
                          help="Replay every episode, finished or not.")
    rerun_failed: bool = _option(False, flag="--rerun-failed", kind="flag", show_default=False,
                                 help="Also replay finished episodes that failed weak ESR.")
    max_cost: Optional[float] = _option(
        None, flag="--max-cost", kind="number", bounds=(0.0, None), show_default=False,
        help="Dollars: stop starting new episodes once the run folder has spent this much.")
    window: Optional[str] = _option(  # FROM..TO: Temporal cards whose two dates both fall inside
        None, flag="--window", metavar="FROM..TO", show_default=False,
        help="Keep only Temporal cards whose journal and preprint dates fall in this window "
             "(YYYY-MM-DD; either side may be empty).")
    #: Experimental controls, each an axis of the matrix (see scigame.controls):
    noises: list[Optional[float]] = _option(  # None: each card's own noise
        factory=lambda: [None], flag="--noise", text="card",
        help="Relative measurement noise on every output, comma-separated levels for a sweep "
             "(e.g. 0,0.001,0.01); `card`: each output's own `noise`.")
    contexts: list[str] = _option(
        factory=lambda: ["full"], flag="--context", text="full",
        help="Prior knowledge in the task text: full, no-background, anonymous (comma-separated).")
    distractors: list[int] = _option(factory=lambda: [0], flag="--distractors", text="0",
                                     help="Extra inputs the law ignores, comma-separated counts (e.g. 0,2).")
    tools: str = _option(  # a sandboxed Python, scigame/llm/tools.py
        "none", flag="--tools", kind="choice", choices=("none", "python"),
        help="Tools of an openai:MODEL player: python offers `run_python`, which runs its code "
             "on the episode's observations in a bubblewrap sandbox (docs/models.md).")
    tool_calls: int = _option(20, flag="--tool-calls", kind="ints", bounds=(1, 1000),
                              help="--tools python: calls per episode.")
    tool_cpu: float = _option(60.0, flag="--tool-cpu", kind="number", bounds=(0.1, 3600.0),
                              help="--tools python: CPU seconds per episode, all calls together (at most 10 per call).")
    tool_wall: float = _option(
        120.0, flag="--tool-wall", kind="number", bounds=(0.1, 7200.0),
        help="--tools python: wall-clock seconds per episode, all calls together (at most 20 per call).")
    llm: dict = field(default_factory=dict)  # LLMConfig fields and `models` (the LLM options, scigame.options)


def option_fields() -> list[dataclasses.Field]:
    """EvalConfig's fields that the command line sets, in the order `--help` lists them."""
    return [f for f in dataclasses.fields(EvalConfig) if "option" in f.metadata]
