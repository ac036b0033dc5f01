"""The parallel twin of each kernel computes the very same bits as the serial
kernel, and `card.simulate` switches to it only for large inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scigame.card import load_card
from scigame.simrt import PARALLEL_MIN_POINTS

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
            card.kernel(env)(*xs, *serial)
            card.kernel(env, parallel=True)(*xs, *parallel)
        for a, b in zip(serial, parallel):
            assert a.tobytes() == b.tobytes()  # NaN payloads and signed zeros included


def test_simulate_uses_the_parallel_kernel_only_for_large_inputs(cache):
    # a card no other test here calls with large inputs, so its parallel twin starts uncompiled
    card = load_card(REPO / "cards/historical/pendulum.sci", cache_dir=cache)
    small = card.simulate("original", {"L": np.full(PARALLEL_MIN_POINTS - 1, 0.5)}, exact=True)
    assert not card.kernel("original", parallel=True).signatures  # never called
    large = card.simulate("original", {"L": np.full(PARALLEL_MIN_POINTS, 0.5)}, exact=True)
    assert card.kernel("original", parallel=True).signatures
    expected = 2 * np.pi * np.sqrt(0.5 / 9.81)  # T = 2 pi sqrt(L/g), by hand
    for values in (small["T"], large["T"]):
        np.testing.assert_allclose(values, expected, rtol=1e-12)
