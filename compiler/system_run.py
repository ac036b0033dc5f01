"""Loading and running a system card's simulator module: the compiled
folder's simulator.py at play time, and the same text outside a folder for
lint's numeric checks (E700, E701, W400, W401) and the hidden evaluation
sets at build time; the module of a player's submitted law at scoring time.

A module's text is kept in the user's cache folder under the hash of the
text (`systems/sys_<hash>.py`) and imported from there once per process,
so numba's own disk cache beside it makes every later process's first call
cheap, and lint, the build and the runtime of one process share one
compiled `model` (system_emit.card_module_source gives them the same text).
The integrator they call is scigame/simrt_system.py's, compiled once per
machine. A card whose text changed gets another module.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Mapping

import numpy as np

_LOCK = threading.Lock()
_MODULES: dict[str, object] = {}


def _digest(source: str) -> str:
    """The name a module's text is kept under (`systems/sys_<digest>.py`)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:20]


def is_compiled(source: str) -> bool:
    """Whether numba's disk cache already holds this text's `model` and the
    shared integrator, so `compile --warm` of an unchanged system card need
    not import numba (a cache numba finds stale is rebuilt on first use)."""
    from .artifact import SYSTEM_RUNTIME
    from .usercache import numba_cache_folder, user_cache_folder
    base = user_cache_folder()
    runtime = importlib.util.find_spec(SYSTEM_RUNTIME)
    if base is None or runtime is None or not runtime.origin:
        return False
    name = f"sys_{_digest(source)}"  # load_source's file of this text
    model = numba_cache_folder(base / "systems" / f"{name}.py")
    driver = numba_cache_folder(Path(runtime.origin))
    return (any(model.glob(f"{name}.model-*.nbi"))
            and all(any(driver.glob(f"simrt_system.{fn}-*.nbi")) for fn in ("evaluate", "integrate")))


def load_source(source: str):
    """The module of a generated integrator text (compiled by numba on first call)."""
    digest = _digest(source)
    with _LOCK:
        if digest in _MODULES:
            return _MODULES[digest]
        from .usercache import user_cache_folder
        base = user_cache_folder()
        folder = (base / "systems") if base is not None else Path(tempfile.mkdtemp(prefix="scigame-systems-"))
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"sys_{digest}.py"
        if not path.exists() or path.read_text(encoding="utf-8") != source:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".sys.")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(source)
            os.replace(tmp, path)
        name = f"scigame_system_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _MODULES[digest] = module
        return module


def run(module, world: str, xs: list[np.ndarray], n_outputs: int) -> list[np.ndarray]:
    """One world's kernel over points (the prange driver for many)."""
    n = len(xs[0]) if xs else 0
    ys = [np.empty(n) for _ in range(n_outputs)]
    if n == 0:
        return ys
    with _LOCK:  # numba's thread pool serves one caller at a time
        getattr(module, f"env_{world}_parallel")(*[np.ascontiguousarray(x, dtype=np.float64) for x in xs], *ys)
    return ys


_SPECS: dict[int, tuple] = {}
#: Outputs already integrated in this process, by module, world and points:
#: a build integrates the hidden evaluation set three times otherwise (lint's
#: numeric checks, the sound-world check and the set itself), each a
#: tolerance-controlled integration of every point.
_RESULTS: dict[tuple, list] = {}


def evaluate_system(card, env, inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    """A checked system card's outputs (declared units) at inputs (declared
    units), integrated by its compiled kernel."""
    from .system_emit import card_module_source, system_spec
    key = id(card)
    if key not in _SPECS or _SPECS[key][0] is not card:
        if len(_SPECS) > 64:
            _SPECS.clear()
        _SPECS[key] = (card, load_source(card_module_source(card, system_spec(card))))
    module = _SPECS[key][1]
    shape = np.broadcast_shapes(*(np.shape(inputs[s.name]) for s in card.inputs))
    xs = [np.ascontiguousarray(np.broadcast_to(np.asarray(inputs[s.name], dtype=float), shape).ravel())
          for s in card.inputs]
    digest = hashlib.sha256(b"".join(x.tobytes() for x in xs)).hexdigest()
    memo = (module.__name__, env.name, shape, digest)  # the module's name is its text's hash
    if memo not in _RESULTS:
        if len(_RESULTS) > 32:
            _RESULTS.clear()
        _RESULTS[memo] = run(module, env.name, xs, len(card.outputs))
    return {o.name: y.reshape(shape).copy() for o, y in zip(card.outputs, _RESULTS[memo])}
