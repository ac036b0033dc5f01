"""Where episodes are played: in this process, in a pool of worker
processes on this machine, or as Ray tasks on a cluster.

The runner plans the matrix, decides what to play and writes every
episode to the one store; an executor only plays: `await
executor.play(planned)` returns the finished `Episode`. Which executor a
run gets (`make_executor`):

    inline   this process, `concurrency` episodes in flight (asyncio). For
             `--workers 1`, and always for players that share an async
             client (an LLM player's HTTP connection pool: `factory.aclose`),
             whose work is waiting on the network, not the CPU. For those,
             each episode's outcome (scoring, the strict sympy check) is
             decided in a pool of `workers` processes (a thread with 1), so
             the event loop only waits, sends and reads.
    process  `workers` worker processes (forkserver). Each worker receives
             the player factory once and loads each compiled card once, then
             plays the episodes it
             is sent. Only the episode key and the card folder cross over;
             the episode comes back as JSON.
    ray      Ray tasks (`--executor ray [--ray-address ADDR]`, the `ray`
             extra). Each compiled card is shipped once, as its files, into
             Ray's object store; a worker writes it into a local folder
             keyed by its manifest hash, so cards need no shared filesystem.

An episode depends only on its card, key, seed and step cap, so every
executor stores the same rows for the same run.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import os
import pickle
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from .episode_context import SLOT_RELEASE, Once, available_cores  # noqa: F401 (read from here too)
from .records import Episode, EpisodeKey, load_episode

if TYPE_CHECKING:
    from .players.base import PlayerFactory
    from .records import Outcome
    from .runner import EvalConfig, PlannedEpisode

EXECUTORS = ("local", "ray")


class ExecutorError(RuntimeError):
    """An executor that cannot be set up; the message names the option to change."""


class InlineExecutor:
    """Plays episodes in this process (the asyncio event loop). With
    `scorers` > 1, each episode's outcome (validation, scoring, the strict
    sympy check, the failure mode) is decided in a pool of that many worker
    processes (`scorer_pool`), so that CPU work never holds up the event
    loop and the other episodes' calls; else in a thread of this process."""

    kind = "inline"

    def __init__(self, factory: "PlayerFactory", slots: int, scorers: int = 1):
        self.factory, self.slots = factory, max(1, slots)
        self.scorers = scorers
        self.pool = None  # started with the first episode: a run with nothing to play starts none

    async def play(self, p: "PlannedEpisode") -> Episode:
        from .protocols import play_episode
        if self.pool is None and self.scorers > 1:
            self.pool = scorer_pool(self.scorers)
        return await play_episode(p.card, p.key, self.factory, p.seed, p.max_steps,
                                  judge_with=self._judge if self.pool is not None else None)

    async def _judge(self, shown, env: str, *rest) -> "Outcome":
        """`protocols.judge` in a worker, which rebuilds the episode's
        Presentation from the card's folder, the controls and the seed."""
        from concurrent.futures.process import BrokenProcessPool

        from .protocols import judge
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.pool, _worker_judge, str(shown.card.folder), shown.controls, shown.seed, env, *rest)
        except BrokenProcessPool:  # a worker died (killed, out of memory): judge here from now on
            _drop_scorers(self.pool)
            self.pool, self.scorers = None, 1
            return await asyncio.to_thread(judge, shown, env, *rest)

    async def aclose(self) -> None:
        """The scorer pool outlives the run (scorer_pool), but a run does
        not end while its workers are still starting (a process that exits
        then leaves them a broken start to report)."""
        if self.pool is not None:
            for starter in [t for t in _STARTERS if t.is_alive()]:
                await asyncio.to_thread(starter.join, 60)


#: Scorer pools by size: one per process, like the fork server they are forked from.
_SCORERS: dict[int, object] = {}
_SCORERS_LOCK = threading.Lock()
_STARTERS: list[threading.Thread] = []


def scorer_pool(workers: int):
    """The process pool that decides outcomes for inline runs: started by
    the first run that needs `workers` of them, its processes starting while
    that run's first calls wait on the network, and kept for later runs in
    this process (each start forks big processes on a machine whose cores
    the run needs). It ends with this process; a broken one is replaced."""
    with _SCORERS_LOCK:
        pool = _SCORERS.get(workers)
        if pool is None or getattr(pool, "_broken", False):
            pool = _SCORERS[workers] = _process_pool(workers, pickle.dumps(None))
            starter = threading.Thread(target=_start_workers, args=(pool, workers), daemon=True)
            _STARTERS.append(starter)
            starter.start()
        return pool


@atexit.register
def _end_scorers() -> None:
    """Let the pools go while the interpreter is whole (one collected during
    its teardown prints an ignored exception)."""
    for starter in _STARTERS:  # a worker still starting would find this process gone
        starter.join(timeout=60)
    with _SCORERS_LOCK:
        pools = list(_SCORERS.values())
        _SCORERS.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)
    pools.clear()


def _drop_scorers(pool) -> None:
    with _SCORERS_LOCK:
        for size, known in list(_SCORERS.items()):
            if known is pool:
                del _SCORERS[size]
    pool.shutdown(wait=False, cancel_futures=True)


def _start_workers(pool, workers: int) -> None:
    """Start a pool's processes now (a pool starts one per task it is sent,
    and the first also waits for the fork server's imports), off the event
    loop, instead of when the first outcome is due."""
    try:
        for future in [pool.submit(_worker_ready) for _ in range(workers)]:
            future.result()
    except Exception:  # noqa: BLE001 - shut down early, or broken: the tasks that need it will say so
        pass


# -- the worker side (a pool process or a Ray worker) -----------------------------------------------
_WORKER: dict = {}  # factory, cards by folder, the worker's event loop


def _worker_init(factory_bytes: bytes, runner_pid: Optional[int] = None) -> None:
    if runner_pid is not None:
        threading.Thread(target=_exit_with, args=(runner_pid,), daemon=True).start()
    _WORKER.clear()
    _WORKER["factory"] = pickle.loads(factory_bytes)
    _WORKER["cards"] = {}
    _WORKER["loop"] = asyncio.new_event_loop()


def _exit_with(pid: int) -> None:
    """End this worker once the run that started it is gone (even SIGKILLed:
    the pool cannot tell its workers then, and they would wait forever)."""
    while True:
        time.sleep(1.0)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # the pid now belongs to another user's process
            os._exit(0)


def _worker_card(folder: str):
    """A compiled card, loaded once per worker."""
    from .card import CompiledCard

    card = _WORKER["cards"].get(folder)
    if card is None:
        card = _WORKER["cards"][folder] = CompiledCard(Path(folder))
    return card


def _worker_play(folder: str, key_json: str, seed: int, max_steps: Optional[int]) -> str:
    """Play one episode in a worker."""
    from .protocols import play_episode

    key = EpisodeKey.model_validate_json(key_json)
    episode = _WORKER["loop"].run_until_complete(
        play_episode(_worker_card(folder), key, _WORKER["factory"], seed, max_steps))
    return episode.model_dump_json()


def _worker_ready() -> int:
    """Nothing: a task that makes the pool start a worker."""
    return os.getpid()


def _worker_judge(folder: str, controls, seed: int, env: str, *rest) -> "Outcome":
    """Decide one episode's outcome in a worker (InlineExecutor's scorers)."""
    from .controls import Presentation
    from .protocols import judge

    return judge(Presentation(_worker_card(folder), controls, seed), env, *rest)


def _ship_factory(factory: "PlayerFactory", dumps=pickle.dumps) -> bytes:
    try:
        return dumps(factory)
    except Exception as exc:  # pickling raises many types for closures, locks, modules
        raise ExecutorError(f"--workers: the player {factory!r} cannot be sent to worker processes "
                            f"({type(exc).__name__}: {exc}); define its factory at module level, "
                            "or play with --workers 1") from None


#: Imported once by the fork server, before it forks the workers: what every
#: episode needs (scoring's sympy, the baseline's scipy), so N workers do not
#: each import it on a machine with no core to spare. Not numba: an episode's
#: observations are a few points each, which kernels compute without it
#: (scigame/simrt.py). First, before numpy: one BLAS thread per worker
#: (scigame/blas_threads.py).
_PRELOAD = ["scigame.blas_threads", "scigame.protocols", "scigame.card", "scigame.scoring", "scigame.symbolic",
            "scigame.failure", "scigame.players.baseline", "sympy", "scipy.optimize"]


def _process_pool(workers: int, payload: bytes):
    """The one kind of worker pool (players and scorers): `workers`
    processes forked from a server that has imported `_PRELOAD`, each set up
    by `_worker_init` with the pickled factory `payload`."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        # the server imports these once; every worker is forked from it already warm
        ctx.set_forkserver_preload(_PRELOAD)
    return ProcessPoolExecutor(max_workers=max(1, workers), mp_context=ctx,
                               initializer=_worker_init, initargs=(payload, os.getpid()))


class ProcessExecutor:
    """Plays episodes in a pool of worker processes on this machine."""

    kind = "process"

    def __init__(self, factory: "PlayerFactory", workers: int):
        self.slots = max(1, workers)
        self.pool = _process_pool(self.slots, _ship_factory(factory))
        # start the workers now, in the background: the fork server's imports
        # then overlap with the runner compiling its cards, not delay the first episode
        threading.Thread(target=_start_workers, args=(self.pool, self.slots), daemon=True).start()

    async def play(self, p: "PlannedEpisode") -> Episode:
        loop = asyncio.get_running_loop()
        text = await loop.run_in_executor(self.pool, _worker_play, str(p.card.folder),
                                          p.key.model_dump_json(), p.seed, p.max_steps)
        return load_episode(text)  # as the store reads it: what a replay may carry stays readable

    async def aclose(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


# -- Ray ----------------------------------------------------------------------------------------------
def card_bundle(folder: Path) -> dict[str, bytes]:
    """A compiled card's files (not numba's cache) by relative path."""
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*"))
            if f.is_file() and "__pycache__" not in f.parts and not f.name.startswith(".")}


def unpack_card(bundle: dict[str, bytes], root: Path) -> Path:
    """Write a shipped card under `root`, once per distinct build (keyed by
    the manifest's hash), and return its folder. Files are written before
    the manifest, so a half-written folder is never taken for a card."""
    digest = hashlib.sha256(bundle["manifest.json"]).hexdigest()[:16]
    folder = root / digest
    if (folder / "manifest.json").exists():
        return folder
    for rel, data in bundle.items():
        if rel == "manifest.json":
            continue
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_bytes(target, data)
    _write_bytes(folder / "manifest.json", bundle["manifest.json"])
    return folder


def _write_bytes(path: Path, data: bytes) -> None:
    from .compiler.atomic import write_atomic
    write_atomic(path, data)


def _ray_play(factory_bytes: bytes, bundle: dict[str, bytes], key_json: str, seed: int,
              max_steps: Optional[int]) -> str:
    """A Ray task: set the worker up on first use, then play one episode."""
    if _WORKER.get("factory_bytes") != factory_bytes:
        _worker_init(factory_bytes)
        _WORKER["factory_bytes"] = factory_bytes
    root = Path(os.environ.get("SCIGAME_RAY_CARDS") or Path(tempfile.gettempdir()) / "scigame-ray-cards")
    folder = unpack_card(bundle, root)
    return _worker_play(str(folder), key_json, seed, max_steps)


class RayExecutor:
    """Plays episodes as Ray tasks; results come back to this process, the one writer."""

    kind = "ray"

    def __init__(self, factory: "PlayerFactory", address: Optional[str], slots: Optional[int]):
        try:
            import ray
        except ImportError:
            raise ExecutorError("--executor ray needs Ray: pip install -e '.[ray]' "
                                "(or pip install 'ray>=2.9')") from None
        from ray import cloudpickle  # sends factories defined in a script, too

        payload = _ship_factory(factory, cloudpickle.dumps)
        self.ray, self.started = ray, False
        if not ray.is_initialized():
            _check_reachable(address)
            try:
                # a private instance for this run listens on the loopback interface only
                local = {} if address else {"_node_ip_address": "127.0.0.1"}
                ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         logging_level="WARNING", configure_logging=True, **local)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ExecutorError(f"--ray-address {address or '(local)'}: cannot connect to Ray: "
                                    f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
            self.started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = max(1, slots or cpus)
        self.factory_ref = ray.put(payload)
        self.bundles: dict[str, object] = {}
        self.task = ray.remote(num_cpus=1, max_retries=0)(_ray_play)

    async def play(self, p: "PlannedEpisode") -> Episode:
        folder = str(p.card.folder)
        if folder not in self.bundles:
            self.bundles[folder] = self.ray.put(card_bundle(p.card.folder))
        ref = self.task.remote(self.factory_ref, self.bundles[folder], p.key.model_dump_json(),
                               p.seed, p.max_steps)
        return load_episode(await ref)

    async def aclose(self) -> None:
        if self.started:
            self.ray.shutdown()


def _check_reachable(address: Optional[str]) -> None:
    """Fail at once, not after Ray's minutes of retries, when a host:port
    address has nothing listening."""
    import socket
    if not address or "://" in address or address == "auto" or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    if not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise ExecutorError(f"--ray-address {address}: the port {port!r} is not a number from 1 to 65535 "
                            "(give HOST:PORT, ray://HOST:PORT or auto)")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise ExecutorError(f"--ray-address {address}: cannot connect to Ray: "
                            f"{exc.strerror or exc}") from None


def make_executor(config: "EvalConfig", factory: "PlayerFactory"):
    """The executor for a run (see the module docstring)."""
    if config.executor not in EXECUTORS:
        raise ExecutorError(f"--executor: unknown executor {config.executor!r}: use "
                            + " or ".join(EXECUTORS))
    shares_client = getattr(factory, "aclose", None) is not None
    if config.executor == "ray":
        if shares_client:
            raise ExecutorError("--executor ray: this player shares one HTTP client across episodes "
                                "and plays in this process; use the local executor with --concurrency")
        return RayExecutor(factory, config.ray_address, config.workers)
    workers = config.workers or available_cores()
    if shares_client:  # its episodes wait on the network here; their outcomes are decided in `workers`
        return InlineExecutor(factory, config.concurrency, scorers=workers)
    if workers <= 1:
        return InlineExecutor(factory, config.concurrency)
    return ProcessExecutor(factory, workers)
