"""The fake server's `coder` with and without `--tools python`, and what a tool call costs.

    python benchmarks/tools_coder.py [PATHS...] [--protocol fixed] [--setting discovery] [--rounds 5]

Plays PATHS (default cards/historical) once with `--tools none` (the coder
then answers as the scientist) and once with `--tools python` (it fits a
power law with run_python before it submits), through the real openai client
against the fake server on 127.0.0.1, one repetition, and prints each mode's
strict and weak ESR and wall time, and the tool calls' wall time. Then it
times, over --rounds, an empty call in the sandbox next to the same
interpreter run directly (`python -I -S -c pass`): the sandbox's own cost.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _play(paths, tools: str, out: str, args) -> tuple[list, float]:
    from scigame.runner import EvalConfig, run_eval
    from scigame.store import Store
    from scigame.testing.fake_openai import FakeOpenAI
    from scigame.testing.responders import coder

    with FakeOpenAI(coder, api_key="bench-key") as server:
        os.environ["SCIGAME_BENCH_KEY"] = "bench-key"
        config = EvalConfig(paths=paths, player="openai:fake-model", out=out, repetitions=1,
                            settings=args.setting.split(","), protocols=args.protocol.split(","),
                            max_steps=args.max_steps, concurrency=args.concurrency, tools=tools,
                            llm={"base_url": server.base_url, "api_key_env": "SCIGAME_BENCH_KEY", "timeout": 600.0})
        started = time.perf_counter()
        asyncio.run(run_eval(config))
        wall = time.perf_counter() - started
    with Store(out) as store:
        return list(store.episodes()), wall


def _rates(episodes) -> str:
    done = [e for e in episodes if e.outcome is not None]
    strict = sum(bool(e.outcome.strict_success) for e in done)
    weak = sum(e.outcome.weak_success for e in done)
    return f"strict ESR {strict}/{len(done)} = {strict / max(len(done), 1):.0%}, weak ESR {weak}/{len(done)}"


def _overhead(rounds: int) -> None:
    from scigame.sandbox import run_code

    direct, sandboxed = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
        direct.append(time.perf_counter() - t)
        t = time.perf_counter()
        result = run_code("pass", {})
        sandboxed.append(time.perf_counter() - t)
        assert not result.error, result.error
    d, s = statistics.median(direct), statistics.median(sandboxed)
    print(f"empty call: sandbox {s * 1000:.0f} ms, direct interpreter {d * 1000:.0f} ms (median of {rounds}); "
          f"ratio {s / d:.1f}, extra {1000 * (s - d):.0f} ms a call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(REPO / "cards/historical")])
    parser.add_argument("--protocol", default="fixed")
    parser.add_argument("--setting", default="discovery")
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    walls = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tools in ("none", "python"):
            episodes, walls[tools] = _play(args.paths, tools, str(Path(tmp) / tools), args)
            calls = [t.tool for e in episodes for t in e.turns if t.tool is not None]
            extra = (f"; {len(calls)} tool calls, median {statistics.median(c.wall_seconds for c in calls):.2f} s, "
                     f"mean {statistics.mean(c.wall_seconds for c in calls):.2f} s wall each") if calls else ""
            print(f"--tools {tools}: {len(episodes)} episodes, {_rates(episodes)}, run wall {walls[tools]:.1f} s{extra}")
    _overhead(args.rounds)


if __name__ == "__main__":
    main()
