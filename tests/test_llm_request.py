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
