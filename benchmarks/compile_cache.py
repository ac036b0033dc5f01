"""`scigame compile cards/` cold against warm, each in a fresh process.

    python benchmarks/compile_cache.py [--folder cards]

cold - an empty output folder: check, emit, write, and JIT every simulator
       (`--warm`), filling numba's disk cache
warm - the same command again: every card unchanged (a hash check each),
       nothing rebuilt, numba not imported
The same pair without `--warm` (no JIT in the cold run) shows where the
warm time goes: the start-up every command pays (the interpreter, click,
pydantic and the compiler's modules: `scigame compile` of one unchanged
card) plus a hash check per card. Then a new process loads every card and
calls its kernels (a few points: the kernels' Python code, no numba), and
one calls numba's compiled kernels from a cold and from a warm disk cache.
System cards are compiled and warmed with the rest, but left out of the
load-and-call rows (benchmarks/system_kernel.py times their integrator).
Warm runs are the best of 3 (cold ones without JIT too). Prints wall and
CPU times and warm as a share of cold, measured in one run;
`benchmarks/cli_latency.py` prints the same ratio with `compile_ratio`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCIGAME = [sys.executable, "-m", "scigame"]

_CALL_ALL = r'''
import sys, numpy as np
from pathlib import Path
import scigame
numba = sys.argv[2] == "numba"
for folder in sorted(Path(sys.argv[1]).iterdir()):
    card = scigame.load_card(folder)
    if card.data.system is not None:
        continue  # numba drivers of one model, not kernels: benchmarks/system_kernel.py times them
    for env in ("original", "counterfactual"):
        xs = [np.array([s.domain.lo]) for s in card.data.inputs]
        if numba:
            card.kernel(env).dispatcher(*xs, *[np.empty(1) for _ in card.data.outputs])
        else:
            card.run_kernel(env, dict(zip(card.input_names, xs)))
assert numba == ("numba" in sys.modules)
'''


def timed(cmd) -> tuple[float, float]:
    """Wall and CPU seconds of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def compile_ratio(folder: Path, out: Path, jit: bool, rounds: int = 3) -> dict[str, tuple[float, float]]:
    """`scigame compile FOLDER -o OUT [--warm]` into an empty OUT, then again;
    the best of `rounds` warm runs (a burst of load on a shared machine
    would otherwise decide the ratio), and of `rounds` cold ones without JIT."""
    cmd = SCIGAME + ["compile", str(folder), "-o", str(out)] + (["--warm"] if jit else [])
    colds, warms = [], []
    for _ in range(1 if jit else rounds):
        shutil.rmtree(out, ignore_errors=True)
        colds.append(timed(cmd))
        warms.extend(timed(cmd) for _ in range(rounds))
    return {"cold": min(colds), "warm": min(warms)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=str(REPO / "cards"))
    args = ap.parse_args()
    folder = Path(args.folder)
    cards = sorted(folder.rglob("*.sci"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "compiled"
        jit = compile_ratio(folder, out, jit=True)
        load_numba_warm = timed([sys.executable, "-c", _CALL_ALL, str(out), "numba"])
        load_python = timed([sys.executable, "-c", _CALL_ALL, str(out), "python"])
        for p in out.rglob("__pycache__"):
            shutil.rmtree(p)
        load_numba_cold = timed([sys.executable, "-c", _CALL_ALL, str(out), "numba"])
        plain = compile_ratio(folder, Path(tmp) / "plain", jit=False)
        one = compile_ratio(cards[0], Path(tmp) / "one", jit=False)
    rows = [
        (f"compile {folder.name}/ --warm, cold (empty folder)", jit["cold"]),
        (f"compile {folder.name}/ --warm, warm (all unchanged)", jit["warm"]),
        (f"compile {folder.name}/, cold, no JIT", plain["cold"]),
        (f"compile {folder.name}/, warm", plain["warm"]),
        ("compile one card, warm (the start-up)", one["warm"]),
        ("load + call every kernel, few points (Python)", load_python),
        ("load + call every kernel, numba cache cold", load_numba_cold),
        ("load + call every kernel, numba cache warm", load_numba_warm),
    ]
    print(f"{len(cards)} cards; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'step':<50}{'wall s':>8}{'cpu s':>8}")
    for name, (wall, cpu) in rows:
        print(f"{name:<50}{wall:>8.2f}{cpu:>8.2f}")
    per_card = (plain["warm"][0] - one["warm"][0]) / max(1, len(cards) - 1)
    print(f"warm compile --warm = {jit['warm'][0] / jit['cold'][0]:.1%} of cold in wall time "
          f"({jit['warm'][1] / jit['cold'][1]:.1%} in CPU; target <= 5%)")
    print(f"without --warm: {plain['warm'][0] / plain['cold'][0]:.1%} of cold; of the warm run, "
          f"{one['warm'][0]:.2f} s is the start-up and {1000 * per_card:.1f} ms a card the hash check "
          f"(a cold card costs {1000 * (plain['cold'][0] - one['warm'][0]) / len(cards):.0f} ms without JIT, "
          f"{1000 * (jit['cold'][0] - one['warm'][0]) / len(cards):.0f} ms with it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
