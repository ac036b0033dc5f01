"""The parallel twin of each kernel computes the very same bits as the serial
kernel, the array twin (numpy ufuncs) the same values within 1e-12, and
`card.simulate` switches to the array twin only for large inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scigame.card import load_card
from scigame.simrt import ARRAY_CHUNK, PARALLEL_MIN_POINTS, run_array

REPO = Path(__file__).resolve().parent.parent
# a simple law, transcendental functions in degrees, lets, a card with two outputs
CARDS = ["gravitation", "snell", "darcy", "ohm_joule"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cards")


@pytest.mark.parametrize("name", CARDS)
def test_parallel_kernel_is_bit_identical(name, cache):
    card = load_card(REPO / f"cards/historical/{name}.sci", cache_dir=cache)
    rng = np.random.default_rng(7)
    n = PARALLEL_MIN_POINTS + 1001
    xs = []
    for s in card.data.inputs:  # inside the domain, plus points outside it, NaN and infinities
        x = rng.uniform(s.domain.lo, s.domain.hi, n)
        x[:64] = rng.uniform(-2 * abs(s.domain.hi) - 1, 2 * abs(s.domain.hi) + 1, 64)
        x[64:67] = [np.nan, np.inf, -np.inf]
        xs.append(x)
    for env in ("original", "counterfactual"):
        serial = [np.empty(n) for _ in card.data.outputs]
        parallel = [np.empty(n) for _ in card.data.outputs]
        with np.errstate(all="ignore"):
            card.kernel(env).dispatcher(*xs, *serial)
            card.kernel(env, parallel=True).dispatcher(*xs, *parallel)
        for a, b in zip(serial, parallel):
            assert a.tobytes() == b.tobytes()  # NaN payloads and signed zeros included


def test_simulate_uses_the_array_twin_only_for_large_inputs(cache, monkeypatch):
    card = load_card(REPO / "cards/historical/radioactive_decay.sci", cache_dir=cache)
    twin = card.kernel("original", parallel=True)
    assert twin is not card.kernel("original")  # 2^(-t/thalf): a libm call per point
    calls = []
    array_twin = card.module.env_original_array
    monkeypatch.setattr(card.module, "env_original_array", lambda *a: calls.append(len(a[0])) or array_twin(*a))
    small = card.simulate("original", {"t": np.full(PARALLEL_MIN_POINTS - 1, 100.0)}, exact=True)
    assert not calls
    large = card.simulate("original", {"t": np.full(PARALLEL_MIN_POINTS, 100.0)}, exact=True)
    assert sum(calls) == PARALLEL_MIN_POINTS and max(calls) <= ARRAY_CHUNK  # in chunks
    assert not twin.signatures  # the numba twin is not needed
    expected = 500 * 2 ** (-100 / 55.6)  # R = R0 * 2^(-t/thalf), by hand
    for values in (small["R"], large["R"]):
        np.testing.assert_allclose(values, expected, rtol=1e-12)


BUNDLED = sorted(p for p in (REPO / "cards").rglob("*.sci")
                 if "systems" not in p.parts)  # system cards: tests/test_systems.py


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_array_twin_is_within_1e_12_of_the_kernel(path, cache):
    # numpy's vectorised functions differ from libm's in the last place or two, never more
    card = load_card(path, cache_dir=cache)
    rng = np.random.default_rng(3)
    n = PARALLEL_MIN_POINTS + 1001
    xs = [rng.uniform(s.domain.lo, s.domain.hi, n) for s in card.data.inputs]
    for x in xs:
        x[:3] = [np.nan, np.inf, -np.inf]
    for env in ("original", "counterfactual"):
        twin = getattr(card.module, f"env_{env}_array", None)
        if twin is None:
            continue
        serial = [np.empty(n) for _ in card.data.outputs]
        by_array = [np.empty(n) for _ in card.data.outputs]
        with np.errstate(all="ignore"):
            card.kernel(env).dispatcher(*xs, *serial)
        run_array(twin, xs, by_array, threads=2)
        for a, b in zip(serial, by_array):
            assert np.array_equal(np.isfinite(a), np.isfinite(b))
            np.testing.assert_allclose(b[np.isfinite(a)], a[np.isfinite(a)], rtol=1e-12, atol=0)


def test_simple_arithmetic_has_no_parallel_twin(cache):
    # G*m1*m2/r^2 is bound by memory and already vectorised: threads would only cost
    card = load_card(REPO / "cards/historical/gravitation.sci", cache_dir=cache)
    assert not hasattr(card.module, "env_original_parallel")
    assert card.kernel("original", parallel=True) is card.kernel("original")
    r = np.full(PARALLEL_MIN_POINTS, 2.0)
    out = card.simulate("original", {"m1": r * 5, "m2": r * 10, "r": r}, exact=True)
    np.testing.assert_allclose(out["F"], 6.674e-11 * 10 * 20 / 4, rtol=1e-12)
