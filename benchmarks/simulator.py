"""Generated simulator kernels against the alternatives, on 10^6 points.

    python benchmarks/simulator.py [--points N] [--repeat R]

For a simple law (gravitation: G*m1*m2/r^n) and a composite one (Snell's law
with unit conversions: asin(n1*sin(theta1)/n2) in degrees), times in one run:
  generated - the card's compiled numba kernel (warm, output preallocated)
  parallel  - its multi-threaded numba twin (prange)
  array     - its array twin (numpy ufuncs) run by scigame.simrt.run_array
              over cache-sized chunks on threads, where the world has one
  large     - `card.run_kernel`: what `card.simulate` runs from
              scigame.simrt.PARALLEL_MIN_POINTS points on (the array twin,
              else the parallel twin, else the kernel)
  simulate  - `card.simulate(..., exact=True)`: the oracle's checks plus the kernel
  hand      - a hand-written @njit loop of the same law
  fastmath  - the same loop with fastmath={'contract', 'afn'} (FMA contraction and
              approximate functions; numba vectorises sin/asin only with SVML,
              whose state `numba -s` reports and this prints)
  numpy     - vectorised numpy
  lambdify  - sympy.lambdify of the law (numpy backend)
and prints each time relative to the generated kernel and numpy's time over
the large-input path's (>= 1: the simulator is at least at numpy's speed).
Best of R runs. The parallel kernel must equal the serial one bit for bit,
the array twin within 1e-12 relative.
"""

from __future__ import annotations

import argparse
import math
import os
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


@njit(cache=True, fastmath={"contract", "afn"})
def fast_snell(theta1, out):
    for i in range(out.shape[0]):
        out[i] = math.asin(1.5 * math.sin(theta1[i] * 0.017453292519943295) / 1.0) / 0.017453292519943295


@njit(cache=True)
def hand_snell(theta1, out):
    for i in range(out.shape[0]):
        out[i] = math.asin(1.5 * math.sin(theta1[i] * 0.017453292519943295) / 1.0) / 0.017453292519943295


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10**6)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import scigame
    from scigame.simrt import run_array

    rng = np.random.default_rng(0)
    n = args.points
    with tempfile.TemporaryDirectory() as tmp:
        grav = scigame.load_card(REPO / "cards/historical/gravitation.sci", cache_dir=tmp)
        snell = scigame.load_card(REPO / "cards/historical/snell.sci", cache_dir=tmp)
        m1, m2, r = rng.uniform(1, 1000, n), rng.uniform(1, 1000, n), rng.uniform(0.6, 20, n)  # spheres of lead up to 1000 kg do not overlap
        th = rng.uniform(0, 41, n)  # below the critical angle, where the law has a value
        out = np.empty(n)
        k_grav, p_grav = grav.kernel("original"), grav.kernel("original", parallel=True)
        k_snell, p_snell = snell.kernel("original"), snell.kernel("original", parallel=True)
        M1, M2, R, TH = sympy.symbols("m1 m2 r theta1", positive=True)
        f_grav = sympy.lambdify((M1, M2, R), 6.674e-11 * M1 * M2 / R**2, "numpy")
        deg = math.pi / 180
        f_snell = sympy.lambdify((TH,), sympy.asin(1.5 * sympy.sin(TH * deg)) / deg, "numpy")
        cases = {
            "simple (gravitation)": {
                "generated": lambda: k_grav(m1, m2, r, out),
                "parallel": lambda: p_grav(m1, m2, r, out),
                "large": lambda: grav.run_kernel("original", {"m1": m1, "m2": m2, "r": r}),
                "simulate": lambda: grav.simulate("original", {"m1": m1, "m2": m2, "r": r}, exact=True),
                "hand": lambda: hand_gravitation(m1, m2, r, out),
                "numpy": lambda: np.divide(6.674e-11 * m1 * m2, r ** 2.0, out=out),
                "lambdify": lambda: f_grav(m1, m2, r),
            },
            "composite (snell, deg)": {
                "generated": lambda: k_snell(th, out),
                "parallel": lambda: p_snell(th, out),
                "array": lambda: run_array(snell.module.env_original_array, [th], [out]),
                "large": lambda: snell.run_kernel("original", {"theta1": th}),
                "simulate": lambda: snell.simulate("original", {"theta1": th}, exact=True),
                "hand": lambda: hand_snell(th, out),
                "fastmath": lambda: fast_snell(th, out),
                "numpy": lambda: np.arcsin(np.sin(th * deg) / 1.5) / deg,
                "lambdify": lambda: f_snell(th),
            },
        }
        # correctness first: every variant computes the same numbers
        k_grav(m1, m2, r, out)
        np.testing.assert_allclose(out, f_grav(m1, m2, r), rtol=1e-12)
        k_snell(th, out)
        np.testing.assert_allclose(out, f_snell(th), rtol=1e-12)
        for serial, parallel, args_ in ((k_grav, p_grav, (m1, m2, r)), (k_snell, p_snell, (th,))):
            a, b = np.empty(n), np.empty(n)
            serial(*args_, a)
            parallel(*args_, b)
            assert np.array_equal(a, b), "the parallel kernel differs from the serial one"
        a = snell.run_kernel("original", {"theta1": th})["theta2"]
        k_snell(th, out)
        np.testing.assert_allclose(a, out, rtol=1e-12, atol=0)
        array_err = float(np.max(np.abs(a / out - 1)))
        fast_snell(th, out)
        fast_err = float(np.max(np.abs(out / f_snell(th) - 1)))
        from numba import config, get_num_threads
        print(f"points: {n}, best of {args.repeat}; numba threads: {get_num_threads()}, "
              f"SVML in use: {config.USING_SVML}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'law':<24}{'variant':<11}{'ms':>9}{'x generated':>13}")
        for law, variants in cases.items():
            times = {k: best(f, args.repeat) for k, f in variants.items()}
            for k, t in times.items():
                print(f"{law:<24}{k:<11}{1000 * t:>9.2f}{t / times['generated']:>13.2f}")
            print(f"{law:<24}numpy / large-input path: {times['numpy'] / times['large']:.2f}, "
                  f"numpy / parallel kernel: {times['numpy'] / times['parallel']:.2f}, "
                  f"numpy / card.simulate: {times['numpy'] / times['simulate']:.2f}")
        print(f"fastmath snell: largest relative difference from numpy {fast_err:.1e}; "
              f"array twin: from the kernel {array_err:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
