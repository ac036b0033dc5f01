"""What one card's episodes share: the baseline's answer to the same data.

A discovery search (and an identification fit) is a pure function of the
task the player was shown and the observations it holds. Episodes of one
card often hand it exactly the same ones: the repetitions of a Fixed cell
measure the same designed points, and without noise they read the same
values (the default matrix's Fixed cells all do), as do Adaptive episodes
that take the same steps. So each process keeps the last few answers,
keyed by a digest of every argument (the task's JSON, each array's bytes,
shape and type, the other values' repr), and hands back a deep copy (the
player changes its hypotheses' confidences in place). A different bit
anywhere is a different key: the answer is the one the search would give.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
from collections import OrderedDict
from typing import Any, Callable

import numpy as np


def _feed(h: Any, value: Any) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"a{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, dict):
        h.update(b"{")
        for k in sorted(value, key=repr):
            h.update(repr(k).encode())
            _feed(h, value[k])
        h.update(b"}")
    elif isinstance(value, (list, tuple)):
        h.update(b"[" if isinstance(value, list) else b"(")
        for v in value:
            _feed(h, v)
        h.update(b"]")
    elif isinstance(value, (str, int, float, bool, type(None), np.generic)):
        h.update(f"{type(value).__name__}:{value!r};".encode())  # repr: a float's every bit
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):  # a parsed Input or Output
        h.update(f"<{type(value).__qualname__}".encode())
        for f in dataclasses.fields(value):
            h.update(f.name.encode())
            _feed(h, getattr(value, f.name))
        h.update(b">")
    else:
        raise TypeError(f"no digest for a {type(value).__name__}")


def digest(*args: Any, **kwargs: Any) -> str:
    """A sha256 of every argument's whole value (see the module doc)."""
    h = hashlib.sha256()
    _feed(h, list(args))
    _feed(h, kwargs)
    return h.hexdigest()


def _default_size() -> int:
    """Answers kept per function: $SCIGAME_SEARCH_MEMO (0 turns the memo off,
    e.g. to time the search itself), else 64 (a card's cells' worth)."""
    try:
        return max(0, int(os.environ.get("SCIGAME_SEARCH_MEMO", "64")))
    except ValueError:
        return 64


class Memo:
    """The last `size` answers of `fn`, by the digest of its arguments."""

    def __init__(self, fn: Callable[..., Any], size: int | None = None):
        self.fn, self.size = fn, _default_size() if size is None else size
        self.answers: OrderedDict[str, Any] = OrderedDict()
        self.hits = self.misses = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.size <= 0:
            return self.fn(*args, **kwargs)
        key = digest(getattr(self.fn, "__qualname__", ""), *args, **kwargs)
        if key in self.answers:
            self.answers.move_to_end(key)
            self.hits += 1
        else:
            self.misses += 1
            self.answers[key] = self.fn(*args, **kwargs)
            while len(self.answers) > self.size:
                self.answers.popitem(last=False)
        return copy.deepcopy(self.answers[key])
