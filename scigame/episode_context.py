"""What the layers of one run share without importing each other: the
cores a process may use, and the context variables the runner sets around
each episode (the slot of `--concurrency` it holds, the ledger its LLM calls
report to). A leaf: it imports nothing of scigame, so the simulator runtime,
the protocols, the LLM client and the store all read it while the layers
above them point one way (runner → executors → protocols → card → simrt)."""

from __future__ import annotations

import contextvars
import os
from typing import TYPE_CHECKING, Callable, Optional

if TYPE_CHECKING:
    from .records import Usage


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Gives back the running episode's slot of `--concurrency` early: once its
#: last call is answered, deciding its outcome (scoring, the strict sympy
#: check, in a worker process or a thread) needs no endpoint, and the next
#: episode may start talking to it meanwhile. The runner sets it for each
#: episode it plays in this process; `protocols.play_episode` calls it.
SLOT_RELEASE: contextvars.ContextVar[Optional[Callable[[], None]]] = contextvars.ContextVar(
    "SLOT_RELEASE", default=None)


class Once:
    """A callable that calls `fn` the first time only."""

    def __init__(self, fn: Callable[[], None]):
        self.fn: Optional[Callable[[], None]] = fn

    def __call__(self) -> None:
        fn, self.fn = self.fn, None
        if fn is not None:
            fn()


#: The current episode attempt's call ledger: what every LLM call that gets
#: an answer reports its usage to. The runner sets it around each episode to
#: a function that writes the call into the run's store (Store.record_call),
#: so the client reports calls without knowing there is a store.
CALL_LEDGER: contextvars.ContextVar[Optional[Callable[["Usage"], None]]] = contextvars.ContextVar(
    "scigame_call_ledger", default=None)


def record_call(usage: "Usage") -> None:
    """Report one answered call to the attempt in progress, if any."""
    ledger = CALL_LEDGER.get()
    if ledger is not None:
        ledger(usage)
