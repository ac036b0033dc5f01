"""`scigame compile cards/` cold against warm, each in a fresh process.

    python benchmarks/compile_cache.py

cold - an empty output folder: check, emit, write, and JIT every simulator
       (`--warm`), filling numba's disk cache
warm - the same command again: every card unchanged (hash hit), nothing
       rebuilt; then a new process loads every card and calls its kernels,
       which numba now reads from disk instead of compiling
Prints wall times, the ratio cold/warm and warm as a share of cold,
measured in one run.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_CALL_ALL = r'''
import sys, numpy as np
from pathlib import Path
import scigame
for folder in sorted(Path(sys.argv[1]).iterdir()):
    card = scigame.load_card(folder)
    for env in ("original", "counterfactual"):
        card.run_kernel(env, {s.name: np.array([s.domain.lo]) for s in card.data.inputs})
'''


CPU: dict[str, float] = {}


def timed(cmd, label: str = "") -> float:
    """Wall seconds of a command; its CPU seconds are kept in CPU[label]."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[label] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return time.perf_counter() - t0


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "compiled")
        compile_cmd = [sys.executable, "-m", "scigame", "compile", str(REPO / "cards"), "-o", out, "--warm"]
        cold = timed(compile_cmd, "cold")
        warm = timed(compile_cmd, "warm")
        load_warm = timed([sys.executable, "-c", _CALL_ALL, out])
        for p in Path(out).rglob("__pycache__"):
            for f in p.iterdir():
                f.unlink()
        load_cold = timed([sys.executable, "-c", _CALL_ALL, out])
    print(f"{'step':<44}{'s':>8}")
    print(f"{'compile cards/ --warm, cold (empty folder)':<44}{cold:>8.2f}")
    print(f"{'compile cards/ --warm, warm (all unchanged)':<44}{warm:>8.2f}")
    print(f"{'load + call every kernel, numba cache cold':<44}{load_cold:>8.2f}")
    print(f"{'load + call every kernel, numba cache warm':<44}{load_warm:>8.2f}")
    print(f"ratio compile cold/warm: {cold / warm:.1f}x; kernel load cold/warm: {load_cold / load_warm:.1f}x")
    print(f"warm compile costs {100 * warm / cold:.1f}% of cold (target <= 5%: a hash check per card, "
          "no parsing, no import of numba); in CPU time "
          f"{100 * CPU['warm'] / CPU['cold']:.1f}% ({CPU['warm']:.2f}s of {CPU['cold']:.2f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
