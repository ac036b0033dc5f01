"""Timers around the kinds of work in an episode, in whichever process plays it
(benchmarks/eval_matrix.py):

  fitting     the baseline player's decide() (its whole search)
  simulation  oracle checks, simulator kernels and quantisation
  scoring     validation, evaluation on the hidden set, the strict sympy
              check and failure classification
  storage     writing each episode to SQLite (the runner's process:
              Store.put and Store.finish_attempt)
  episode     a worker's whole episode (executors._worker_play)
  episode_cpu the CPU time of those episodes (time.process_time: what the
              load of other processes on the machine does not inflate)

With SCIGAME_BENCH_TIMERS set to a folder, importing this module installs
the timers; eval_matrix.py adds it to the fork server's preloaded modules,
so every worker forked from it is timed too. Each process writes its totals
to FOLDER/<pid>.json after each episode (and the runner's after the run);
`collect` adds them up.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections import defaultdict
from pathlib import Path

ENV = "SCIGAME_BENCH_TIMERS"
spent: dict[str, float] = defaultdict(float)
_installed: list[bool] = []


def _timed(kind: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            spent[kind] += time.perf_counter() - t0
    return wrapper


def dump() -> None:
    folder = os.environ.get(ENV)
    if folder:
        (Path(folder) / f"{os.getpid()}.json").write_text(json.dumps(spent))


def _worker_episode(fn):
    @functools.wraps(fn)  # its name too: the runner sends it to the workers by name
    def wrapper(*a, **kw):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*a, **kw)
        finally:
            spent["episode"] += time.perf_counter() - t0
            spent["episode_cpu"] += time.process_time() - c0
            spent["episodes"] += 1
            dump()
    return wrapper


def install() -> None:
    """Wrap the real calls (this is a measurement: the timers wrap them in place)."""
    if _installed:
        return
    _installed.append(True)
    import scigame.card as card_mod
    import scigame.executors as executors
    import scigame.protocols as protocols
    import scigame.store as store_mod
    from scigame.players.baseline import BaselinePlayer

    card_mod.CompiledCard.simulate = _timed("simulation", card_mod.CompiledCard.simulate)
    protocols.judge = _timed("scoring", protocols.judge)
    store_mod.Store.put = _timed("storage", store_mod.Store.put)
    store_mod.Store.finish_attempt = _timed("storage", store_mod.Store.finish_attempt)  # the runner's write
    BaselinePlayer.decide = _timed("fitting", BaselinePlayer.decide)
    executors._worker_play = _worker_episode(executors._worker_play)


def collect(folder: Path) -> dict[str, float]:
    """The totals of every process that wrote to `folder`."""
    total: dict[str, float] = defaultdict(float)
    for f in Path(folder).glob("*.json"):
        for kind, seconds in json.loads(f.read_text()).items():
            total[kind] += seconds
    return total


if os.environ.get(ENV):
    install()
