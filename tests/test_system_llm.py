"""An LLM player on a system card, end to end (issue 24): through the real
`openai` client against the fake server on 127.0.0.1, whose `scientist`
answers with the baseline's actions. The episode's submitted law is scored on
the law and by the observables it implies; the second score is recomputed
here with scipy's solve_ivp on a right-hand side written in this file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import scigame
from scigame.llm.prompts import STATE_CLOSE, STATE_OPEN, extract_between
from scigame.predictor import evaluate_predictor
from scigame.runner import EvalConfig, run_eval
from scigame.store import Store
from scigame.testing.fake_openai import FakeOpenAI
from scigame.testing.responders import scientist

REPO = Path(__file__).resolve().parent.parent
TANK = REPO / "cards" / "systems" / "tank_draining.sci"
KEY_ENV = "SCIGAME_TEST_KEY"
#: The hidden laws of the tank (q in m^3/s of the depth d in m), both worlds: rebalanced at d = 1 m.
TRUTH = {"original": lambda d: 0.001 * d ** 0.5, "counterfactual": lambda d: 0.001 * d}


def _depth(law, A: float, h0: float, t: float) -> float:
    sol = solve_ivp(lambda _t, s: [-law(s[0]) / A], (0.0, t), [h0], method="DOP853", rtol=1e-11, atol=1e-12)
    return float(sol.y[0, -1]) if sol.success else float("nan")


def _ps_system(card, tree, env: str) -> float:
    """PS of the depths the law `tree` implies at the first 64 hidden inputs,
    against the true law's: 1/(1 + mean scaled error), an error capped at 10^3."""
    ev = card.evaluation
    pts = {k: np.asarray(v[:64], float) for k, v in ev.inputs.items()}
    law = lambda d: float(evaluate_predictor({"q": tree}, {"d": np.array([d])})["q"][0])  # noqa: E731
    o = card.data.outputs[0]
    errors = []
    for A, h0, t in zip(pts["A"], pts["h0"], pts["t"]):
        truth = _depth(TRUTH[env], A, h0, t)
        got = _depth(law, A, h0, t)
        e = abs(got - truth) / (o.tol_abs + o.tol_rel * abs(truth))
        errors.append(min(e, 1e3) if np.isfinite(e) else 1e3)
    return 1.0 / (1.0 + float(np.mean(errors)))


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")


def test_an_llm_player_plays_a_system_card_and_is_scored_on_its_observables(tmp_path, api_key):
    llm = {"base_url": None, "api_key_env": KEY_ENV, "timeout": 120.0, "max_retries": 2, "backoff_base": 0.01,
           "backoff_max": 0.05}
    with FakeOpenAI(scientist) as server:
        llm["base_url"] = server.base_url
        cfg = EvalConfig(paths=[str(TANK)], player="openai:fake-model", out=str(tmp_path / "run"), repetitions=1,
                         budgets=[8], settings=["discovery"], protocols=["fixed"], llm=llm)
        report = asyncio.run(run_eval(cfg))
        requests = list(server.requests)
    assert report.played == 2 and report.unfinished == 0
    # the model was told what it observes and what it must submit
    system_prompt = requests[0]["messages"][0]["content"]
    assert "Submit the law" in system_prompt
    state = json.loads(extract_between(requests[0]["messages"][-1]["content"], STATE_OPEN, STATE_CLOSE))
    sysv = state["task"]["system"]
    assert sysv["law"]["name"] == "q" and [a["name"] for a in sysv["law"]["arguments"]] == ["d"]
    assert [(s["name"], s["rate"]) for s in sysv["states"]] == [("h", "-q(h) / A")]
    card = scigame.load_card(TANK, cache_dir=tmp_path / "cache")
    with Store(tmp_path / "run") as store:
        episodes = list(store.episodes())
        rows = {r["environment"]: r for r in store.rows()}
    assert {e.key.environment for e in episodes} == {"original", "counterfactual"}
    for e in episodes:
        sub = next(t.action.submission for t in e.turns if t.action is not None and t.action.submission)
        assert set(sub.predictor) == {"q"}  # the law, in its argument d
        o = e.outcome
        assert o.valid and o.ps is not None and o.ps_system is not None and o.weak_system is not None
        # both scores on the store's row too
        row = rows[e.key.environment]
        assert row["ps"] == pytest.approx(o.ps) and row["ps_system"] == pytest.approx(o.ps_system)
        # the observables score, recomputed independently
        assert o.ps_system == pytest.approx(_ps_system(card, sub.predictor["q"], e.key.environment), abs=1e-3)
