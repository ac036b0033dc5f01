"""Wall time of short `scigame` commands, next to `python -c pass`.

    python benchmarks/cli_latency.py [--rounds 7] [--card cards/historical/snell.sci] [--compile cards] [--no-compile]

Each round runs every command once, in turn (so a burst of load on a shared
machine hits all of them alike); the table gives the median and the best
over the rounds, and the median relative to `python -c pass`:

  python -c pass       the interpreter alone
  import lark          `python -c "import lark"`: the parser library alone
                       (lint's bar is 3x this)
  scigame --version    the command line's own imports
  lint CARD            parse and check one card
  simulate (warm)      one observation of a card already compiled into the
                       cache (one point runs the kernel's Python code: no numba)
  score (warm)         score the card's own law, sympy's strict check included
  compile (cold/warm)  `scigame compile cards/ --warm` into an empty folder
                       (numba's compile included), then again (every card
                       unchanged), as benchmarks/compile_cache.py measures it

The cache is a temporary folder ($SCIGAME_CACHE), filled before the first
round. Python's bytecode cache is allowed (PYTHONDONTWRITEBYTECODE is
removed from the commands' environment) as on a user's machine; pass
--no-bytecode to keep it off.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compile_cache import compile_ratio  # noqa: E402  (one measurement of the compile ratio)


def timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return elapsed


def law_predictor(card_path: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", (
        "import json, sys, scigame; c = scigame.load_card(sys.argv[1]); "
        "print(json.dumps(c.data.environments['original'].laws))"), card_path],
        env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--card", default=str(REPO / "cards/historical/snell.sci"))
    ap.add_argument("--no-bytecode", action="store_true")
    ap.add_argument("--compile", default=str(REPO / "cards"), help="folder for the compile ratio")
    ap.add_argument("--no-compile", action="store_true",
                    help="skip the compile ratio (the short commands only)")
    args = ap.parse_args()

    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    scigame = [sys.executable, "-m", "scigame"]
    with tempfile.TemporaryDirectory() as tmp:
        env["SCIGAME_CACHE"] = str(Path(tmp) / "cache")
        predictor = Path(tmp) / "law.json"
        predictor.write_text(json.dumps(law_predictor(args.card, env)))
        inputs = subprocess.run([sys.executable, "-c", (
            "import sys, scigame; c = scigame.load_card(sys.argv[1]); "
            "print(' '.join(f'{s.name}={s.domain.lo}' for s in c.data.inputs))"), args.card],
            env=env, capture_output=True, text=True, check=True).stdout.split()
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import lark": [sys.executable, "-c", "import lark"],
            "scigame --version": scigame + ["--version"],
            "lint CARD": scigame + ["lint", args.card],
            "simulate (warm)": scigame + ["simulate", args.card, *inputs, "--env", "original"],
            "score (warm)": scigame + ["score", args.card, str(predictor), "--env", "original"],
        }
        for cmd in commands.values():  # fill every cache (bytecode, Lark, pint, cards, numba)
            timed(cmd, env)
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.rounds):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, env))
        ratio = None if args.no_compile else compile_ratio(Path(args.compile), Path(tmp) / "compiled", jit=True)

    base = statistics.median(times["python -c pass"])
    print(f"{args.rounds} rounds; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"bytecode cache {'off' if args.no_bytecode else 'on'}")
    print(f"{'command':<22}{'median s':>10}{'best s':>9}{'x pass':>8}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<22}{med:>10.3f}{min(ts):>9.3f}{med / base:>8.1f}")
    lark = statistics.median(times["import lark"])
    print(f"lint CARD = {statistics.median(times['lint CARD']) / lark:.2f}x `python -c \"import lark\"` (medians)")
    if ratio is None:
        return 0
    cold, warm = ratio["cold"][0], ratio["warm"][0]
    print(f"compile {args.compile} --warm: cold {cold:.2f} s, unchanged (warm, best of 3) {warm:.2f} s: "
          f"warm = {warm / cold:.1%} of cold (benchmarks/compile_cache.py explains the parts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
