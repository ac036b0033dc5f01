"""The default matrix with 1 worker against N workers (and optionally Ray):
wall time, speed ratio and whether the stored rows are identical.

    python benchmarks/parallel_eval.py [--workers 2] [--reps 3] [--ray] [PATH ...]

Each run starts from an empty run folder, as `scigame eval` does (cards are
compiled into it, kernels are JIT-compiled or loaded from numba's cache by
whoever plays them), so the times are what a user waits for. Rows are
compared on every stored column and the whole record except wall times.
The machine's load average is printed next to the times, and before and
after the runs the speed-up the machine gives N processes over one on a
pure-Python loop: on a shared machine that is the ceiling for the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def stored_rows(folder: Path) -> dict:
    """Every stored episode by key, without the columns that measure time."""
    with sqlite3.connect(folder / "episodes.sqlite") as db:
        db.row_factory = sqlite3.Row
        rows = {}
        for r in db.execute("SELECT * FROM episodes"):
            row = dict(r)
            record = json.loads(row.pop("record"))
            row.pop("wall_time"), row.pop("written_at")
            if record.get("outcome"):
                record["outcome"].pop("wall_time")
            key = tuple(row[k] for k in ("card_hash", "environment", "setting", "protocol", "budget",
                                         "repetition", "player"))
            rows[key] = (row, record)
    return rows


def _spin(n: int) -> float:
    t0 = time.perf_counter()
    total = 0
    for i in range(n):
        total += i * i
    return time.perf_counter() - t0


def machine_parallelism(workers: int, n: int = 4_000_000) -> float:
    """How much faster `workers` processes finish `workers` equal pure-Python
    loops than one process does: what the machine's load leaves of its cores
    (the ceiling for the episode ratio)."""
    from concurrent.futures import ProcessPoolExecutor
    t0 = time.perf_counter()
    for _ in range(workers):
        _spin(n)
    serial = time.perf_counter() - t0
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_spin, [1000] * workers))
        t0 = time.perf_counter()
        list(pool.map(_spin, [n] * workers))
        parallel = time.perf_counter() - t0
    return serial / parallel


def timed_run(paths: list[str], out: Path, reps: int, **kw) -> tuple[float, int, tuple]:
    from scigame.runner import EvalConfig, run_eval
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    report = asyncio.run(run_eval(EvalConfig(paths=paths, repetitions=reps, out=str(out), **kw)))
    return time.perf_counter() - t0, report.played, (load_before, os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(REPO / "cards")])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ray", action="store_true", help="also run through a local Ray instance")
    args = ap.parse_args()

    print(f"cores available: {len(os.sched_getaffinity(0))}, load average at start: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"machine parallelism now ({args.workers} processes vs 1 on a pure-Python loop): "
          f"{machine_parallelism(args.workers):.2f}x")
    print(f"{'run':<22}{'episodes':>9}{'wall s':>9}{'x 1 worker':>12}   load avg (1 min) before -> after")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [("1 worker", {"workers": 1}), (f"{args.workers} workers", {"workers": args.workers})]
        if args.ray:
            runs.append((f"ray, {args.workers} tasks", {"executor": "ray", "workers": args.workers}))
        results = {}
        for i, (label, kw) in enumerate(runs):
            out = Path(tmp) / f"run{i}"
            wall, played, (before, after) = timed_run(args.paths, out, args.reps, **kw)
            results[label] = (wall, stored_rows(out))
            base = results["1 worker"][0]
            print(f"{label:<22}{played:>9}{wall:>9.1f}{base / wall:>12.2f}   {before[0]:.2f} -> {after[0]:.2f}")
        print(f"machine parallelism at the end: {machine_parallelism(args.workers):.2f}x")
        reference = results["1 worker"][1]
        for label, (_, rows) in results.items():
            if label != "1 worker":
                same = rows == reference
                print(f"stored rows of '{label}' identical to 1 worker: {same} ({len(rows)} rows)")
                if not same:
                    return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
