"""A system card's compiled integrator against scipy, and its cold compile
against a static card's (issue 24). Ratios from one run:

    python benchmarks/system_kernel.py [--card cards/systems/two_body.sci] [--points 10000] [--sample 100] [--repeat 3]

1. The compiled kernel (DOP853 in numba, warm) over N random points of the
   card's domain, against `scipy.integrate.solve_ivp` (DOP853, the kernel's
   own rtol, atol 1e-300) with a numpy right-hand side built from the same
   SI trees, one call per point: solve_ivp is timed on `--sample` of the
   points and its time per point scaled to N (target: >= 50x).
2. Cold compile: `compile_path` into an empty folder, with an empty user
   cache, plus the first observation of each world, for the system card
   and for `cards/historical/gravitation.sci`, each in a fresh process
   (target: system <= 2x static), wall and CPU time of the process. Two
   system numbers: the card cold on a machine whose numba cache already
   holds the one integrator every system card shares
   (scigame/simrt_system.py, compiled on the first system card a machine
   ever builds), and the first system card ever (that cache empty too).
   `--repeat` rounds of the three, back to back: each round's ratios are
   to its own static compile, and the medians are printed with the range
   (a shared machine's load moves single runs by tens of percent).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _points(card, n: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for s in card.data.inputs:
        d, u = s.domain, rng.random(n)
        out[s.name] = np.exp(np.log(d.lo) + u * np.log(d.hi / d.lo)) if d.kind == "log" else d.lo + u * (d.hi - d.lo)
    return out


def _numpy_rhs(card, world: str, point: dict[str, float]):
    """The system's right-hand side as numpy code on the card's SI trees (the law inlined)."""
    from scigame.compiler.system_law import evaluate_tree
    from scigame.compiler.system_emit import inline_calls
    spec = card.data.system
    w = spec.worlds[world]
    argn = [f"arg:{a.name}" for a in spec.arguments]
    rates = [inline_calls(r, argn, w.law) for r in w.rates]
    lets = [(n, inline_calls(t, argn, w.law)) for n, t in w.lets]
    base = {f"in:{s.name}": point[s.name] * s.si_factor for s in card.data.inputs}
    y0 = np.array([float(evaluate_tree(inline_calls(t, argn, w.law), {**base, "time": 0.0})) for t in w.initial])

    def rhs(t, y):
        v = {**base, "time": t, **{f"st:{s.name}": y[j] for j, s in enumerate(spec.states)}}
        for n, tree in lets:
            v[f"sl:{n}"] = evaluate_tree(tree, v)
        return np.array([evaluate_tree(r, v) for r in rates], dtype=float)
    return rhs, y0, point[spec.time] * next(s.si_factor for s in card.data.inputs if s.name == spec.time)


def kernel_vs_solve_ivp(path: Path, n: int, sample: int) -> None:
    import scigame
    from scipy.integrate import solve_ivp
    card = scigame.load_card(path)
    pts = _points(card, n)
    card.run_kernel("original", {k: v[:2] for k, v in pts.items()})  # JIT (or load from numba's cache)
    t0 = time.perf_counter()
    card.run_kernel("original", pts)
    kernel = time.perf_counter() - t0
    rtol = card.data.system.rtol
    t0 = time.perf_counter()
    for i in range(sample):
        rhs, y0, t_end = _numpy_rhs(card, "original", {k: float(v[i]) for k, v in pts.items()})
        solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=1e-300)
    scipy_per_point = (time.perf_counter() - t0) / sample
    print(f"{path.name}: compiled kernel over {n} points: {kernel:.2f} s ({kernel / n * 1e6:.0f} us a point)")
    print(f"solve_ivp (DOP853, rtol {rtol:g}, numpy right-hand side), {sample} of the points: "
          f"{scipy_per_point * 1e3:.1f} ms a point, {scipy_per_point * n:.0f} s for {n}")
    print(f"speed-up: {scipy_per_point * n / kernel:.0f}x (target >= 50x)")


_COLD = """
import sys, time
t0 = time.perf_counter()
from scigame.compiler.build import compile_path
from pathlib import Path
import scigame
res = compile_path(Path(sys.argv[1]), Path(sys.argv[2]))
card = scigame.load_card(res.folder)
point = {s.name: [s.domain.lo] for s in card.data.inputs}
for env in ("original", "counterfactual"):
    card.simulate(env, point, exact=True)
print(time.perf_counter() - t0)
"""


def _child(code: str, args: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds the child printed, CPU seconds it used)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                         check=True, timeout=1800)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(out.stdout.strip().splitlines()[-1]), cpu


def cold(path: Path, integrator_cached: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of a fresh process's compile and first
    observations, with an empty user cache and output folder and an empty
    numba cache (`integrator_cached`: holding only the shared integrator)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache"), "NUMBA_CACHE_DIR": str(Path(tmp) / "nb")}
        if integrator_cached:
            _child("import scigame.simrt_system; print(0)", [], env)
        return _child(_COLD, [str(path), str(Path(tmp) / "out")], env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--card", type=Path, default=REPO / "cards" / "systems" / "two_body.sci")
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="rounds of the three cold compiles (medians, ranges)")
    a = ap.parse_args()
    kernel_vs_solve_ivp(a.card, a.points, a.sample)
    rounds = []  # one round: the static card, then the system card both ways, back to back
    for _ in range(a.repeat):
        rounds.append((cold(REPO / "cards" / "historical" / "gravitation.sci"), cold(a.card, integrator_cached=True),
                       cold(a.card)))
    static = [r[0] for r in rounds]
    print(f"cold compile and first observation of each world, wall (CPU), median of {a.repeat}: gravitation.sci "
          f"{np.median([w for w, _ in static]):.2f} s ({np.median([c for _, c in static]):.2f} s)")
    for k, label in ((1, f"{a.card.name}, the integrator in numba's cache"),
                     (2, f"{a.card.name}, the first system card ever")):
        wall = [r[k][0] / r[0][0] for r in rounds]  # each round's ratio to its own static compile
        cpu = [r[k][1] / r[0][1] for r in rounds]
        seconds = np.median([r[k][0] for r in rounds]), np.median([r[k][1] for r in rounds])
        print(f"  {label}: {seconds[0]:.2f} s ({seconds[1]:.2f} s): {np.median(wall):.2f}x ({np.median(cpu):.2f}x) "
              f"(target <= 2x); rounds {min(wall):.2f}-{max(wall):.2f}x ({min(cpu):.2f}-{max(cpu):.2f}x)")


if __name__ == "__main__":
    main()
