"""Episodes under the three protocols, the store, resume and replay, with
scripted players whose every move the test decides."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import scigame
from scigame.players.base import EpisodeState, Player, PlayerFault
from scigame.protocols import play_episode
from scigame.records import (Action, EpisodeKey, Experiment, Hypothesis, Submission, Usage)
from scigame.runner import EvalConfig, run_eval
from scigame.store import Store

REPO = Path(__file__).resolve().parent.parent
G = 6.674e-11
#: the card's `rebalance G at r = 5 [m]`: G m1 m2 / r0^2 = G' m1 m2 / r0^3, so G' = G * 5 m
G_CF = G * 5


def law(n):
    """The gravitation card's law in the world whose distance exponent is n."""
    coupling = G if n == 2 else G_CF
    return {"F": {"op": "div", "args": [{"op": "mul", "args": [coupling, {"var": "m1"}, {"var": "m2"}]},
                                        {"op": "pow", "args": [{"var": "r"}, n]}]}}


def hyps(*conf):
    return [Hypothesis(statement=f"F ~ r^-{i + 2}", confidence=c, predictor=law(i + 2))
            for i, c in enumerate(conf)]


def submit(conf=(0.95, 0.05), selected=0, n=2):
    return Action(hypotheses=hyps(*conf), submission=Submission(
        selected=selected, predictor=law(n), explanation="inverse power of distance",
        applicability="point masses"))


def propose(inputs, conf=(0.5, 0.5)):
    return Action(hypotheses=hyps(*conf), experiment=Experiment(
        inputs=inputs, outputs=["F"], predictions=[{"F": 1e-9}, {"F": 2e-9}][:len(conf)]))


class Scripted(Player):
    """Plays a fixed list of actions; records the states it saw."""

    name = "scripted"

    def __init__(self, script, seen=None, fault_at=None):
        self.script, self.seen, self.fault_at = list(script), seen, fault_at

    async def act(self, state: EpisodeState):
        if self.seen is not None:
            self.seen.append(state)
        if self.fault_at is not None and len(self.seen or []) - 1 == self.fault_at:
            raise PlayerFault("connection reset (simulated)")
        return self.script.pop(0), Usage(calls=1, input_tokens=10, output_tokens=5)


@pytest.fixture(scope="module")
def grav(tmp_path_factory):
    return scigame.load_card(REPO / "cards/historical/gravitation.sci", cache_dir=tmp_path_factory.mktemp("c"))


def key(card, protocol, env="original", setting="discovery", budget=0, rep=0, player="scripted"):
    return EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment=env,
                      setting=setting, protocol=protocol, budget=budget, repetition=rep, player=player)


def play(card, k, script, max_steps=None, seen=None, fault_at=None):
    return asyncio.run(play_episode(card, k, lambda: Scripted(script, seen, fault_at), seed=1,
                                    max_steps=max_steps))


def test_prior_only_submission(grav):
    seen = []
    ep = play(grav, key(grav, "prior"), [submit()], seen=seen)
    assert seen[0].observations == [] and seen[0].must_submit
    o = ep.outcome
    assert (o.submitted, o.valid, o.weak, o.strict, o.protocol_ok) == (True, True, True, True, True)
    assert o.weak_success and o.strict_success and o.failure_mode is None and o.steps == 0
    assert o.usage.input_tokens == 10
    assert "candidates" not in ep.task and "gravitation" not in json.dumps(ep.task)


def test_fixed_gives_the_first_b_design_points(grav):
    seen = []
    ep = play(grav, key(grav, "fixed", budget=3, env="counterfactual"), [submit(n=3)], seen=seen)
    obs = seen[0].observations
    assert len(obs) == 3 == len(ep.given) and ep.outcome.steps == 3
    for o, p in zip(obs, grav.data.design.points[:3]):
        assert o.inputs == p
        want = G_CF * p["m1"] * p["m2"] / p["r"] ** 3
        assert o.outputs["F"] == pytest.approx(want, abs=1e-15)  # quantised to 1e-15 N
    assert ep.outcome.strict_success


def test_adaptive_experiments_then_confident_submission(grav):
    seen = []
    ep = play(grav, key(grav, "adaptive", budget=5), [propose({"m1": 10, "m2": 20, "r": 2}), submit()],
              max_steps=5, seen=seen)
    assert ep.outcome.protocol_ok and ep.outcome.steps == 1
    obs = ep.turns[0].response.observation
    assert obs.outputs["F"] == pytest.approx(G * 200 / 4, abs=1e-15)
    assert seen[1].observations == [obs] and seen[1].steps_left == 4


def test_adaptive_protocol_breaks_still_get_ps(grav):
    # proposing while confident, then submitting below τ
    ep = play(grav, key(grav, "adaptive"), [propose({"m1": 10, "m2": 20, "r": 2}, conf=(0.95, 0.05)),
                                             submit(conf=(0.6, 0.4))], max_steps=5)
    o = ep.outcome
    assert not o.protocol_ok and len(o.breaks) == 2
    assert o.weak and o.strict and o.ps == 1.0  # the predictor is right ...
    assert not o.weak_success and o.strict_success is False  # ... but ESR fails


def test_single_hypothesis_while_experimenting_breaks(grav):
    ep = play(grav, key(grav, "adaptive"), [propose({"m1": 10, "m2": 20, "r": 2}, conf=(1.0,)), submit()],
              max_steps=5)
    assert any("fewer than two hypotheses" in b for b in ep.outcome.breaks)


def test_rejected_proposal_costs_a_step_and_gives_no_data(grav):
    ep = play(grav, key(grav, "adaptive"), [propose({"m1": 10, "m2": 20, "r": 50}), submit()], max_steps=5)
    assert ep.turns[0].response.observation is None
    assert "r = 50 is outside its domain" in ep.turns[0].response.rejected[0]
    assert ep.outcome.steps == 1 and ep.outcome.protocol_ok


def test_step_cap_forces_submission(grav):
    p = propose({"m1": 10, "m2": 20, "r": 2})
    ep = play(grav, key(grav, "adaptive"), [p, p, p, p, p, p], max_steps=2)
    assert ep.outcome.failure_mode == "no_usable_answer" and not ep.outcome.submitted
    assert ep.turns[2].response.rejected == ["no experiments are allowed now: submit your answer"]
    assert ep.outcome.steps == 2


def test_malformed_action_ends_without_answer(grav):
    bad = Action(hypotheses=hyps(0.5, 0.2), submission=submit().submission)
    ep = play(grav, key(grav, "prior"), [bad])
    assert ep.turns[0].malformed.startswith("the confidences sum to 0.7")
    assert ep.outcome.failure_mode == "no_usable_answer"


def test_proposal_under_fixed_is_refused_and_breaks(grav):
    ep = play(grav, key(grav, "fixed", budget=2), [propose({"m1": 1, "m2": 1, "r": 1}), submit()])
    assert ep.turns[0].response.rejected and not ep.outcome.protocol_ok


def test_failure_modes(grav):
    wrong_form = Action(hypotheses=hyps(1.0), submission=Submission(
        selected=0, predictor={"F": {"op": "mul", "args": [1e-12, {"var": "m1"}]}}, explanation="",
        applicability=""))
    assert play(grav, key(grav, "prior"), [wrong_form]).outcome.failure_mode == "incorrect_relation"
    off_constant = Action(hypotheses=hyps(1.0), submission=Submission(
        selected=0, predictor=law(2) | {"F": {"op": "div", "args": [
            {"op": "mul", "args": [7.5e-11, {"var": "m1"}, {"var": "m2"}]}, {"op": "pow", "args": [{"var": "r"}, 2]}]}},
        explanation="", applicability=""))
    assert play(grav, key(grav, "prior"), [off_constant]).outcome.failure_mode == "parameter_error"
    extra = Action(hypotheses=hyps(1.0), submission=Submission(
        selected=0, predictor={"F": {"op": "add", "args": [law(2)["F"], {"op": "mul", "args": [1e-30, {"var": "r"}]}]}},
        explanation="", applicability=""))
    assert play(grav, key(grav, "prior"), [extra]).outcome.failure_mode == "symbolic_not_recovered"


def test_fault_leaves_episode_unfinished(grav):
    ep = play(grav, key(grav, "adaptive"), [propose({"m1": 10, "m2": 20, "r": 2}), submit()], max_steps=5,
              seen=[], fault_at=1)
    assert ep.status == "unfinished" and ep.outcome is None and "connection reset" in ep.error


# ---- the store, resume and replay ---------------------------------------------------------

class Oracle(Player):
    """Submits the true law of the world (it peeks at the key) at once."""

    name = "oracle"

    async def act(self, state):
        n = 2 if state.episode["environment"] == "original" else 3
        return submit(n=n), Usage()


def small_config(out, **kw):
    return EvalConfig(paths=[str(REPO / "cards/historical/gravitation.sci")], out=str(out),
                      settings=["discovery"], protocols=["prior", "fixed"], budgets=[1, 2], repetitions=2, **kw)


def test_run_store_resume_and_force(tmp_path):
    cfg = small_config(tmp_path / "run")
    first = asyncio.run(run_eval(cfg, player=("oracle", Oracle)))
    # 2 envs x (prior + fixed at 2 budgets) x 2 reps
    assert first.planned == 12 and first.played == 12
    with Store(tmp_path / "run") as store:
        rows = store.rows()
        assert len(rows) == 12 and all(r["strict_success"] == 1 for r in rows)
        ep = next(store.episodes(protocol="fixed", budget=2, environment="counterfactual"))
        assert len(ep.given) == 2
    again = asyncio.run(run_eval(cfg, player=("oracle", Oracle)))
    assert again.played == 0 and again.skipped == 12
    forced = asyncio.run(run_eval(small_config(tmp_path / "run", force=True), player=("oracle", Oracle)))
    assert forced.played == 12
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["versions"]["scigame"] == scigame.__version__


def test_unfinished_episodes_are_played_on_resume(tmp_path):
    class Flaky(Oracle):
        calls = 0

        async def act(self, state):
            Flaky.calls += 1
            if Flaky.calls % 3 == 0:
                raise PlayerFault("HTTP 503 (simulated)")
            return await super().act(state)

    cfg = small_config(tmp_path / "run")
    first = asyncio.run(run_eval(cfg, player=("oracle", Flaky)))
    assert first.unfinished == 4 and first.played == 8
    second = asyncio.run(run_eval(cfg, player=("oracle", Oracle)))
    assert second.played == 4 and second.skipped == 8
    with Store(tmp_path / "run") as store:
        assert store.count() == 12
        assert all(r["status"] == "finished" for r in store.rows())


def test_replay_reproduces_a_run(tmp_path):
    asyncio.run(run_eval(small_config(tmp_path / "a"), player=("oracle", Oracle)))
    from scigame.cli import main
    result = CliRunner().invoke(main, [
        "eval", str(REPO / "cards/historical/gravitation.sci"), "--player", f"replay:{tmp_path / 'a'}",
        "--setting", "discovery", "--protocol", "prior,fixed", "--budget", "1,2", "--reps", "2",
        "--out", str(tmp_path / "b"), "--quiet"])
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "a") as a, Store(tmp_path / "b") as b:
        ra = {(r["environment"], r["protocol"], r["budget"], r["repetition"]): (r["ps"], r["strict_success"])
              for r in a.rows()}
        rb = {(r["environment"], r["protocol"], r["budget"], r["repetition"]): (r["ps"], r["strict_success"])
              for r in b.rows()}
        assert ra == rb and len(rb) == 12
        assert {r["player"] for r in b.rows()} == {"replay:oracle"}
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert all(g["strict_esr"] == 1.0 for g in summary["groups"])


def test_passing_answer_with_a_protocol_break_has_a_failure_mode(grav):
    ep = play(grav, key(grav, "adaptive"), [submit(conf=(0.6, 0.4))], max_steps=5)
    assert ep.outcome.weak and not ep.outcome.weak_success
    assert ep.outcome.failure_mode == "protocol_violation"


def test_summary_leaves_out_episodes_of_an_edited_card(tmp_path):
    from scigame.summary import current_rows
    card = tmp_path / "gravitation.sci"
    card.write_text((REPO / "cards/historical/gravitation.sci").read_text())
    cfg = EvalConfig(paths=[str(card)], out=str(tmp_path / "run"), settings=["discovery"],
                     protocols=["prior"], environments=["original"], repetitions=1)
    asyncio.run(run_eval(cfg, player=("oracle", Oracle)))
    card.write_text(card.read_text().replace("in 0.5 .. 20", "in 0.5 .. 25"))
    asyncio.run(run_eval(cfg, player=("oracle", Oracle)))
    with Store(tmp_path / "run") as store:
        rows = store.rows()
    kept, stale = current_rows(rows)
    assert len(rows) == 2 and len(kept) == 1 and stale == 1
    invocations = (tmp_path / "run" / "invocations.jsonl").read_text().splitlines()
    assert len(invocations) == 2


def test_report_tables_and_plots(tmp_path):
    asyncio.run(run_eval(EvalConfig(paths=[str(REPO / "cards/historical/gravitation.sci")], out=str(tmp_path / "run"),
                                    settings=["discovery"], protocols=["prior", "adaptive"], repetitions=1),
                         player=("oracle", Oracle)))
    from scigame.cli import main
    result = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--plots", str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    assert "per card" in result.output and "gravitation" in result.output
    for name in ("esr.png", "budget.png", "observations.png", "ps.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


# ---- through the real CLI process --------------------------------------------------------

CARDS3 = [str(REPO / f"cards/historical/{n}.sci") for n in ("gravitation", "pendulum", "darcy")]


def test_cli_summary_equals_the_store(tmp_path):
    from scigame.cli import main
    result = CliRunner().invoke(main, ["eval", *CARDS3, "--reps", "2", "--setting", "discovery",
                                       "--protocol", "prior,fixed", "--budget", "2,8",
                                       "--out", str(tmp_path / "run"), "--quiet"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    with Store(tmp_path / "run") as store:
        episodes = list(store.episodes())
    assert len(episodes) == 3 * 2 * 3 * 2  # cards x envs x (prior + 2 budgets) x reps
    for g in summary["groups"]:
        mine = [e for e in episodes if (e.key.environment, e.key.protocol, e.key.budget, e.key.setting)
                == (g["environment"], g["protocol"], g["budget"], g["setting"])]
        assert g["finished"] == len(mine) == 6
        assert g["weak_esr"] == pytest.approx(sum(e.outcome.weak_success for e in mine) / len(mine))
        assert g["strict_esr"] == pytest.approx(sum(bool(e.outcome.strict_success) for e in mine) / len(mine))
        assert g["mean_ps"] == pytest.approx(sum(e.outcome.ps for e in mine) / len(mine))
        assert g["valid"] == sum(e.outcome.valid for e in mine)
    csv_lines = (tmp_path / "run" / "summary.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + len(summary["groups"])


def test_sigkill_mid_run_then_resume_plays_every_episode_once(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "scigame", "eval", *CARDS3, "--reps", "3", "--setting", "discovery",
           "--env", "original", "--protocol", "prior,fixed", "--budget", "2,4,8", "--out", str(out), "--quiet"]
    planned = 3 * 1 * (1 + 3) * 3
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if (out / "episodes.sqlite").exists():
            with Store(out) as store:
                stored = store.count()
            if stored >= 5:
                break
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with Store(out) as store:
        killed_at = store.count()
    assert 5 <= killed_at < planned
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{planned - killed_at} played, {killed_at} already finished" in done.stdout
    with Store(out) as store:
        rows = store.rows()
    keys = [(r["card"], r["environment"], r["setting"], r["protocol"], r["budget"], r["repetition"]) for r in rows]
    assert len(keys) == len(set(keys)) == planned
    assert all(r["status"] == "finished" for r in rows)


def test_a_run_resolved_once_finds_and_reads_nothing_again(tmp_path, monkeypatch):
    """What `scigame eval` resolved (runner.resolve_run: the card files, the
    window) is handed down: the run neither looks for cards nor reads the
    window again, and plays the cards it was given."""
    import scigame.collection
    import scigame.runner as runner

    cfg = small_config(tmp_path / "run", window="2025-01-01..")
    resolved = runner.resolve_run(cfg)
    assert resolved.card_files == (REPO / "cards/historical/gravitation.sci",)
    assert resolved.window == (__import__("datetime").date(2025, 1, 1), None)

    def again(*args, **kwargs):
        raise AssertionError("resolved twice")
    monkeypatch.setattr(runner, "find_cards", again)
    monkeypatch.setattr(scigame.collection, "parse_window", again)
    report = asyncio.run(run_eval(cfg, player=("oracle", Oracle), resolved=resolved))
    assert report.planned == 12 and report.played == 12
    with pytest.raises(AssertionError, match="resolved twice"):  # without it, the run resolves for itself
        asyncio.run(run_eval(small_config(tmp_path / "other"), player=("oracle", Oracle)))
