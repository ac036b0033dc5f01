"""LLM campaign throughput against a server with a fixed latency.

    python benchmarks/llm_concurrency.py [--latency 0.2] [--steps 10] [--waves 2] [--workers N] [--busy-core]

The fake server runs in its own process (as a real endpoint would), answers
every chat completion after `latency` seconds and accepts 512 pending
connections. Its player answers are cheap and schema-valid: `steps`
experiments at random points of the gravitation card, then a submission of
the law. `scigame`'s runner plays whole Adaptive episodes through the real
`openai` client (retries, accounting, the attempt archive, scoring with the
strict sympy check, simulation) at concurrency 1, 8 and 32, `waves` rounds
of episodes per level. The ideal time of a level is waves × (steps + 1) ×
latency; efficiency = ideal / measured, printed for each level in one run,
with the CPU time the scigame process spent per call (all its threads; not
the processes that decide outcomes, `--workers`) and the 1-minute load
average at the level's start: on a shared machine the efficiency depends on
the other load, the CPU per call does not. --busy-core runs a CPU-bound
process (a pure-Python loop, at normal priority) for the whole
measurement, as another job on the second core would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CARD = str(REPO / "cards/historical/gravitation.sci")
LAW = {"F": {"op": "div", "args": [{"op": "mul", "args": [6.674e-11, {"var": "m1"}, {"var": "m2"}]},
                                   {"op": "pow", "args": [{"var": "r"}, 2]}]}}


def _answer(request: dict, steps: int, latency: float):
    from scigame.llm.prompts import STATE_CLOSE, STATE_OPEN, extract_between
    from scigame.testing.fake_openai import Reply

    time.sleep(latency)
    text = request["messages"][-1]["content"]
    doc = json.loads(extract_between(text, STATE_OPEN, STATE_CLOSE) or "{}")
    done = len(doc.get("history", []))
    hyps = [{"statement": "inverse square", "confidence": 0.5}, {"statement": "inverse cube", "confidence": 0.5}]
    if done < steps and not doc.get("must_submit"):
        rng = random.Random(done)
        inputs = {"m1": rng.uniform(1, 1000), "m2": rng.uniform(1, 1000), "r": rng.uniform(0.5, 20)}
        action = {"hypotheses": hyps, "submission": None, "notes": "",
                  "experiment": {"inputs": inputs, "outputs": ["F"], "predictions": [{"F": 1e-9}, {"F": 1e-10}]}}
    else:
        hyps = [{"statement": "inverse square", "confidence": 0.95}, {"statement": "inverse cube", "confidence": 0.05}]
        action = {"hypotheses": hyps, "experiment": None, "notes": "",
                  "submission": {"selected": 0, "predictor": LAW, "explanation": "F falls as 1/r^2.",
                                 "applicability": "point masses"}}
    return Reply(content=json.dumps(action), prompt_tokens=900 + 60 * done, completion_tokens=200)


def _spin(stop) -> None:
    """A CPU-bound process: what another job on the machine's other core does."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 31 + 7) % 1_000_003


def _serve(port_queue, stop, steps: int, latency: float) -> None:
    from functools import partial

    from scigame.testing.fake_openai import FakeOpenAI

    with FakeOpenAI(partial(_answer, steps=steps, latency=latency), api_key=None) as server:
        port_queue.put(server.base_url)
        stop.wait()
        port_queue.put((time.process_time(), len(server.requests)))


def _level(base_url: str, concurrency: int, episodes: int, out: str, workers) -> float:
    from scigame.runner import EvalConfig, run_eval

    reps = max(1, episodes // 4)  # 4 cells: 2 settings x 2 worlds, Adaptive only
    config = EvalConfig(paths=[CARD], player="openai:fake-model", protocols=["adaptive"], repetitions=reps,
                        concurrency=concurrency, out=out, max_steps=64, workers=workers,
                        llm={"base_url": base_url, "api_key_env": "SCIGAME_BENCH_KEY", "timeout": 60,
                             "max_retries": 0})
    started, cpu = time.perf_counter(), time.process_time()
    report = asyncio.run(run_eval(config))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if report.unfinished or report.errors:
        raise SystemExit(f"benchmark run failed: {report.unfinished_reasons[:2]} {report.errors[:2]}")
    return elapsed, report.played, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--steps", type=int, default=10, help="experiments per episode before the submission")
    ap.add_argument("--waves", type=int, default=2, help="rounds of `concurrency` episodes per level")
    ap.add_argument("--levels", default="1,8,32")
    ap.add_argument("--workers", type=int, default=None,
                    help="processes that decide outcomes (default: every core, as `scigame eval`; 1: a thread)")
    ap.add_argument("--busy-core", action="store_true", help="keep a CPU-bound process running beside it")
    args = ap.parse_args()
    os.environ["SCIGAME_BENCH_KEY"] = "k"

    ctx = multiprocessing.get_context("spawn")
    port_queue, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=_serve, args=(port_queue, stop, args.steps, args.latency), daemon=True)
    server.start()
    base_url = port_queue.get(timeout=60)
    spinner = ctx.Process(target=_spin, args=(stop,), daemon=True) if args.busy_core else None
    if spinner is not None:
        spinner.start()
    calls = args.steps + 1
    print(f"latency {args.latency * 1000:.0f} ms, Adaptive episodes of {args.steps} experiments + 1 submission, "
          f"{args.waves} waves per level; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at start"
          + ("; a CPU-bound process beside it (--busy-core)" if spinner is not None else ""))
    print(f"{'concurrency':>11}{'episodes':>10}{'seconds':>9}{'ideal s':>9}{'efficiency':>12}"
          f"{'client CPU ms/call':>20}{'load':>6}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # cards compiled once, the fork server and the scorer pool started (once per process, as in a
            # campaign): not part of any level; each level's run opens its own client, which knows from the
            # user cache that this endpoint takes structured outputs (the warm run found it, as an earlier
            # campaign against an endpoint does), so no level waits on a first call to decide
            _level(base_url, 4, 4, str(Path(tmp) / "warm"), args.workers)
            for i, level in enumerate(int(x) for x in args.levels.split(",")):
                episodes = max(4, level * args.waves)
                load = os.getloadavg()[0]
                # a folder per row: a level named twice (--levels 32,32) is played twice, not resumed
                elapsed, played, cpu = _level(base_url, level, episodes, str(Path(tmp) / f"row{i}"),
                                              args.workers)
                waves = -(-played // level)
                ideal = waves * calls * args.latency
                print(f"{level:>11}{played:>10}{elapsed:>9.2f}{ideal:>9.2f}{ideal / elapsed:>12.0%}"
                      f"{1000 * cpu / (played * calls):>20.2f}{load:>6.1f}")
    finally:
        stop.set()
        cpu, requests = port_queue.get(timeout=30)
        server.join(timeout=10)
        if spinner is not None:
            spinner.join(timeout=10)
    print(f"the server process: {1000 * cpu / max(1, requests):.2f} ms CPU per call over {requests} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
