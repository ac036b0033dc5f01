"""Campaign robustness of the LLM path (issue 10), each finding through the
real `openai` client against the fake server on 127.0.0.1: spend counted
exactly across faults and resumes, odd replies end as model failures, stored
records stay readable, structured-output fallback without races, tool-call
answers, missing usage, a true per-call deadline, real quote evidence."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.llm.client import ChatClient, EndpointFault, LLMConfig
from scigame.llm.registry import load_registry
from scigame.store import Store
from scigame.testing.fake_openai import FakeOpenAI, Reply
from scigame.testing.responders import scientist

from tests.test_llm import GRAVITATION, KEY_ENV, api_key, run  # noqa: F401 - api_key is an autouse fixture
from tests.test_llm import config as _config

PRICE = load_registry().get("fake-model").price


def config(out, server, **kw):
    """test_llm's configuration, with a step cap of 8 (short Adaptive episodes)."""
    return _config(out, server, **{"max_steps": 8, **kw})


def dollars(prompt: int, cached: int, completion: int) -> float:
    """The registry's price rule, written out independently."""
    return ((prompt - cached) * PRICE.input + cached * PRICE.cached_input + completion * PRICE.output) / 1e6


class Every:
    """The scientist's answers, with request n replaced by `pattern[n % len(pattern)]`
    where that is not None (a fault name or Reply fields); `change` rewrites
    the scientist's replies."""

    def __init__(self, pattern=(None,), change=None):
        self.pattern, self.change = list(pattern), change
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, request):
        with self.lock:
            n = self.count
            self.count += 1
        fault = self.pattern[n % len(self.pattern)]
        if fault is not None:
            return Reply(**fault) if isinstance(fault, dict) else Reply(fault=fault)
        reply = scientist(request)
        return self.change(reply) if self.change else reply


# ---- 1. every dollar counted -------------------------------------------------------------

def test_spend_equals_the_servers_delivered_usage_after_faults_and_resumes(tmp_path):
    # about 10% of requests of each kind fail; two 503s in a row outlast --max-retries 1
    faults = ["503", "503", "429", "500", "disconnect", "invalid_json", "truncated",
              {"fault": "hang", "hang_seconds": 30}, {"content": "this is no JSON at all"}]
    pattern = [x for f in faults for x in (f, None)][1:] + [None] * 6
    responder = Every(pattern)
    out = tmp_path / "run"
    invocations = 0
    with FakeOpenAI(responder) as server:
        cfg = config(out, server, protocols=["prior", "fixed", "adaptive"], settings=["discovery"],
                     concurrency=4, llm={"max_retries": 1, "timeout": 2.0})
        while True:
            invocations += 1
            report = run(cfg)
            if report.unfinished == 0:
                break
            assert invocations < 20
        delivered = list(server.delivered)
    assert invocations > 1  # the faults left episodes unfinished, and resumes finished them
    with Store(out) as store:
        spent, rows, attempts = store.spent(), store.rows(), store.attempt_rows()
        episodes = list(store.episodes())
    # every episode stored exactly once, all finished, and every attempt archived
    keys = [(r["environment"], r["setting"], r["protocol"], r["budget"], r["repetition"]) for r in rows]
    assert len(keys) == len(set(keys)) == report.planned == 6
    assert all(r["status"] == "finished" for r in rows)
    assert len(attempts) > len(rows) and {a["status"] for a in attempts} == {"finished", "unfinished"}
    # tokens and dollars equal what the server delivered (to the token: within 0.5% is required)
    assert spent.calls == len(delivered)
    assert spent.input_tokens == sum(d[0] for d in delivered)
    assert spent.cached_tokens == sum(d[1] for d in delivered)
    assert spent.output_tokens == sum(d[2] for d in delivered)
    want = sum(dollars(*d) for d in delivered)
    assert spent.cost_usd == pytest.approx(want, rel=1e-9)
    # the finished episodes' own records add up to what their stored attempts cost
    with Store(out) as store:
        on_finished = store.spent_on_finished()
    assert on_finished == pytest.approx(sum(e.spent.cost_usd for e in episodes), rel=1e-9)
    assert on_finished <= spent.cost_usd + 1e-12  # sums in another order
    # the unparsable reply was the model's (a correction, kept as a malformed turn); faults never were
    malformed = [t for e in episodes for t in e.turns if t.action is None]
    assert all(t.malformed for t in malformed)
    assert "this is no JSON at all" in [t.reply for t in malformed]
    assert sum(e.spent.corrections for e in episodes) >= 1


def test_calls_of_the_turn_a_fault_cut_short_are_counted(tmp_path):
    # one adaptive episode: a good experiment, an unusable reply (a correction), then a fault
    # that outlasts the retries in the same turn; the resume plays the episode again
    responder = Every([None, {"content": "no JSON here"}, "503", "503"] + [None] * 400)
    out = tmp_path / "run"
    with FakeOpenAI(responder) as server:
        cfg = config(out, server, protocols=["adaptive"], settings=["discovery"], environments=["original"],
                     llm={"max_retries": 1})
        first = run(cfg)
        assert first.unfinished == 1
        with Store(out) as store:
            (attempt,) = store.attempt_rows()
            (e,) = store.episodes()
        assert attempt["status"] == "unfinished" and attempt["calls"] == 2
        assert attempt["cost_usd"] == pytest.approx(sum(dollars(*d) for d in server.delivered), rel=1e-9)
        assert [t.malformed is not None for t in e.turns] == [False, True]  # the unusable reply is kept
        second = run(cfg)
        delivered = list(server.delivered)
    assert second.played == 1
    with Store(out) as store:
        spent, on_finished = store.spent(), store.spent_on_finished()
        attempts = store.attempt_rows()
    assert [a["status"] for a in attempts] == ["unfinished", "finished"]
    assert spent.cost_usd == pytest.approx(sum(dollars(*d) for d in delivered), rel=1e-9)
    assert on_finished == pytest.approx(attempts[1]["cost_usd"]) and on_finished < spent.cost_usd
    assert second.spent_usd == pytest.approx(spent.cost_usd)


def test_max_cost_counts_every_attempt_at_concurrency_1(tmp_path):
    out = tmp_path / "run"
    one_call = dollars(800, 512, 300)  # a Prior-only episode of the scientist: one call
    budget = 3.5 * one_call
    with FakeOpenAI(Every()) as server:
        report = run(config(out, server, protocols=["prior"], repetitions=3, max_cost=budget))
        delivered = list(server.delivered)
    # four episodes start (spend before each: 0, 1, 2, 3 calls' worth), then the budget holds
    assert report.played == 4 and report.not_started == 8
    assert sum(dollars(*d) for d in delivered) == pytest.approx(report.spent_usd, rel=1e-9)
    assert report.spent_usd <= budget + one_call


# ---- 2./3. odd replies are the model's failures; the run and every reader go on ------------------

@pytest.mark.parametrize("oddity", ["nan", "infinity", "1e400", "bigint", "deep", "brackets"])
def test_odd_numbers_and_nesting_end_as_model_failures(tmp_path, oddity):
    out = tmp_path / "run"
    # every reply odd: two corrections, then "no usable answer"; nothing is stored as null
    odd = Every(change=lambda r: dataclasses.replace(r, oddity=oddity))
    with FakeOpenAI(odd) as server:
        report = run(config(out, server, protocols=["prior", "adaptive"], settings=["discovery"],
                            environments=["original"]))
        assert report.errors == [] and report.unfinished == 0 and report.played == 2
        with Store(out) as store:
            episodes = list(store.episodes())
            raw = [r for (r,) in store.db.execute("SELECT record FROM episodes")]
        for e in episodes:
            assert e.outcome.failure_mode == "no_usable_answer"
            assert [t.malformed is not None for t in e.turns] == [True, True, True]
            assert e.spent.corrections == 2 and e.spent.calls == 3
        # no action was stored (so no number became null); the replies are kept as written
        assert all(t["action"] is None and t["reply"] for r in raw for t in json.loads(r)["turns"])
        # judge and report read the folder
        judged = CliRunner().invoke(main, ["judge", str(out), "--judge", "openai:fake-model",
                                           "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--quiet"])
    assert judged.exit_code == 0, judged.output
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0


def test_an_odd_reply_then_a_good_one_is_corrected_and_scored(tmp_path):
    state = {"n": 0}

    def first_odd(request):
        state["n"] += 1
        reply = scientist(request)
        return dataclasses.replace(reply, oddity="nan") if state["n"] == 1 else reply

    with FakeOpenAI(first_odd) as server:
        run(config(tmp_path / "run", server, protocols=["fixed"], settings=["discovery"],
                   environments=["original"]))
    with Store(tmp_path / "run") as store:
        (e,) = store.episodes()
    assert e.outcome.weak_success and e.spent.corrections == 1
    bad = e.turns[0]
    assert bad.action is None and "NaN" in bad.reply and "not a finite number" in bad.malformed


def _old_row(out: Path):
    """A store as an older version left it: a finished episode whose record
    holds nulls where numbers belong and a 400-digit integer constant."""
    with FakeOpenAI(scientist) as srv:
        run(config(out, srv, protocols=["adaptive"], settings=["discovery"], environments=["original"]))
    db = sqlite3.connect(out / "episodes.sqlite")
    (record,) = db.execute("SELECT record FROM episodes").fetchone()
    data = json.loads(record)
    turns = data["turns"]
    experiment = next(t for t in turns if t["action"]["experiment"])
    name = next(iter(experiment["action"]["experiment"]["predictions"][0]))
    experiment["action"]["experiment"]["predictions"][0][name] = None  # NaN, as older versions wrote it
    submission = turns[-1]["action"]["submission"]
    out_name = next(iter(submission["predictor"]))
    submission["predictor"][out_name] = {"op": "mul", "args": [10 ** 400, submission["predictor"][out_name]]}
    text = json.dumps(data)
    db.execute("UPDATE episodes SET record = ?", (text,))
    db.execute("DELETE FROM attempts")  # older versions had no archive
    db.commit()
    db.close()


def test_readers_tolerate_rows_an_older_version_wrote(tmp_path):
    out = tmp_path / "run"
    _old_row(out)
    with FakeOpenAI(scientist) as server:
        judged = CliRunner().invoke(main, ["judge", str(out), "--judge", "openai:fake-model",
                                           "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--quiet"])
    assert judged.exit_code == 0, judged.output
    assert judged.output.startswith("1 judged")
    reported = CliRunner().invoke(main, ["report", str(out), "--format", "json"])
    assert reported.exit_code == 0, reported.output
    assert json.loads(reported.output)["spend"]["spent_usd"] > 0  # the old row's cost still counts
    replayed = CliRunner().invoke(main, ["eval", GRAVITATION, "--player", f"replay:{out}", "--protocol", "adaptive",
                                         "--setting", "discovery", "--env", "original", "--reps", "1",
                                         "--max-steps", "8", "--out", str(tmp_path / "replay"), "--quiet"])
    assert replayed.exit_code == 0, replayed.output


# ---- 4. structured outputs: decided once, under a lock ----------------------------------------

@pytest.mark.parametrize("how", ["schema", "plain", "422"])
def test_one_invocation_finishes_against_a_server_refusing_json_schema(tmp_path, how):
    with FakeOpenAI(scientist, refuse_schema=how) as server:
        report = run(config(tmp_path / "run", server, concurrency=8, protocols=["prior", "fixed"]))
        requests = list(server.requests)
    assert report.planned == 8 and report.played == 8 and report.unfinished == 0
    with_schema = [r for r in requests if "response_format" in r]
    assert len(with_schema) == 1  # the first call decided; the seven waiting behind it knew
    assert len(requests) == 9
    assert any("refused structured outputs" in w and ("400" in w or "422" in w) for w in report.warnings)


class InFlight:
    """Answers after `latency` seconds and keeps the most requests it held at once."""

    def __init__(self, latency: float):
        self.latency, self.now, self.most = latency, 0, 0
        self.lock = threading.Lock()

    def __call__(self, request):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(self.latency)
        with self.lock:
            self.now -= 1
        return Reply(content='{"ok": true}')


def _eight_first_calls(server) -> tuple[ChatClient, list]:
    client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                  max_retries=0))

    async def go():
        try:
            return await asyncio.gather(*[client.complete([{"role": "user", "content": f"q{i}"}],
                                                          schema={"type": "object"}) for i in range(8)])
        finally:
            await client.close()
    return client, asyncio.run(go())


def test_calls_that_waited_for_the_decision_go_side_by_side():
    # eight first calls with a schema: one decides, the seven behind it are then all in flight at
    # once (under the lock, one at a time, they took 8 latencies instead of 2)
    slow = InFlight(latency=0.4)
    with FakeOpenAI(slow) as server:
        _, answers = _eight_first_calls(server)
        requests = list(server.requests)
    assert [a.text for a in answers] == ['{"ok": true}'] * 8
    assert all("response_format" in r for r in requests) and len(requests) == 8
    assert slow.most == 7


def test_an_endpoint_that_took_a_schema_is_remembered_by_the_next_run():
    # the second client (a later run) knows the endpoint takes structured outputs: its eight first
    # calls are all in flight at once, none waiting for a decision; the user cache says why
    from scigame.compiler.usercache import read_json
    from scigame.llm.client import STRUCTURED_MEMO

    slow = InFlight(latency=0.4)
    with FakeOpenAI(slow) as server:
        _eight_first_calls(server)
        assert slow.most == 7
        assert read_json(STRUCTURED_MEMO) == {f"{server.base_url} fake-model": True}
        slow.most = 0
        _, answers = _eight_first_calls(server)
        requests = list(server.requests)
    assert [a.text for a in answers] == ['{"ok": true}'] * 8
    assert len(requests) == 16 and all("response_format" in r for r in requests)
    assert slow.most == 8


def test_a_remembered_endpoint_that_refuses_now_is_forgotten():
    # remembered as taking schemas, the endpoint now refuses them: the eight first calls all carry
    # one and are refused, each is sent again without it, one warning says so, and the memory goes
    from scigame.compiler.usercache import read_json, write_json
    from scigame.llm.client import STRUCTURED_MEMO

    with FakeOpenAI(scientist, refuse_schema="schema") as server:
        write_json(STRUCTURED_MEMO, {f"{server.base_url} fake-model": True, "https://elsewhere/v1 m": True})
        client, answers = _eight_first_calls(server)
        requests = list(server.requests)
    assert len(answers) == 8
    assert sum("response_format" in r for r in requests) == 8 and len(requests) == 16
    assert len(client.warnings) == 1 and "refused structured outputs" in client.warnings[0]
    assert read_json(STRUCTURED_MEMO) == {"https://elsewhere/v1 m": True}


def test_a_422_keeps_its_detail_in_the_message(tmp_path):
    with FakeOpenAI([Reply(fault="422")]) as server:
        client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                      structured=False))

        async def go():
            try:
                await client.complete([{"role": "user", "content": "hi"}])
            finally:
                await client.close()

        with pytest.raises(EndpointFault) as caught:
            asyncio.run(go())
    assert "422" in str(caught.value) and "scripted validation failure" in str(caught.value)


# ---- 5. answers in tool_calls -------------------------------------------------------------

def test_tool_call_answers_are_read_and_scored(tmp_path):
    tools = Every(change=lambda r: dataclasses.replace(r, tool_call=True))
    with FakeOpenAI(tools) as server:
        report = run(config(tmp_path / "run", server, protocols=["fixed", "adaptive"], settings=["discovery"]))
    assert report.played == 4
    with Store(tmp_path / "run") as store:
        episodes = list(store.episodes())
    # read, parsed and scored (the scientist's Adaptive episodes are capped at 8 steps, so only
    # its Fixed answers are sure to pass weak)
    assert all(e.outcome.submitted and e.outcome.valid for e in episodes)
    assert all(e.outcome.weak for e in episodes if e.key.protocol == "fixed")
    assert sum(e.spent.corrections for e in episodes) == 0


# ---- 6. missing usage ---------------------------------------------------------------------

def test_missing_usage_is_estimated_warned_once_and_max_cost_still_stops(tmp_path):
    silent = Every(change=lambda r: dataclasses.replace(r, usage=False))
    with FakeOpenAI(silent) as server:
        result = CliRunner().invoke(main, [
            "eval", GRAVITATION, "--player", "openai:fake-model", "--base-url", server.base_url,
            "--api-key-env", KEY_ENV, "--out", str(tmp_path / "run"), "--reps", "2", "--quiet",
            "--protocol", "prior", "--max-cost", "0.002"])
    assert result.exit_code == 0, result.output
    assert "episodes not started" in result.output
    assert result.output.count("reported no token usage") == 1
    with Store(tmp_path / "run") as store:
        spent = store.spent()
        episodes = list(store.episodes())
    assert spent.calls == spent.estimated == len(episodes) >= 1
    assert spent.input_tokens > 1000 and spent.cost_usd >= 0.002  # the system prompt alone is ~1k tokens
    assert all(e.spent.estimated == e.spent.calls for e in episodes)
    assert "calls estimated" in result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["spend"]["estimated_calls"] == spent.calls


# ---- 7. --timeout is a deadline per call ----------------------------------------------------------

def test_a_trickled_body_is_cut_within_twice_the_timeout():
    trickle = Reply(content=json.dumps({"note": "x" * 400}), fault="trickle", trickle_bytes=16, trickle_interval=0.1)
    with FakeOpenAI([trickle]) as server:
        client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                      timeout=1.0, max_retries=0))

        async def go():
            try:
                await client.complete([{"role": "user", "content": "hi"}])
            finally:
                await client.close()

        started = time.perf_counter()
        with pytest.raises(EndpointFault) as caught:
            asyncio.run(go())
        elapsed = time.perf_counter() - started
    # the body takes ~4 s to trickle (about 600 bytes at 160 bytes/s); the call is cut at 1 s
    assert elapsed < 2.0 and "--timeout" in str(caught.value)


def test_a_trickled_body_within_the_deadline_is_read():
    trickle = Reply(content='{"ok": true}', fault="trickle", trickle_bytes=256, trickle_interval=0.05)
    with FakeOpenAI([trickle]) as server:
        client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                      timeout=5.0, max_retries=0))

        async def go():
            try:
                return await client.complete([{"role": "user", "content": "hi"}])
            finally:
                await client.close()

        assert asyncio.run(go()).text == '{"ok": true}'


# ---- a kill loses no archived call --------------------------------------------------------------

def test_calls_of_a_killed_run_stay_in_the_spend(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    def slow(request):
        time.sleep(0.05)
        return scientist(request)

    out = tmp_path / "run"
    with FakeOpenAI(slow) as server:
        cmd = [sys.executable, "-m", "scigame", "eval", GRAVITATION, "--player", "openai:fake-model",
               "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--reps", "1", "--protocol", "adaptive",
               "--max-steps", "8", "--out", str(out), "--quiet"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline and len(server.delivered) < 6 and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        killed_delivered = len(server.delivered)
        with Store(out) as store:
            killed_calls = store.spent().calls
            killed_episodes = store.count()
        # at concurrency 1 at most the one call in flight at the kill can be delivered yet unrecorded
        assert killed_delivered - 1 <= killed_calls <= killed_delivered and killed_episodes < 4
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        delivered = list(server.delivered)
    assert done.returncode == 0, done.stderr[-2000:]
    with Store(out) as store:
        spent, attempts = store.spent(), store.attempt_rows()
    assert "running" in {a["status"] for a in attempts}  # the killed attempt, kept with its calls
    assert len(delivered) - 1 <= spent.calls <= len(delivered)
    assert spent.cost_usd == pytest.approx(sum(dollars(*d) for d in delivered), rel=0.005 + 1 / len(delivered))


def test_the_episode_guard_covers_storage(tmp_path):
    """A record that cannot be written (here a Python object inside a predictor,
    which JSON cannot hold) leaves that episode unfinished with an internal
    error; the other episodes are played and stored."""
    from scigame.players.base import Player
    from scigame.records import Action, Hypothesis, Submission, Usage
    from scigame.runner import EvalConfig, run_eval

    class Unstorable(Player):
        name = "unstorable"

        async def act(self, state):
            weird = state.episode["environment"] == "counterfactual"
            predictor = {"F": {"op": "mul", "args": [object() if weird else 1.0, {"var": "m1"}]}}
            return Action(hypotheses=[Hypothesis(statement="s", confidence=1.0)],
                          submission=Submission(selected=0, predictor=predictor, explanation="e",
                                                applicability="a")), Usage()

    cfg = EvalConfig(paths=[GRAVITATION], protocols=["prior"], settings=["discovery"], repetitions=1,
                     out=str(tmp_path / "run"))
    report = asyncio.run(run_eval(cfg, player=("unstorable", Unstorable)))
    assert report.played == 1 and report.unfinished == 1 and len(report.errors) == 1
    assert "Serializ" in report.errors[0], report.errors  # it failed in the store, not before
    with Store(tmp_path / "run") as store:
        rows = {r["environment"]: r for r in store.rows()}
    assert rows["original"]["status"] == "finished"
    assert rows["counterfactual"]["status"] == "unfinished"
    assert json.loads(rows["counterfactual"]["record"])["error"].startswith("internal error:")
