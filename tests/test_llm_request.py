"""The chat client's request, sent from a template built once per client
(scigame.llm.client._request_template): what reaches the endpoint is what
openai's own `chat.completions.create` sends, header for header and byte
for byte, and its failures are openai's own exception types."""

from __future__ import annotations

import asyncio

import openai
import pytest

from scigame.llm.client import ChatClient, EndpointFault, LLMConfig, _TEMPLATES
from scigame.testing.fake_openai import FakeOpenAI, Reply

KEY_ENV = "SCIGAME_TEST_KEY"
MESSAGES = [{"role": "system", "content": "You are a careful scientist. ü"},
            {"role": "user", "content": "Measure F at r = 2 m."}]
SCHEMA = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")


def test_the_template_sends_what_openai_sends():
    with FakeOpenAI(lambda request: Reply(content='{"x": 1}'), api_key="test-key") as server:
        async def both():
            chat = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                        temperature=0.5, max_retries=0))
            ours = await chat.complete(MESSAGES, schema=SCHEMA)
            assert _TEMPLATES.get(chat._client) is not None  # the template path, not client.post
            theirs = await chat._client.chat.completions.create(
                model="fake-model", messages=MESSAGES, temperature=0.5, response_format={
                    "type": "json_schema", "json_schema": {"name": "action", "schema": SCHEMA, "strict": False}})
            await chat.close()
            return ours, theirs
        ours, theirs = asyncio.run(both())
        assert ours.text == theirs.choices[0].message.content == '{"x": 1}'
        first, second = server.requests
    assert first["headers"] == second["headers"] and "authorization" in first["headers"]
    assert {k: v for k, v in first.items() if k != "headers"} == {k: v for k, v in second.items() if k != "headers"}


@pytest.mark.parametrize(("fault", "raised"), [("401", openai.AuthenticationError),
                                               ("429", openai.RateLimitError),
                                               ("500", openai.InternalServerError),
                                               ("disconnect", openai.APIConnectionError)])
def test_failures_are_openais_own_exceptions(fault, raised):
    from scigame.llm.client import _post

    with FakeOpenAI(lambda request: Reply(fault=fault), api_key="test-key") as server:
        async def one():
            chat = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                        max_retries=0))
            try:
                with pytest.raises(raised) as caught:
                    await _post(chat._ensure(), {"model": "fake-model", "messages": MESSAGES})
            finally:
                await chat.close()
            return caught.value
        exc = asyncio.run(one())
    if isinstance(exc, openai.APIStatusError):
        assert exc.status_code == int(fault)


def test_the_state_written_per_turn_is_the_whole_document_dumped_anew():
    """StateWriter (each turn's JSON written once) gives, at every turn of an
    episode, exactly json.dumps(state_document(state)): turns with actions,
    oracle observations and rejections, malformed replies, protocol breaks,
    a tool call with a long output, text with `<`, non-ASCII and escapes."""
    import json

    from scigame.llm.player import StateWriter, parse_action, state_document
    from scigame.llm.prompts import state_message, state_text
    from scigame.players.base import EpisodeState
    from scigame.records import Observation, OracleResponse, ToolCall, Turn, Usage

    task = {"inputs": [{"name": "r", "unit": "m"}], "rules": "a < b; ü \"quoted\"\n", "budget": 3}
    state = EpisodeState(task=task, setting="discovery", protocol="adaptive", threshold=0.9, observations=[],
                         turns=[], must_submit=False, steps_left=3, seed=1)
    experiment = json.dumps({"hypotheses": [{"statement": "F ~ 1/r^2 <close>", "confidence": 0.5}],
                             "experiment": {"inputs": {"r": 2.5}, "outputs": ["F"], "predictions": [{"F": 1e-9}]},
                             "submission": None, "notes": "é\u2028"})
    action, problem = parse_action(experiment)
    assert action is not None, problem
    seen = Observation(inputs={"r": 2.5}, outputs={"F": 1.25e-10})
    turns = [Turn(index=0, action=action, response=OracleResponse(observation=seen), usage=Usage(calls=1)),
             Turn(index=1, malformed="no experiment </scigame-state>", reply="{}"),
             Turn(index=1, action=action, response=OracleResponse(rejected=["r = 30 is outside 0.5 .. 20 [m]"]),
                  breaks=["submitted below the threshold"]),
             Turn(index=2, tool=ToolCall(name="run_python", code="print('<' * 5000)", output="<" * 5000,
                                         error="")),
             Turn(index=2, action=action)]
    writer = StateWriter()
    for step, turn in enumerate([None, *turns]):
        if turn is not None:
            state.turns.append(turn)
            if turn.response is not None and turn.response.observation is not None:
                state.observations.append(turn.response.observation)
        state.steps_left = 3 - step if step < 3 else 0
        state.must_submit = state.steps_left == 0
        doc = state_document(state)
        assert writer(state) == json.dumps(doc)
        assert state_text(writer(state), state.must_submit) == state_message(doc)
    state.task = dict(task, budget=4)  # another task: written anew
    assert writer(state) == json.dumps(state_document(state))


def test_the_request_bytes_are_openais_with_the_schema_written_once():
    """ChatClient._content is openai's openapi_dumps of the whole body, byte
    for byte (non-ASCII, tools, options), and writes each schema's part once."""
    from openai._utils._json import openapi_dumps

    chat = ChatClient(LLMConfig(model="fake-model", api_key_env=KEY_ENV, temperature=0.25, max_tokens=99))
    tools = [{"type": "function", "function": {"name": "run_python", "parameters": {"type": "object"}}}]
    for extra in ({}, {"tools": tools}):
        kwargs = {**chat._base_kwargs(MESSAGES), **extra}
        body = {**kwargs, "response_format": {"type": "json_schema", "json_schema": {
            "name": "action", "schema": SCHEMA, "strict": False}}}
        assert chat._content(kwargs, body["response_format"], SCHEMA, "action") == openapi_dumps(body)
    assert len(chat._formats) == 1
    other = {**SCHEMA, "required": []}
    body["response_format"]["json_schema"]["schema"] = other
    assert chat._content(kwargs, body["response_format"], other, "action") == openapi_dumps(body)
    assert len(chat._formats) == 2


def _completion_body(content: str, prompt_tokens: int) -> bytes:
    import json

    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "fake-model",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1,
                                 "total_tokens": prompt_tokens + 1}}).encode()


def _complete_against(answers: list[bytes], retries: int = 0):
    """One ChatClient.complete against a server that answers its requests
    with `answers` (whole HTTP responses, or cut short), in order, one per
    connection, which it then closes; returns the completion and the
    requests' (path, JSON body)."""
    import json

    seen = []

    async def handle(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length:"))
        seen.append((lines[0].split()[1], json.loads(await reader.readexactly(length))))
        writer.write(answers.pop(0))
        await writer.drain()
        writer.close()

    async def go():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        chat = ChatClient(LLMConfig(model="fake-model", base_url=f"http://127.0.0.1:{port}/v1",
                                    api_key_env=KEY_ENV, max_retries=retries, backoff_base=0.01))
        try:
            answer = await chat.complete(MESSAGES)
            assert _TEMPLATES.get(chat._client) is not None  # the template path
            return answer
        finally:
            await chat.close()
            server.close()

    return asyncio.run(go()), seen


def test_a_redirect_is_followed_as_openais_client_follows_it():
    """The template's requests go straight to the transport; the request a
    redirect (307) asks for goes through openai's own send, with the same
    body, as every call did before."""
    body = _completion_body('{"x": 2}', 3)
    answer, seen = _complete_against([
        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /v1/elsewhere/chat/completions\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)])
    assert answer.text == '{"x": 2}' and answer.usage.input_tokens == 3
    assert [path for path, _ in seen] == ["/v1/chat/completions", "/v1/elsewhere/chat/completions"]
    assert seen[0][1] == seen[1][1] and seen[0][1]["messages"] == MESSAGES


def test_a_content_encoded_answer_is_decoded():
    """An answer read straight from the transport is one not content-encoded;
    a gzip-encoded one (openai asks for gzip) is decoded as before."""
    import gzip

    body = gzip.compress(_completion_body('{"x": 3}', 4))
    answer, _ = _complete_against([b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                                   b"Content-Length: %d\r\n\r\n%s" % (len(body), body)])
    assert answer.text == '{"x": 3}' and answer.usage.input_tokens == 4


def test_an_answer_cut_off_mid_body_is_a_retried_connection_fault():
    """The connection closed before the body's Content-Length came: a
    transport fault like one before the answer (retried, then
    EndpointFault), never the HTTP library's own error out of the client."""
    body = _completion_body('{"x": 4}', 5)
    whole = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    cut = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
        len(body), body[:len(body) // 2])
    answer, seen = _complete_against([cut, whole], retries=1)
    assert answer.text == '{"x": 4}' and answer.usage.retries == 1 and len(seen) == 2
    with pytest.raises(EndpointFault, match="APIConnectionError"):
        _complete_against([cut])
