"""A kernel run as Python (a few points, numba not loaded) computes the very
same bits as numba's compiled loop (any NaN counts as NaN), on every bundled
card and world; numba
is imported only when a call needs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scigame.card import load_card
from scigame.simrt import ARRAY_CHUNK, PYTHON_MAX_POINTS, Kernel, njit, run_array

REPO = Path(__file__).resolve().parent.parent
# the bundled cards and both sets of Feynman benchmark cards (powers, roots, exponentials)
BUNDLED = sorted((REPO / "cards").rglob("*.sci")) + sorted((REPO / "benchmarks/feynman").glob("*.sci")) \
    + sorted((REPO / "benchmarks/feynman_holdout").glob("*.sci"))
N_INPUTS = 1  # for the hand-written kernel below, as in a generated module


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cards")


def _points(card, rng, n):
    """Inside the domain, outside it, zeros, NaN and infinities (one point per call
    below, so a point Python refuses does not hide the others)."""
    xs = []
    for s in card.data.inputs:
        lo, hi = s.domain.lo, s.domain.hi
        x = rng.uniform(lo, hi, n)
        x[: n // 4] = rng.uniform(-2 * abs(hi) - 1, 2 * abs(hi) + 1, n // 4)
        x[n // 4: n // 4 + 5] = [0.0, -0.0, np.nan, np.inf, -np.inf]
        rng.shuffle(x)
        xs.append(x)
    return xs


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_python_run_is_bit_identical_to_numba(path, cache):
    card = load_card(path, cache_dir=cache)
    rng = np.random.default_rng(11)
    n = 200
    xs = _points(card, rng, n)
    for env in ("original", "counterfactual"):
        kernel = card.kernel(env)
        assert isinstance(kernel, Kernel)
        ran_as_python = inside = 0
        for i in range(n):
            point = [x[i:i + 1] for x in xs]
            inside += all(s.domain.lo <= p[0] <= s.domain.hi for s, p in zip(card.data.inputs, point))
            by_python = [np.full(1, 12345.0) for _ in card.data.outputs]
            by_numba = [np.empty(1) for _ in card.data.outputs]
            with np.errstate(all="ignore"):
                python_ok = kernel._python((*point, *by_python))
                kernel.dispatcher(*point, *by_numba)
            if python_ok:
                ran_as_python += 1
                for a, b in zip(by_python, by_numba):
                    # the same bits (signed zeros included); a NaN's sign bit is not a value
                    same = a.tobytes() == b.tobytes() or (np.isnan(a[0]) and np.isnan(b[0]))
                    assert same, (env, [float(p[0]) for p in point], a, b)
        assert ran_as_python >= inside > 0  # inside the domain Python does not fall back


def test_a_point_python_refuses_goes_to_numba(cache):
    # G*m1*m2/r^2 at r = 0: Python raises ZeroDivisionError, numba's IEEE answer is inf
    card = load_card(REPO / "cards/historical/gravitation.sci", cache_dir=cache)
    out = [np.empty(1)]
    card.kernel("original")(np.array([1.0]), np.array([2.0]), np.array([0.0]), *out)
    assert out[0][0] == np.inf
    assert card.kernel("original").signatures  # numba ran it


def _abs_power(x0, y0):
    for i in range(y0.shape[0]):
        y0[i] = abs(x0[i] ** 1.5)


def test_a_complex_power_in_python_is_nan_as_in_numba():
    # (-4)**1.5 is a complex number in Python; abs would make it a float 8.0
    kernel = njit(error_model="numpy")(_abs_power)
    out = np.empty(2)
    kernel(np.array([4.0, -4.0]), out)
    assert out[0] == 8.0 and np.isnan(out[1])
    assert kernel.signatures  # numba answered


_CHILD = r'''
import json, sys
import numpy as np
import scigame
card = scigame.load_card(sys.argv[1])
few = card.simulate("original", {"theta1": np.linspace(1.0, 41.0, int(sys.argv[2]))}, exact=True)
after_few = "numba" in sys.modules
many = card.simulate("original", {"theta1": np.linspace(1.0, 41.0, int(sys.argv[2]) + 1)}, exact=True)
print(json.dumps({"few": after_few, "many": "numba" in sys.modules,
                  "first": [float(few["theta2"][0]), float(many["theta2"][0])]}))
'''


def test_few_points_import_no_numba_and_more_do(tmp_path):
    card = load_card(REPO / "cards/historical/snell.sci", cache_dir=tmp_path)
    out = subprocess.run([sys.executable, "-c", _CHILD, str(card.folder), str(PYTHON_MAX_POINTS)],
                         check=True, capture_output=True, text=True, timeout=300)
    run = json.loads(out.stdout)
    assert run["few"] is False and run["many"] is True
    # asin(1.5 sin(1 deg)) in degrees (glass into air, below the critical angle), by hand
    import math
    expected = math.degrees(math.asin(1.5 * math.sin(math.radians(1.0))))
    assert run["first"] == [pytest.approx(expected, rel=1e-14)] * 2


def test_an_error_in_a_chunk_is_raised_in_the_caller():
    # e.g. a division by zero among constants, which Python refuses: run_kernel then asks numba
    def twin(x0, y0):  # only the fourth of five chunks raises, in the second thread
        y0[:] = float(x0[0]) / 0.0 if 1.1 < x0[0] < 1.5 else x0

    x = np.linspace(0.0, 2.0, 5 * ARRAY_CHUNK)
    with pytest.raises(ZeroDivisionError):
        run_array(twin, [x], [np.empty_like(x)], threads=2)
    y = np.empty_like(x)
    run_array(lambda x0, y0: np.multiply(x0, 2.0, out=y0), [x], [y], threads=2)
    assert np.array_equal(y, 2.0 * x)  # every chunk written, by one thread or the other
