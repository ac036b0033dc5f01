"""Generated simulator kernels against the alternatives, on 10^6 points.

    python benchmarks/simulator.py [--points N] [--repeat R]

For a simple law (gravitation: G*m1*m2/r^n) and a composite one (Snell's law
with unit conversions: asin(n1*sin(theta1)/n2) in degrees), times in one run:
  generated - the card's compiled numba kernel (warm, output preallocated)
  hand      - a hand-written @njit loop of the same law
  numpy     - vectorised numpy
  lambdify  - sympy.lambdify of the law (numpy backend)
and prints each time relative to the generated kernel. Best of R runs.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy
from numba import njit

REPO = Path(__file__).resolve().parent.parent


def best(fn, repeat):
    fn()  # warm (JIT, caches)
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


@njit(cache=True)
def hand_gravitation(m1, m2, r, out):
    for i in range(out.shape[0]):
        out[i] = 6.674e-11 * m1[i] * m2[i] / r[i] ** 2.0


@njit(cache=True)
def hand_snell(theta1, out):
    for i in range(out.shape[0]):
        out[i] = math.asin(1.0 * math.sin(theta1[i] * 0.017453292519943295) / 1.5) / 0.017453292519943295


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10**6)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import scigame

    rng = np.random.default_rng(0)
    n = args.points
    with tempfile.TemporaryDirectory() as tmp:
        grav = scigame.load_card(REPO / "cards/historical/gravitation.sci", cache_dir=tmp)
        snell = scigame.load_card(REPO / "cards/historical/snell.sci", cache_dir=tmp)
        m1, m2, r = rng.uniform(1, 1000, n), rng.uniform(1, 1000, n), rng.uniform(0.5, 20, n)
        th = rng.uniform(0, 80, n)
        out = np.empty(n)
        k_grav = grav.kernel("original")
        k_snell = snell.kernel("original")
        M1, M2, R, TH = sympy.symbols("m1 m2 r theta1", positive=True)
        f_grav = sympy.lambdify((M1, M2, R), 6.674e-11 * M1 * M2 / R**2, "numpy")
        deg = math.pi / 180
        f_snell = sympy.lambdify((TH,), sympy.asin(sympy.sin(TH * deg) / 1.5) / deg, "numpy")
        cases = {
            "simple (gravitation)": {
                "generated": lambda: k_grav(m1, m2, r, out),
                "hand": lambda: hand_gravitation(m1, m2, r, out),
                "numpy": lambda: np.divide(6.674e-11 * m1 * m2, r ** 2.0, out=out),
                "lambdify": lambda: f_grav(m1, m2, r),
            },
            "composite (snell, deg)": {
                "generated": lambda: k_snell(th, out),
                "hand": lambda: hand_snell(th, out),
                "numpy": lambda: np.arcsin(np.sin(th * deg) / 1.5) / deg,
                "lambdify": lambda: f_snell(th),
            },
        }
        # correctness first: every variant computes the same numbers
        k_grav(m1, m2, r, out)
        np.testing.assert_allclose(out, f_grav(m1, m2, r), rtol=1e-12)
        k_snell(th, out)
        np.testing.assert_allclose(out, f_snell(th), rtol=1e-12)
        print(f"points: {n}, best of {args.repeat}")
        print(f"{'law':<24}{'variant':<11}{'ms':>9}{'x generated':>13}")
        for law, variants in cases.items():
            times = {k: best(f, args.repeat) for k, f in variants.items()}
            for k, t in times.items():
                print(f"{law:<24}{k:<11}{1000 * t:>9.2f}{t / times['generated']:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
