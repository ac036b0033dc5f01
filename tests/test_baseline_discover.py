"""The baseline's discovery step (players/baseline/discover.py): joint
hypotheses over the outputs, checked against the formulas that made the
data (numpy)."""

from __future__ import annotations

import math

import numpy as np

from scigame.players.baseline.discover import MAX_HYPOTHESES, context_text, discover
from scigame.players.baseline.task import Input, Output
from scigame.players.baseline.trees import evaluate

M, S = np.eye(7)[1], np.eye(7)[6]  # length and time (dims.BASE_NAMES)


def test_context_text_joins_background_conditions_and_descriptions():
    task = {"background": "A pendulum.", "conditions": ["small swings"],
            "inputs": [{"description": "length"}, {"description": None}], "outputs": [{"description": "period"}]}
    assert context_text(task) == "A pendulum. small swings length  period"
    assert context_text({}) == ""


def _problem(n=14, seed=3):
    rng = np.random.default_rng(seed)
    inputs = [Input("L", "m", "linear", 0.5, 2.0, [], dim=M),
              Input("g", "m/s^2", "linear", 5.0, 15.0, [], dim=M - 2 * S)]
    outputs = [Output("T", "s", 0.0, 1e-3, dim=S), Output("v", "m/s", 0.0, 1e-3, dim=M - S)]
    X = {"L": rng.uniform(0.5, 2.0, n), "g": rng.uniform(5.0, 15.0, n)}
    Y = {"T": 2 * math.pi * np.sqrt(X["L"] / X["g"]), "v": np.sqrt(2 * X["g"] * X["L"])}
    check = {"L": np.linspace(0.5, 2.0, 9), "g": np.linspace(5.0, 15.0, 9)}
    return inputs, outputs, X, Y, check


def test_discover_finds_both_laws_and_ranks_its_hypotheses():
    inputs, outputs, X, Y, check = _problem()
    hyps, misfit = discover({"background": ""}, inputs, outputs, X, Y, check, n_obs=len(X["L"]))
    assert 1 <= len(hyps) <= MAX_HYPOTHESES
    assert math.isclose(sum(h.confidence for h in hyps), 1.0)
    assert [h.confidence for h in hyps] == sorted((h.confidence for h in hyps), reverse=True)
    lead = hyps[0]
    np.testing.assert_allclose(evaluate(lead.predictor["T"], check), 2 * math.pi * np.sqrt(check["L"] / check["g"]),
                               rtol=2e-3)
    np.testing.assert_allclose(evaluate(lead.predictor["v"], check), np.sqrt(2 * check["g"] * check["L"]), rtol=2e-3)
    assert lead.detail["n"] == len(X["L"]) and len(lead.detail["laws"]) == 2
    assert 0.0 <= misfit < 1.0  # the best law's held-out misfit, in tolerances


def test_without_observations_the_prior_laws_stand_in():
    inputs, outputs, X, Y, check = _problem()
    empty = {k: v[:0] for k, v in X.items()}
    hyps, misfit = discover({"background": ""}, inputs, outputs, empty, {k: v[:0] for k, v in Y.items()}, check, 0)
    assert len(hyps) > 1 and misfit == 0.0
    assert math.isclose(sum(h.confidence for h in hyps), 1.0)
    assert all(set(h.predictor) == {"T", "v"} for h in hyps)
