"""Episodes per second of the default matrix with the baseline, and where
the time goes.

    python benchmarks/eval_matrix.py [--reps R] [--workers N] [--rows FILE] [PATH ...]

Runs the default matrix (both settings, both worlds, all protocols, B = 4)
over the bundled cards (or PATHs) into a temporary run folder, with timers
around the four kinds of work:
  fitting     the baseline player's act() (all of its least squares)
  simulation  oracle checks, simulator kernels and quantisation
  scoring     validation, evaluation on the hidden set, the strict sympy
              check and failure classification
  storage     writing each episode to SQLite
and prints episodes per second and each share of the wall time, measured
in one run. With --workers N (N > 1) the episodes run in N worker processes,
as `scigame eval --workers N` plays them; the timers then see only this
process, so only the wall time is printed. --rows FILE writes every stored
episode with its timings and the run's own times left out (what must stay
identical when the code gets faster) and prints the rows' sha256.
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(REPO / "cards")])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--rows", default=None, help="write the episodes' timeless rows here (JSON)")
    args = ap.parse_args()

    import scigame.card as card_mod
    import scigame.protocols as protocols
    import scigame.store as store_mod
    from scigame.players.baseline import BaselinePlayer
    from scigame.runner import EvalConfig, load_cards, run_eval

    spent: dict[str, float] = defaultdict(float)

    def timed(kind, fn):
        def wrapper(*a, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                spent[kind] += time.perf_counter() - t0
        return wrapper

    # instrument (this is a measurement script: the timers wrap the real calls)
    card_mod.CompiledCard.simulate = timed("simulation", card_mod.CompiledCard.simulate)
    protocols.judge = timed("scoring", protocols.judge)
    store_mod.Store.put = timed("storage", store_mod.Store.put)
    decide = BaselinePlayer.decide
    BaselinePlayer.decide = timed("fitting", decide)

    with tempfile.TemporaryDirectory() as tmp:
        # compile first so that compilation is not counted as episode time
        load_cards(args.paths, Path(tmp))
        cfg = EvalConfig(paths=args.paths, repetitions=args.reps, out=tmp, workers=args.workers)
        t0 = time.perf_counter()
        report = asyncio.run(run_eval(cfg))
        wall = time.perf_counter() - t0
        with store_mod.Store(tmp) as store:
            times = sorted(e.outcome.wall_time for e in store.episodes() if e.outcome is not None)
            if args.rows:
                digest = write_rows(store, Path(args.rows))
                print(f"rows: {args.rows}, sha256 {digest}")
    n = report.played
    print(f"episodes: {n} ({report.planned} planned), wall {wall:.1f} s, "
          f"{n / wall:.2f} episodes/s on this machine")
    if times:
        import statistics
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"episode wall time: median {statistics.median(times):.2f} s, p95 {p95:.2f} s, "
              f"max {times[-1]:.2f} s")
    if args.workers > 1:
        return 0
    other = wall - sum(spent.values())
    print(f"{'where':<12}{'s':>9}{'share':>8}")
    for kind in ("fitting", "simulation", "scoring", "storage"):
        print(f"{kind:<12}{spent[kind]:>9.2f}{spent[kind] / wall:>8.0%}")
    print(f"{'other':<12}{other:>9.2f}{other / wall:>8.0%}   (runner, records, protocol checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
