"""The baseline's memo of searches and fits (scigame/players/baseline/memo.py):
the same arguments to the bit give the same answer, anything else is a new
search, and what comes back is the player's own copy."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

import scigame
import scigame.players.baseline.player as baseline_player
from scigame.players.base import EpisodeState
from scigame.players.baseline import BaselinePlayer
from scigame.players.baseline.memo import Memo, digest
from scigame.players.baseline.task import parse_inputs

CARDS = Path(__file__).resolve().parent.parent / "cards/historical"


@pytest.mark.parametrize(("a", "b"), [
    (0.0, -0.0),  # one bit apart
    (1.0, 1.0 + 2 ** -52),
    (1, 1.0),  # an int is not a float
    (np.zeros(2), np.zeros((1, 2))),  # shape
    (np.zeros(2), np.zeros(2, dtype=np.float32)),  # type
    (np.array([1.0, 2.0]), np.array([2.0, 1.0])),
    ([1.0, 2.0], (1.0, 2.0)),
    ({"x": 1.0}, {"y": 1.0}),
    ("a", "b"),
    (None, 0.0),
])
def test_different_arguments_have_different_digests(a, b):
    assert digest(a) != digest(b)


def test_equal_arguments_have_one_digest():
    assert digest({"b": [1.0, np.arange(3.0)], "a": "t"}) == digest({"a": "t", "b": [1.0, np.arange(3.0)]})
    task = {"inputs": [{"name": "x", "unit": "m", "kind": "range", "lo": 1.0, "hi": 2.0}], "outputs": []}
    assert digest(parse_inputs(task)) == digest(parse_inputs(dict(task)))
    with pytest.raises(TypeError):
        digest(object())


def test_a_memo_computes_once_and_hands_back_copies():
    calls = []

    def fit(x, n=1):
        calls.append((x, n))
        return [{"confidence": float(x.sum()) * n}]

    memo = Memo(fit, size=2)
    first = memo(np.arange(3.0), n=2)
    first[0]["confidence"] = -1.0  # the player tempers confidences in place
    again = memo(np.arange(3.0), n=2)
    assert again == [{"confidence": 6.0}] and len(calls) == 1 and (memo.hits, memo.misses) == (1, 1)
    memo(np.arange(3.0), n=3)
    memo(np.arange(4.0))  # a third answer: the least recently used one goes
    memo(np.arange(3.0), n=2)
    assert len(calls) == 4
    off = Memo(fit, size=0)
    off(np.arange(3.0))
    off(np.arange(3.0))
    assert len(calls) == 6


def _fixed_state(card, env: str) -> EpisodeState:
    points = [dict(p) for p in card.data.design.points][:8]
    X = {k: np.array([p[k] for p in points], dtype=float) for k in points[0]}
    Y = card.simulate(env, X)
    from scigame.records import Observation
    obs = [Observation(inputs={k: float(v) for k, v in p.items()},
                       outputs={k: float(v[i]) for k, v in Y.items()}) for i, p in enumerate(points)]
    task = card.public_view(env, "discovery") | {"protocol": "fixed", "threshold": card.data.threshold,
                                                 "budget": len(obs)}
    return EpisodeState(task=task, setting="discovery", protocol="fixed", threshold=card.data.threshold,
                        observations=obs, turns=[], must_submit=True, steps_left=None, seed=0)


def test_a_remembered_search_gives_the_action_a_new_search_gives(monkeypatch):
    card = scigame.load_card(CARDS / "arrhenius.sci")
    state = _fixed_state(card, "original")
    act = lambda: asyncio.run(BaselinePlayer().act(state))[0].model_dump_json()  # noqa: E731
    monkeypatch.setattr(baseline_player.DISCOVER, "size", 0)
    searched = act()
    monkeypatch.setattr(baseline_player.DISCOVER, "size", 64)
    baseline_player.DISCOVER.answers.clear()
    hits = baseline_player.DISCOVER.hits
    assert act() == searched  # the first one searches
    assert act() == searched and baseline_player.DISCOVER.hits == hits + 1  # the second remembers
    other = _fixed_state(card, "counterfactual")  # other observations: searched anew
    misses = baseline_player.DISCOVER.misses
    asyncio.run(BaselinePlayer().act(other))
    assert baseline_player.DISCOVER.misses == misses + 1
