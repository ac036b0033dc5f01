"""Episodes per second of the default matrix with the baseline, and where
the time goes.

    python benchmarks/eval_matrix.py [--reps R] [--workers N] [--rows FILE] [--slowest K] [PATH ...]
    python benchmarks/eval_matrix.py --memo-ab [--rounds 2] [--reps R] [--workers N] [PATH ...]

Runs the default matrix (both settings, both worlds, all protocols, B = 4)
over the bundled cards (or PATHs) into a temporary run folder, with timers
(benchmarks/episode_timers.py) around the kinds of work:
  fitting     the baseline player's decide() (its whole search)
  simulation  oracle checks, simulator kernels and quantisation
  scoring     validation, evaluation on the hidden set, the strict sympy
              check and failure classification
  storage     writing each episode to SQLite (Store.put, Store.finish_attempt)
and prints episodes per second and each share, measured in one run. With
--workers N (N > 1) the episodes run in N worker processes, as `scigame
eval --workers N` plays them, and the timers run in the workers too: the
split is then of the episodes' time in the workers, beside the workers'
time outside any episode (start-up, idle while the last episodes finish).
--rows FILE writes every stored episode with its timings and the run's own
times left out (what must stay identical when the code gets faster) and
prints the rows' sha256. --slowest K lists the K slowest episodes and the K
cards with the most episode time.

--memo-ab plays the same matrix in fresh processes with the baseline's
search memo off (SCIGAME_SEARCH_MEMO=0) and on, alternating, `--rounds`
times each, and prints each leg's wall time, the median ratio on/off and
whether the rows are identical (rows that differ only where the strict
sympy check hit its 5 s limit, which depends on the machine's load, are
counted apart).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


#: What differs between two runs of the same matrix: clocks, attempt counters.
_TIMES = {"wall_time", "written_at", "started_at", "finished_at", "attempt", "attempts", "elapsed"}


def _timeless(value):
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in _TIMES}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def write_rows(store, path: Path) -> str:
    """Every episode row (its record parsed), times left out, sorted; the sha256 of the file."""
    import hashlib
    import json
    rows = []
    for row in store.rows():
        row = dict(row)
        if isinstance(row.get("record"), str):
            row["record"] = json.loads(row["record"])
        rows.append(_timeless(row))
    rows.sort(key=lambda r: json.dumps(r, sort_keys=True))
    text = json.dumps(rows, sort_keys=True, indent=1)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def _differences(a: list, b: list) -> tuple[int, int]:
    """(rows that differ, of those the ones that differ only in the strict check's verdict after
    its time limit was hit in one of the two runs)."""
    import json
    strict = ("strict", "strict_reason", "strict_success", "failure_mode")

    def bare(row):
        row = json.loads(json.dumps(row))
        for k in strict:
            row.pop(k, None)
            (row.get("record", {}).get("outcome") or {}).pop(k, None)
        return json.dumps(row, sort_keys=True)
    differ = [(x, y) for x, y in zip(a, b) if json.dumps(x, sort_keys=True) != json.dumps(y, sort_keys=True)]
    timed_out = sum(1 for x, y in differ if bare(x) == bare(y) and "did not finish" in json.dumps([x, y]))
    return len(differ) + abs(len(a) - len(b)), timed_out


def print_split(spent: dict, wall: float, workers: int) -> None:
    """Where the time went, in every process: the four kinds of work, the rest of the episodes'
    time, and the processes' time outside any episode (start-up, waiting for the last episodes)."""
    import os
    if workers > 1:
        episodes = spent.get("episode", 0.0)
        if not episodes:
            print("the workers' timers reported nothing (was episode_timers preloaded?)")
            return
        capacity = wall * workers
        print(f"{workers} workers x wall = {capacity:.1f} s: {episodes:.1f} s ({episodes / capacity:.0%}) in "
              f"{spent.get('episodes', 0):.0f} episodes, {capacity - episodes:.1f} s outside them "
              "(start-up, the runner, idle while the last episodes finish)")
        print(f"CPU in the episodes: {spent.get('episode_cpu', 0):.1f} s (of their {episodes:.1f} s; "
              f"load {os.getloadavg()[0]:.1f})")
    else:
        episodes, capacity = wall, wall
    print(f"{'where':<12}{'s':>9}{'share':>8}   (of the episodes' time)")
    for kind in ("fitting", "simulation", "scoring"):
        print(f"{kind:<12}{spent[kind]:>9.2f}{spent[kind] / episodes:>8.0%}")
    other = episodes - sum(spent[k] for k in ("fitting", "simulation", "scoring"))
    if workers == 1:
        other -= spent["storage"]
        print(f"{'storage':<12}{spent['storage']:>9.2f}{spent['storage'] / episodes:>8.0%}")
    print(f"{'other':<12}{other:>9.2f}{other / episodes:>8.0%}   (runner, records, protocol checks)")
    if workers > 1:
        print(f"storage (the runner's process, beside the workers): {spent['storage']:.2f} s")


def print_slowest(played: list, k: int) -> None:
    """The k slowest episodes (their key and wall time) and the k cards whose episodes took longest
    in all: where a few huge episodes hide in a matrix of quick ones."""
    total = sum(e.outcome.wall_time for e in played)
    print(f"{k} slowest episodes (of {len(played)}, {total:.1f} s of episode time in all):")
    for e in sorted(played, key=lambda e: -e.outcome.wall_time)[:k]:
        key = e.key
        print(f"  {e.outcome.wall_time:7.2f} s  {key.card} {key.environment} {key.setting} {key.protocol} "
              f"B={key.budget} rep {key.repetition}")
    per_card: dict[str, list[float]] = defaultdict(list)
    for e in played:
        per_card[e.key.card].append(e.outcome.wall_time)
    print(f"{k} cards with the most episode time:")
    for card, ts in sorted(per_card.items(), key=lambda kv: -sum(kv[1]))[:k]:
        print(f"  {sum(ts):7.1f} s  {sum(ts) / total:4.0%}  {card} ({len(ts)} episodes, max {max(ts):.2f} s)")


def memo_ab(args) -> int:
    import json
    import os
    import statistics
    import subprocess
    walls: dict[str, list[float]] = {"off": [], "on": []}
    rows: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for leg, size in (("off", "0"), ("on", "64")):
                out = Path(tmp) / f"{leg}{r}.json"
                env = dict(os.environ, SCIGAME_SEARCH_MEMO=size)
                done = subprocess.run([sys.executable, __file__, *args.paths, "--reps", str(args.reps),
                                       "--workers", str(args.workers), "--rows", str(out)],
                                      env=env, capture_output=True, text=True, check=True)
                wall = float(done.stdout.split("wall ")[1].split(" s")[0])
                walls[leg].append(wall)
                rows.setdefault(leg, json.loads(out.read_text()))
                print(f"round {r + 1} memo {leg:<3} wall {wall:7.1f} s  load {os.getloadavg()[0]:.1f}", flush=True)
    ratio = statistics.median(walls["on"]) / statistics.median(walls["off"])
    differ, timed_out = _differences(rows["off"], rows["on"])
    print(f"memo on / off: {ratio:.2f} of the wall time (medians of {args.rounds}); "
          f"{len(rows['on'])} rows, {differ} differ ({timed_out} only where the strict check ran out of time)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(REPO / "cards" / c) for c in ("historical", "temporal")])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--rows", default=None, help="write the episodes' timeless rows here (JSON)")
    ap.add_argument("--memo-ab", action="store_true", help="time the matrix with the search memo off and on")
    ap.add_argument("--rounds", type=int, default=2, help="with --memo-ab: legs of each kind")
    ap.add_argument("--slowest", type=int, default=0, metavar="K",
                    help="also list the K slowest episodes and the wall time per card")
    args = ap.parse_args()
    if args.memo_ab:
        return memo_ab(args)

    import os

    import episode_timers
    import scigame.executors as executors
    import scigame.store as store_mod
    from scigame.runner import EvalConfig, load_cards, run_eval

    timers = tempfile.TemporaryDirectory()
    os.environ[episode_timers.ENV] = timers.name  # read by the workers' fork server, which preloads the timers
    episode_timers.install()
    executors._PRELOAD.append("episode_timers")  # the fork server finds it through PYTHONPATH
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent),
                                                             os.environ.get("PYTHONPATH")]))

    with tempfile.TemporaryDirectory() as tmp:
        # compile first so that compilation is not counted as episode time
        load_cards(args.paths, Path(tmp))
        cfg = EvalConfig(paths=args.paths, repetitions=args.reps, out=tmp, workers=args.workers)
        t0 = time.perf_counter()
        report = asyncio.run(run_eval(cfg))
        wall = time.perf_counter() - t0
        with store_mod.Store(tmp) as store:
            played = [e for e in store.episodes() if e.outcome is not None]
            times = sorted(e.outcome.wall_time for e in played)
            if args.rows:
                digest = write_rows(store, Path(args.rows))
                print(f"rows: {args.rows}, sha256 {digest}")
    episode_timers.dump()
    spent = episode_timers.collect(Path(timers.name))
    timers.cleanup()
    n = report.played
    print(f"episodes: {n} ({report.planned} planned), wall {wall:.1f} s, "
          f"{n / wall:.2f} episodes/s on this machine")
    if times:
        import statistics
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"episode wall time: median {statistics.median(times):.2f} s, p95 {p95:.2f} s, "
              f"max {times[-1]:.2f} s, sum {sum(times):.1f} s")
    if args.slowest and times:
        print_slowest(played, args.slowest)
    print_split(spent, wall, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
