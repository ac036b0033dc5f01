"""LLM episodes at concurrency: their outcomes (scoring, the strict sympy
check, the failure mode) are decided in worker processes, off the event
loop, and the stored rows are those of judging in this process. Through the
real `openai` client against the fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from scigame.executors import InlineExecutor, make_executor
from scigame.llm.client import ChatClient, LLMConfig
from scigame.players import make_player
from scigame.runner import EvalConfig, load_cards, plan
from scigame.store import Store
from scigame.testing.fake_openai import FakeOpenAI, Reply
from scigame.testing.responders import scientist

from tests.test_executors import stored
from tests.test_llm import GRAVITATION, KEY_ENV, api_key, config, run  # noqa: F401 - api_key is an autouse fixture


def test_outcomes_decided_in_workers_are_the_rows_of_one_process(tmp_path):
    with FakeOpenAI(scientist) as server:
        one = run(config(tmp_path / "one", server, protocols=["prior", "fixed"], concurrency=4, workers=1))
        two = run(config(tmp_path / "two", server, protocols=["prior", "fixed"], concurrency=4, workers=2))
    assert one.played == two.played == 8 and not one.errors and not two.errors
    rows_one, rows_two = stored(tmp_path / "one"), stored(tmp_path / "two")
    assert rows_two == rows_one
    # scored for real: the scientist's Fixed answers pass, its Prior-only guesses do not all pass
    assert {row["weak_success"] for row, _ in rows_one.values()} == {0, 1}


def _planned(tmp_path: Path, player_name: str):
    cards, _ = load_cards([GRAVITATION], tmp_path / "run")
    cfg = EvalConfig(paths=[GRAVITATION], protocols=["fixed"], repetitions=1)
    return plan(cfg, cards, player_name)


def test_an_llm_runs_outcomes_are_decided_in_other_processes_and_survive_a_dead_pool(tmp_path):
    with FakeOpenAI(scientist) as server:
        name, factory = make_player("openai:fake-model", base_url=server.base_url, api_key_env=KEY_ENV)
        assert make_executor(EvalConfig(paths=[], workers=1), factory).scorers == 1  # a thread, as before
        executor = make_executor(EvalConfig(paths=[], workers=2, concurrency=4), factory)
        assert isinstance(executor, InlineExecutor) and executor.slots == 4
        planned = _planned(tmp_path, name)

        async def go():
            try:
                first = await executor.play(planned[0])
                workers = {p.pid for p in executor.pool._processes.values()}
                for pid in workers:  # a pool that dies (killed, out of memory) ...
                    os.kill(pid, signal.SIGKILL)
                deadline = time.monotonic() + 20
                while not executor.pool._broken and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                second = await executor.play(planned[1])  # ... leaves the outcome to this process
                return first, workers, second
            finally:
                await executor.aclose()
                await factory.aclose()

        first, workers, second = asyncio.run(go())
    assert workers and os.getpid() not in workers
    assert first.status == "finished" and first.outcome is not None and first.outcome.submitted
    assert second.status == "finished" and second.outcome is not None and second.outcome.submitted
    assert executor.pool is None


class Connections:
    """Answers after `latency` seconds; keeps each handler thread it ran on
    (the fake server serves each connection on a thread of its own)."""

    def __init__(self, latency: float):
        self.latency, self.threads, self.lock = latency, [], threading.Lock()

    def __call__(self, request):
        me = threading.current_thread()
        with self.lock:
            if not any(t is me for t in self.threads):
                self.threads.append(me)
        time.sleep(self.latency)
        return Reply(content='{"ok": true}')


def _two_rounds(server, connections: int, calls: int) -> None:
    client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                  max_retries=0, connections=connections))

    async def go():
        try:
            for _ in range(2):
                await asyncio.gather(*[client.complete([{"role": "user", "content": "hi"}]) for _ in range(calls)])
        finally:
            await client.close()

    asyncio.run(go())


def test_the_connection_pool_keeps_one_connection_per_call_in_flight():
    calls = 120  # beyond the openai client's default of 100 connections kept alive
    sized, default = Connections(0.3), Connections(0.3)
    with FakeOpenAI(sized) as server:
        _two_rounds(server, calls, calls)
    with FakeOpenAI(default) as server:
        _two_rounds(server, 0, calls)
    assert len(sized.threads) == calls  # the second round reused every connection of the first
    assert len(default.threads) > calls  # 100 kept: the second round opened new ones



def test_the_pools_of_a_plain_http_run_load_no_certificate_store(monkeypatch):
    # each pool of POOL_SIZE connections is a transport; built alone, each would load the CA
    # bundle (tens of ms of CPU each). The store is loaded for the first TLS connection, once for
    # all the pools (tests/test_llm_connections.py's TLS test), and never for a plain-HTTP endpoint.
    import ssl
    loads = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self, *args, **kwargs):
        loads.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    server_calls = Connections(0.05)
    with FakeOpenAI(server_calls) as server:
        _two_rounds(server, 32, 32)
    assert len(server_calls.threads) == 32  # 32 calls in flight at once: 8 pools of 4
    assert loads == []


def _eval(tmp_path: Path, server, key: str):
    return subprocess.run(
        [sys.executable, "-m", "scigame", "eval", GRAVITATION, "--player", "openai:fake-model",
         "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--protocol", "prior", "--reps", "1",
         "--workers", "2", "--concurrency", "4", "--quiet", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, KEY_ENV: key})


def test_an_llm_eval_with_scorer_processes_exits_cleanly(tmp_path):
    # the scorer pool outlives each run and ends with the process, with nothing printed about it,
    # also when the run stops at once (a rejected key) while its workers are still starting
    with FakeOpenAI(scientist) as server:
        done = _eval(tmp_path / "run", server, "test-key")
        refused = _eval(tmp_path / "refused", server, "a-wrong-key")
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "run") as store:
        assert len(list(store.episodes())) == 4
    assert refused.returncode == 2 and "refused the credentials" in refused.stderr
    for result in (done, refused):
        assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_episodes_talking_to_the_endpoint_never_exceed_the_concurrency(tmp_path):
    """An episode gives its slot back once its last call is answered (its
    outcome is then decided in a worker): the next one may start, but never
    more than --concurrency episodes have a request in flight."""
    lock, live, peak = threading.Lock(), [0], [0]

    def counting(request: dict) -> Reply:
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        try:
            time.sleep(0.02)
            return scientist(request)
        finally:
            with lock:
                live[0] -= 1

    with FakeOpenAI(counting) as server:
        report = run(config(tmp_path / "run", server, protocols=["prior", "fixed"], concurrency=2, workers=2,
                            repetitions=3))
    assert report.played == report.planned == 24 and not report.errors and not report.unfinished
    assert peak[0] == 2


def test_a_slot_is_given_back_once():
    from scigame.executors import Once

    sem = asyncio.Semaphore(1)

    async def go():
        await sem.acquire()
        release = Once(sem.release)
        release()
        release()  # a second call must not raise the count above its size
        assert sem._value == 1
    asyncio.run(go())
