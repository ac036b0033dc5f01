"""The baseline's Adaptive answer, worked out again from every reading just
before it is given (player._decide's confirm step), keeps the law in hand
when the new search leads with one that misses a reading held out while
the law in hand predicted the new readings and fits them all
(issue 29: the search over more readings lost a law it had found)."""

from __future__ import annotations

import numpy as np
import pytest

from scigame.players.base import EpisodeState
from scigame.players.baseline import BaselinePlayer, player
from scigame.players.baseline.identify import Hyp
from scigame.players.baseline.task import Output
from scigame.players.baseline.trees import op, var

OUT = Output("y", "1", 0.0, 0.01)
TASK = {"setting": "discovery", "background": "", "conditions": [], "constraints": [],
        "inputs": [{"name": "x", "unit": "m", "domain": {"kind": "range", "lo": 1.0, "hi": 3.0}}],
        "outputs": [{"name": "y", "unit": "1", "tolerance": {"rel": 0.01}}],
        "protocol": "adaptive", "threshold": 0.9, "budget": 64}


def test_fits_every_by_hand():
    """2·x against readings 2·x·(1 + e): within 1 % for e = 0.009 (the
    scale is 1 % of the reading, 2.009·x·0.01 > 0.018·x), not for e = 0.011;
    a NaN reading is skipped, a missing predictor fits nothing."""
    x = np.array([1.0, 2.0, 3.0])
    law = {"y": op("mul", 2.0, var("x"))}
    assert player.fits_every(law, [OUT], {"x": x}, {"y": 2.0 * x * 1.009})
    assert not player.fits_every(law, [OUT], {"x": x}, {"y": 2.0 * x * np.array([1.0, 1.011, 1.0])})
    assert player.fits_every(law, [OUT], {"x": x}, {"y": np.array([2.0, np.nan, 6.0])})
    assert not player.fits_every(None, [OUT], {"x": x}, {"y": 2.0 * x})


def _search_once(monkeypatch, held_law, held_misfit, search_misfit, ys):
    """player._discovery once, after a search (stubbed) whose leader is
    3 + x with held-out misfit `search_misfit`, with `held_law` the law
    in hand of held-out misfit `held_misfit`."""
    searched = [Hyp("y = 3 + x", 0.7, {"y": op("add", 3.0, var("x"))}), Hyp("y = 4", 0.3, {"y": 4.0})]
    monkeypatch.setattr(player, "DISCOVER", lambda *a, **k: (searched, search_misfit, (), search_misfit))
    held = [Hyp("y = 2·x", 0.95, held_law), Hyp("y = 5", 0.05, {"y": 5.0})]
    xs = np.linspace(1.0, 3.0, len(ys))
    state = EpisodeState(task=TASK, setting="discovery", protocol="adaptive", threshold=0.9, observations=[],
                         turns=[], must_submit=False, steps_left=50, seed=1)
    p = BaselinePlayer()
    p._confirming, p._held = held_law, (held, held_misfit)
    hyps, misfit = p._discovery(state, [], [OUT], {"x": xs}, {"y": np.asarray(ys)}, {"x": xs}, False)
    return hyps, misfit


def test_the_law_in_hand_is_kept_when_the_search_loses_it(monkeypatch):
    law = {"y": op("mul", 2.0, var("x"))}
    ys = 2.0 * np.linspace(1.0, 3.0, 10)
    hyps, misfit = _search_once(monkeypatch, law, 0.4, 2.5, ys)
    assert hyps[0].predictor is law and misfit == 0.4


def test_the_search_answers_when_it_fits_or_the_law_in_hand_misses(monkeypatch):
    law = {"y": op("mul", 2.0, var("x"))}
    ys = 2.0 * np.linspace(1.0, 3.0, 10)
    inexact = ys * (1 + 0.004 * np.cos(np.arange(10)))  # within the tolerance, not reproduced
    hyps, misfit = _search_once(monkeypatch, law, 0.4, 0.8, inexact)  # the new search fits: its answer
    assert hyps[0].statement == "y = 3 + x" and misfit == 0.8
    off = ys.copy()
    off[3] *= 1.05  # the law in hand misses a reading by 5 tolerances
    hyps, misfit = _search_once(monkeypatch, law, 0.4, 2.5, off)
    assert hyps[0].statement == "y = 3 + x" and misfit == 2.5
    hyps, misfit = _search_once(monkeypatch, law, 1.5, 2.5, ys)  # it mispredicted a new reading
    assert hyps[0].statement == "y = 3 + x"


def test_reproduces_tells_exact_readings_only():
    """reproduces: whether the form, its constants refitted, lands within
    the slack of exact readings; None where noise or a coarse resolution
    cannot tell a law from a close look-alike (the give-up after a refit
    moved reads None as "cannot say", never as "an approximation")."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    law = {"y": op("mul", 2.4, var("x"))}
    # 2.5·x read exactly: 2.4·x misses by 4 % (4 tolerances) but its refit is 2.5·x
    assert not player.fits_every(law, [OUT], {"x": x}, {"y": 2.5 * x})
    assert player.reproduces(law, [OUT], {"x": x}, {"y": 2.5 * x}) is True
    # 2.5·x^1.003 (independently, 2.5·x·exp(0.003·ln x): up to 0.4 % off a line through the origin):
    # no constant factor reproduces it, while 2.5·x fits it within the tolerance
    curved = 2.5 * x * np.exp(0.003 * np.log(x))
    assert player.fits_every({"y": op("mul", 2.5, var("x"))}, [OUT], {"x": x}, {"y": curved})
    assert player.reproduces(law, [OUT], {"x": x}, {"y": curved}) is False
    noisy = Output("y", "1", 0.0, 0.01, noise_rel=0.001)
    assert player.reproduces(law, [noisy], {"x": x}, {"y": curved}) is None
    coarse = Output("y", "1", 0.0, 0.01, resolution=0.01)
    assert player.reproduces(law, [coarse], {"x": x}, {"y": curved}) is None


def test_a_constant_rounded_to_an_integer_is_refitted_when_judging_reproduction():
    """4402·(1 + 1.493·V)^−1.4 is 100·(10/(V + 0.67))^1.4 with its constants
    rounded (4400.5 and 1/0.67 by hand): refitted, it reproduces exact
    readings of that law, so 4402, an integer, is a constant to refit; the
    exponent −1.4 and the 1 of the sum stay as written."""
    V = np.linspace(1.0, 10.0, 9)
    y = 100.0 * (10.0 / (V + 0.67)) ** 1.4
    law = {"y": op("mul", 4402.0, op("pow", op("add", 1.0, op("mul", 1.493, var("V"))), -1.4))}
    assert player.reproduces(law, [OUT], {"V": V}, {"y": y}) is True
    fitted = player.refitted(law["y"], {"V": V}, y, OUT.scale(y))
    scale, power = fitted["args"]
    (one, slope), exponent = power["args"][0]["args"], power["args"][1]
    b = slope["args"][0]
    assert one == 1.0 and exponent == -1.4
    assert scale == pytest.approx(100.0 * 10.0 ** 1.4 * 0.67 ** -1.4, rel=1e-6)
    assert b == pytest.approx(1 / 0.67, rel=1e-6)


def test_the_law_in_hand_that_reproduces_exact_readings_is_kept(monkeypatch):
    """Noise-free readings of 2·x (resolution 0: exact): the law in hand
    reproduces every one, the new search's leader (3 + x, stubbed) fits
    within the tolerance by its misfit but its form does not reproduce
    them: the law in hand is kept."""
    law = {"y": op("mul", 2.0, var("x"))}
    ys = 2.0 * np.linspace(1.0, 3.0, 10)
    hyps, misfit = _search_once(monkeypatch, law, 0.4, 0.8, ys)
    assert hyps[0].predictor is law and misfit == 0.4
