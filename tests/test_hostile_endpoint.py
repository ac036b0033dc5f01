"""The hostile endpoint (issue 30): every behaviour of
`scigame.testing.hostile`, served by the fake server on 127.0.0.1 and met
through the real `openai` client. Each is bounded (time, memory, numbers),
blamed on the endpoint, and never an internal error; every answered call
reaches the attempt archive."""

from __future__ import annotations

import asyncio
import json
import math
import time

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.llm.client import MAX_BODY_BYTES, ChatClient, EndpointFault, LLMConfig
from scigame.records import Usage
from scigame.store import CALL_LEDGER, Store
from scigame.testing.fake_openai import HOSTILE, FakeOpenAI, Reply
from scigame.testing.hostile import ANSWERED, ESCAPES, HUGE_BYTES
from scigame.testing.responders import scientist

from tests.test_llm import GRAVITATION, KEY_ENV, api_key  # noqa: F401 - api_key is an autouse fixture

OK = '{"ok": true}'


def _client(server, timeout=5.0, retries=2):
    return ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                timeout=timeout, max_retries=retries, backoff_base=0.01, backoff_max=0.05))


def _complete(server, **kw):
    """One completion through the client, with the calls it archives."""
    ledger: list[Usage] = []

    async def go():
        token = CALL_LEDGER.set(ledger.append)
        client = _client(server, **kw)
        try:
            return await client.complete([{"role": "user", "content": "hi"}]), client.warnings
        finally:
            CALL_LEDGER.reset(token)
            await client.close()
    return asyncio.run(go()), ledger


def test_huge_bodies_exceed_the_client_bound():
    assert HUGE_BYTES > MAX_BODY_BYTES


@pytest.mark.parametrize("name", ["retry_after_huge", "retry_after_inf", "retry_after_nan"])
def test_a_retry_after_wait_is_bounded_by_the_timeout(name):
    with FakeOpenAI([Reply(hostile=name), Reply(content=OK)]) as server:
        start = time.monotonic()
        (completion, _), ledger = _complete(server, timeout=1.0)
    assert time.monotonic() - start < 4.0
    assert completion.text == OK and completion.usage.retries == 1 and len(ledger) == 1


@pytest.mark.parametrize("name", ["huge_body", "huge_body_chunked", "deep_body"])
def test_an_unreadable_body_is_the_endpoints_fault_and_retried(name):
    with FakeOpenAI([Reply(content=OK, hostile=name), Reply(content=OK)]) as server:
        (completion, _), ledger = _complete(server, timeout=30.0)
    assert completion.text == OK and completion.usage.retries == 1
    assert [u.calls for u in ledger] == [1]  # the readable answer is archived; the unreadable had no usage


@pytest.mark.parametrize("name", ["huge_body", "deep_body"])
def test_an_unreadable_body_every_time_is_an_endpoint_fault(name):
    with FakeOpenAI([Reply(content=OK, hostile=name)] * 2) as server:
        with pytest.raises(EndpointFault, match="more than|longer than|deeply"):
            _complete(server, timeout=30.0, retries=1)


@pytest.mark.parametrize("name", ["usage_1e400", "usage_10e30", "usage_nan"])
def test_implausible_token_counts_are_estimated_and_archived(name):
    with FakeOpenAI([Reply(content=OK, hostile=name)]) as server:
        (completion, warnings), ledger = _complete(server)
        answered = server.completions
    u = completion.usage
    assert answered == 1 and ledger == [u]
    assert u.estimated == 1 and 0 < u.input_tokens < 100 and math.isfinite(u.cost_usd) and u.cost_usd > 0
    assert any("implausible token counts" in w for w in warnings)


def test_a_lone_surrogate_becomes_a_replacement_character():
    with FakeOpenAI([Reply(content=OK, hostile="lone_surrogate")]) as server:
        (completion, _), ledger = _complete(server)
    assert "\ufffd \ufffd" in completion.text
    completion.text.encode("utf-8")  # storable
    assert len(ledger) == 1


def test_a_400_with_escapes_is_an_endpoint_fault_carrying_the_message():
    with FakeOpenAI([Reply(hostile="escape_400")]) as server:
        with pytest.raises(EndpointFault, match="rejected the request"):
            _complete(server)


class Hostile:
    """The scientist's answers, with request n answered by hostile behaviour
    `HOSTILE[n // 2]` when n is even (each behaviour once, then honest)."""

    def __init__(self, names):
        self.names, self.count = list(names), 0

    def __call__(self, request):
        n, self.count = self.count, self.count + 1
        reply = scientist(request)
        if n % 2 == 0 and n // 2 < len(self.names):
            reply.hostile = self.names[n // 2]
        return reply


def _eval(tmp_path, server, *extra):
    return CliRunner().invoke(main, [
        "eval", GRAVITATION, "--out", str(tmp_path / "run"), "--player", "openai:fake-model",
        "--base-url", server.base_url, "--api-key-env", KEY_ENV, "--reps", "3", "--env", "original",
        "--setting", "discovery", "--protocol", "all", "--max-steps", "4", "--timeout", "20", "--max-retries", "3",
        "--quiet", *extra])


def test_a_campaign_against_every_hostile_behaviour(tmp_path):
    names = [n for n in HOSTILE if n != "escape_400"]
    responder = Hostile(names)
    with FakeOpenAI(responder) as server:
        first = _eval(tmp_path, server)
        answered = server.completions
        second = _eval(tmp_path, server)  # the resume: nothing is played (or paid for) again
        assert server.completions == answered
    assert responder.count >= 2 * len(names)  # every behaviour was served
    for out in (first, second):
        assert "internal error" not in out.output and "Traceback" not in out.output, out.output
        assert "\x1b" not in out.output and "\x07" not in out.output and "\x9b" not in out.output
    assert first.exit_code == 0, first.output
    with Store(tmp_path / "run") as store:
        rows, spent = store.rows(), store.spent()
        episodes = list(store.episodes())
    assert rows and all(r["status"] == "finished" for r in rows)
    assert spent.calls == answered and math.isfinite(spent.cost_usd)  # every answered call archived
    assert spent.estimated >= 3  # the three implausible usages
    raw = json.dumps([e.model_dump(mode="json") for e in episodes])
    assert "\\ud800" not in raw


def test_an_escaping_400_reaches_the_terminal_as_plain_text(tmp_path):
    with FakeOpenAI(lambda request: Reply(hostile="escape_400")) as server:
        out = _eval(tmp_path, server)
    assert "internal error" not in out.output and "Traceback" not in out.output, out.output
    assert "\x1b" not in out.output and "\x07" not in out.output and "\x9b" not in out.output
    assert "bad request" in out.output and "pwned" in out.output  # the message, made harmless


def test_a_huge_error_body_is_cut_not_read_whole():
    # openai reads an error answer's whole body for its message; the transport stops at 64 KiB
    from scigame.llm.client import MAX_ERROR_BODY_BYTES
    with FakeOpenAI([Reply(hostile="huge_error")]) as server:
        with pytest.raises(EndpointFault, match="rejected the request") as caught:
            _complete(server, timeout=30.0)
        sent = server.error_bytes_sent
    assert len(str(caught.value)) < MAX_ERROR_BODY_BYTES + 1000
    assert sent is not None and sent < HUGE_BYTES // 2  # the client hung up long before the end
