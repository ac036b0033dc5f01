"""The one conversation helper (scigame.llm.conversation) and its four users
(player, judge, curate, review), through the real `openai` client against
the fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from scigame.cli import main
from scigame.curation import CHECKS, curate
from scigame.llm.client import ChatClient, EndpointFault, LLMConfig
from scigame.llm.conversation import MAX_CORRECTIONS, TRUNCATED, converse, model_check
from scigame.players.base import PlayerFault
from scigame.runner import EvalConfig, run_eval
from scigame.store import Store
from scigame.testing.fake_openai import FakeOpenAI, Reply
from scigame.testing.responders import scientist

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = str(REPO / "cards/historical/gravitation.sci")
KEY_ENV = "SCIGAME_TEST_KEY"
# fake-model's price in scigame/data/models.json, in dollars per million tokens
INPUT, OUTPUT = 1.00, 2.00


def dollars(prompt: int, completion: int) -> float:
    return (prompt * INPUT + completion * OUTPUT) / 1e6


class Pair(BaseModel):
    a: int
    b: str


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")


def client_for(server, **kw) -> ChatClient:
    return ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                structured=False, backoff_base=0.01, backoff_max=0.02, **kw))


def talk(server, check, messages=None, **kw):
    client = client_for(server, max_retries=kw.pop("max_retries", 0))
    messages = messages if messages is not None else [{"role": "user", "content": "a pair, please"}]

    async def go():
        try:
            return await converse(client, messages, check, **kw)
        finally:
            await client.close()

    return asyncio.run(go())


# ---- the helper ------------------------------------------------------------------------------

def test_an_unusable_reply_is_corrected_and_every_call_is_counted():
    messages = [{"role": "user", "content": "a pair, please"}]
    with FakeOpenAI([Reply(content='{"a": "x", "b": "y"}'),
                     Reply(content='{"a": 1, "b": "y"}', prompt_tokens=200, completion_tokens=20)]) as server:
        exchange = talk(server, model_check(Pair, "pair"), messages)
        requests = list(server.requests)
    assert exchange.value == Pair(a=1, b="y") and exchange.corrections == 1 and exchange.problems == []
    assert exchange.usage.calls == 2 and exchange.usage.corrections == 1
    assert (exchange.usage.input_tokens, exchange.usage.output_tokens) == (300, 70)
    assert exchange.usage.cost_usd == pytest.approx(dollars(100, 50) + dollars(200, 20), rel=1e-12)
    assert exchange.reply_usage.calls == 1 and exchange.reply_usage.input_tokens == 200
    assert messages == [{"role": "user", "content": "a pair, please"}]  # the caller's list is not changed
    assert len(requests) == 2
    sent_back = requests[1]["messages"]
    assert sent_back[1] == {"role": "assistant", "content": '{"a": "x", "b": "y"}'}
    assert sent_back[2]["role"] == "user"
    assert re.search(r"could not be used: the pair does not match the format: a: .*integer", sent_back[2]["content"])
    assert exchange.messages == sent_back  # what the usable reply answered


def test_corrections_are_bounded_and_the_last_unusable_reply_is_not_corrected():
    heard = []
    with FakeOpenAI([Reply(content="no JSON here")] * (MAX_CORRECTIONS + 1) + [Reply(content='{"a": 1, "b": "y"}')]
                    ) as server:
        exchange = talk(server, model_check(Pair), on_unusable=lambda *args: heard.append(args))
        requests = len(server.requests)
    assert exchange.value is None and requests == MAX_CORRECTIONS + 1  # the good fourth reply is never asked for
    assert exchange.corrections == MAX_CORRECTIONS == exchange.usage.corrections
    assert exchange.usage.calls == MAX_CORRECTIONS + 1
    assert exchange.usage.cost_usd == pytest.approx((MAX_CORRECTIONS + 1) * dollars(100, 50), rel=1e-12)
    assert exchange.problems == ["the reply holds no JSON object"] and exchange.reply == "no JSON here"
    assert [h[0] for h in heard] == ["no JSON here"] * (MAX_CORRECTIONS + 1)
    assert [h[2].corrections for h in heard] == [1] * MAX_CORRECTIONS + [0]
    assert all(h[2].calls == 1 for h in heard)


def test_a_reply_cut_off_at_the_token_limit_is_unusable_before_it_is_checked():
    checked = []

    def check(text):
        checked.append(text)
        return model_check(Pair)(text)

    good = '{"a": 1, "b": "y"}'
    with FakeOpenAI([Reply(content=good, finish_reason="length"), Reply(content=good)]) as server:
        exchange = talk(server, check)
        requests = list(server.requests)
    assert checked == [good] and exchange.value == Pair(a=1, b="y") and exchange.corrections == 1
    assert TRUNCATED in requests[1]["messages"][-1]["content"]


def test_a_list_of_problems_reaches_the_correction():
    def check(text):
        return None, ["first problem", "second problem"]

    with FakeOpenAI([Reply(content="{}")] * 2) as server:
        exchange = talk(server, check, max_corrections=1, correct=lambda found: " | ".join(found))
        requests = list(server.requests)
    assert requests[1]["messages"][-1]["content"] == "first problem | second problem"
    assert exchange.problems == ["first problem", "second problem"]
    assert exchange.problem == "first problem; second problem"


def test_an_endpoint_fault_carries_what_the_conversation_spent():
    with FakeOpenAI([Reply(content="no JSON here"), Reply(fault="503"), Reply(fault="503")]) as server:
        with pytest.raises(EndpointFault) as caught:
            talk(server, model_check(Pair), max_retries=1)
    fault = caught.value
    assert not isinstance(fault, PlayerFault)  # the endpoint's fault type, not the player's (#23)
    assert "after 2 attempts" in str(fault)
    assert fault.usage.calls == 1 and fault.usage.corrections == 1 and fault.usage.retries == 1
    assert fault.usage.cost_usd == pytest.approx(dollars(100, 50), rel=1e-12)


# ---- its users -----------------------------------------------------------------------------

def test_the_player_maps_a_fault_to_an_unfinished_episode_without_counting_twice(tmp_path):
    replies = [Reply(content="no JSON here"), Reply(fault="503")]

    def responder(request):
        return replies.pop(0) if replies else scientist(request)

    out = tmp_path / "run"
    llm = {"base_url": None, "api_key_env": KEY_ENV, "timeout": 60.0, "max_retries": 0}
    with FakeOpenAI(responder) as server:
        llm["base_url"] = server.base_url
        cfg = EvalConfig(paths=[GRAVITATION], player="openai:fake-model", out=str(out), repetitions=1,
                         budgets=[4], settings=["discovery"], protocols=["prior"], environments=["original"],
                         llm=llm)
        report = asyncio.run(run_eval(cfg))
        delivered = list(server.delivered)
    assert report.unfinished == 1
    with Store(out) as store:
        (episode,) = store.episodes()
    assert episode.status == "unfinished" and "503" in episode.error
    assert [t.reply for t in episode.turns] == ["no JSON here"]  # kept as a malformed turn
    # the unusable reply's call is counted once: in its turn, not again through the fault
    assert len(delivered) == 1 and episode.spent.calls == 1 and episode.spent.corrections == 1
    assert episode.spent.cost_usd == pytest.approx(dollars(100, 50), rel=1e-12)


def test_a_judge_correction_is_counted_in_the_judgement(tmp_path):
    judged = []  # the replies the judge got

    def responder(request):
        if "<scigame-transcript>" not in request["messages"][1]["content"]:
            return scientist(request)
        reply = scientist(request) if judged else Reply(content="I would give it full marks.",
                                                        prompt_tokens=300, completion_tokens=30)
        judged.append(reply)
        return reply

    with FakeOpenAI(responder) as server:
        llm = {"base_url": server.base_url, "api_key_env": KEY_ENV, "timeout": 60.0, "max_retries": 0}
        asyncio.run(run_eval(EvalConfig(paths=[GRAVITATION], player="openai:fake-model", out=str(tmp_path / "run"),
                                        repetitions=1, budgets=[4], settings=["discovery"], protocols=["fixed"],
                                        environments=["original"], llm=llm)))
        result = CliRunner().invoke(main, ["judge", str(tmp_path / "run"), "--judge", "openai:fake-model",
                                           "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--quiet"])
        judge_requests = [r for r in server.requests if "<scigame-transcript>" in r["messages"][1]["content"]]
    assert result.exit_code == 0, result.output
    assert len(judge_requests) == 2 and "could not be used" in judge_requests[1]["messages"][-1]["content"]
    with Store(tmp_path / "run") as store:
        (row,) = store.judgement_rows()
    usage = json.loads(row["record"])["usage"]
    assert usage["calls"] == 2 and usage["corrections"] == 1 and row["ses"] is not None
    assert row["input_tokens"] == sum(r.prompt_tokens for r in judged) and judged[0].prompt_tokens == 300
    assert row["cost_usd"] == pytest.approx(sum(dollars(r.prompt_tokens, r.completion_tokens) for r in judged))


def test_a_curation_fault_carries_its_spend_and_the_cli_says_the_endpoint_failed(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("Line one of a source.\nLine two.\n", encoding="utf-8")
    with FakeOpenAI([Reply(content="no JSON here"), Reply(fault="503")]) as server:
        client = client_for(server, max_retries=0)

        async def go():
            try:
                return await curate(source, client, tmp_path / "drafts")
            finally:
                await client.close()

        with pytest.raises(EndpointFault) as caught:
            asyncio.run(go())
        server.add(Reply(content="no JSON here"), Reply(fault="503"))
        result = CliRunner().invoke(main, ["curate", str(source), "--out", str(tmp_path / "drafts"),
                                           "--model", "openai:fake-model", "--base-url", server.base_url,
                                           "--api-key-env", KEY_ENV, "--max-retries", "0"])
    assert caught.value.usage.calls == 1 and caught.value.usage.cost_usd == pytest.approx(dollars(100, 50))
    assert result.exit_code == 1 and "the endpoint failed" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "drafts").exists()


def test_a_review_that_breaks_the_format_names_every_place():
    from scigame.curation import parse_review

    reply, problem = parse_review(json.dumps({"verdict": "maybe", "reasons": "none",
                                              "checks": {c: "ok" for c in CHECKS}}))
    assert reply is None and problem.startswith("the review does not match the format: ")
    assert "verdict: " in problem and "reasons: " in problem


def test_one_loop_and_one_bound_in_the_package():
    """Only the conversation helper asks the client for a completion, and
    MAX_CORRECTIONS is assigned once (scigame/players/base.py)."""
    package = REPO / "scigame"
    callers, bounds = [], []
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if re.search(r"\.complete\(", text):
            callers.append(path.relative_to(package).as_posix())
        bounds += [path.relative_to(package).as_posix() for _ in re.finditer(r"^MAX_CORRECTIONS\s*=", text, re.M)]
    assert callers == ["llm/conversation.py"]
    assert bounds == ["players/base.py"]
