"""The fake OpenAI server, exercised through the real `openai` client.

No monkeypatching: every test talks HTTP to a server on 127.0.0.1, so what
the client raises here is what an LLM player will see in a dry run.
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import openai
import pytest

from scigame.testing.fake_openai import FakeOpenAI, Reply, ScriptError, echo_responder, load_script
from scigame.testing.fake_openai_cli import serve as main  # the command line (fake_openai_cli imports fake_openai)
from scigame.testing.oddities import odd_content

KEY = "test-key"
MESSAGES = [{"role": "system", "content": "You are a scientist."},
            {"role": "user", "content": "Propose an experiment."}]


@pytest.fixture
def server():
    """An empty scripted server, always stopped."""
    fake = FakeOpenAI(api_key=KEY).start()
    yield fake
    fake.stop()


def client_for(fake: FakeOpenAI, **options) -> openai.OpenAI:
    options = {"api_key": KEY, "max_retries": 0, "timeout": 2.0} | options
    return openai.OpenAI(base_url=fake.base_url, **options)


def ask(client: openai.OpenAI, model: str = "gpt-fake", **options):
    return client.chat.completions.create(model=model, messages=MESSAGES, **options)


# -- answers --------------------------------------------------------------
def test_scripted_reply_round_trips_with_usage_details(server):
    server.add(Reply(content='{"action": "propose"}', prompt_tokens=321, completion_tokens=45,
                     cached_tokens=256, reasoning_tokens=12))
    with client_for(server) as client:
        response = ask(client, model="gpt-test-1")
    assert response.object == "chat.completion"
    assert response.id.startswith("chatcmpl-")
    assert response.model == "gpt-test-1"
    choice = response.choices[0]
    assert (choice.index, choice.finish_reason) == (0, "stop")
    assert choice.message.role == "assistant"
    assert json.loads(choice.message.content) == {"action": "propose"}
    usage = response.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (321, 45, 366)
    assert usage.prompt_tokens_details.cached_tokens == 256
    assert usage.completion_tokens_details.reasoning_tokens == 12


def test_replies_play_in_order_and_add_extends_the_script():
    with FakeOpenAI([Reply(content="first")]) as fake, client_for(fake) as client:
        fake.add(Reply(content="second"), Reply(content="third"))
        assert fake.remaining == 3
        answers = [ask(client).choices[0].message.content for _ in range(3)]
        assert answers == ["first", "second", "third"]
        assert fake.remaining == 0


def test_requests_log_records_messages_response_format_and_headers(server):
    schema = {"type": "json_schema", "json_schema": {
        "name": "action", "strict": True,
        "schema": {"type": "object", "properties": {"kind": {"type": "string"}},
                   "required": ["kind"], "additionalProperties": False}}}
    server.add(Reply(content='{"kind": "submit"}'))
    with client_for(server) as client:
        ask(client, response_format=schema, temperature=0.0)
    [logged] = server.requests
    assert logged["method"] == "POST"
    assert logged["path"] == "/v1/chat/completions"
    assert logged["model"] == "gpt-fake"
    assert logged["messages"] == MESSAGES
    assert logged["response_format"] == schema
    assert logged["temperature"] == 0.0
    assert logged["headers"]["authorization"] == f"Bearer {KEY}"
    assert logged["headers"]["x-stainless-retry-count"] == "0"


def test_responder_function_sees_the_request():
    seen = []

    def responder(request: dict) -> Reply:
        seen.append(request)
        return Reply(content=f"{len(request['messages'])} messages for {request['model']}")

    with FakeOpenAI(responder) as fake, client_for(fake) as client:
        assert ask(client, model="judge-1").choices[0].message.content == "2 messages for judge-1"
        with pytest.raises(TypeError, match="scripted server"):
            fake.add(Reply(content="x"))
    assert seen[0]["messages"] == MESSAGES
    assert "headers" not in seen[0]  # the responder gets the body only


def test_echo_responder_answers_with_a_note():
    with FakeOpenAI(echo_responder, api_key=None) as fake, client_for(fake) as client:
        content = ask(client).choices[0].message.content
    assert json.loads(content) == {"note": "fake-openai: no script"}


def test_models_lists_models_seen_or_a_default(server):
    with client_for(server) as client:
        assert [m.id for m in client.models.list()] == ["fake-model"]
        server.add(Reply(content="a"), Reply(content="b"))
        ask(client, model="zeta")
        ask(client, model="alpha")
        assert [m.id for m in client.models.list()] == ["alpha", "zeta"]
    assert [r["path"] for r in server.requests] == [
        "/v1/models", "/v1/chat/completions", "/v1/chat/completions", "/v1/models"]


# -- faults, as the client sees them ---------------------------------------
@pytest.mark.parametrize(("fault", "exception", "status"), [
    ("429", openai.RateLimitError, 429),
    ("500", openai.InternalServerError, 500),
    ("503", openai.InternalServerError, 503),
    ("401", openai.AuthenticationError, 401),
])
def test_http_faults_raise_the_matching_openai_error(server, fault, exception, status):
    server.add(Reply(content="unused", fault=fault))
    with client_for(server) as client, pytest.raises(exception) as caught:
        ask(client)
    assert caught.value.status_code == status
    assert isinstance(caught.value.body, dict) and caught.value.body["message"]
    assert len(server.requests) == 1  # a faulted request is still logged


def test_rate_limit_carries_retry_after_and_code(server):
    server.add(Reply(fault="429", retry_after=7))
    with client_for(server) as client, pytest.raises(openai.RateLimitError) as caught:
        ask(client)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.code == "rate_limit_exceeded"


def test_scripted_401_has_the_invalid_api_key_code(server):
    server.add(Reply(fault="401"))
    with client_for(server) as client, pytest.raises(openai.AuthenticationError) as caught:
        ask(client)
    assert caught.value.code == "invalid_api_key"


def test_hang_times_out_the_client_and_does_not_block_the_server(server):
    server.add(Reply(content="too late", fault="hang", hang_seconds=3.0))
    with client_for(server, timeout=0.5) as client, pytest.raises(openai.APITimeoutError):
        ask(client)
    # the hung handler is still asleep; the server answers others meanwhile
    server.add(Reply(content="prompt"))
    started = time.monotonic()
    with client_for(server) as client:
        assert ask(client).choices[0].message.content == "prompt"
    assert time.monotonic() - started < 1.0


def test_stop_does_not_wait_for_a_hung_answer():
    fake = FakeOpenAI([Reply(content="late", fault="hang", hang_seconds=30.0)]).start()
    outcome: queue.Queue = queue.Queue()

    def call():
        try:
            with client_for(fake, timeout=10.0) as client:
                outcome.put(ask(client))
        except Exception as exc:  # noqa: BLE001 - handed to the test thread
            outcome.put(exc)

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    deadline = time.monotonic() + 3.0
    while not fake.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake.requests, "the hanging request never arrived"
    started = time.monotonic()
    fake.stop()
    assert time.monotonic() - started < 1.0
    result = outcome.get(timeout=3.0)
    assert isinstance(result, openai.APIConnectionError)  # the connection was cut, no answer


def test_disconnect_is_a_connection_error_not_a_timeout(server):
    server.add(Reply(content="unused", fault="disconnect"))
    with client_for(server) as client, pytest.raises(openai.APIConnectionError) as caught:
        ask(client)
    assert not isinstance(caught.value, openai.APITimeoutError)
    assert len(server.requests) == 1


def test_invalid_json_body_raises_json_decode_error(server):
    # The openai client does not wrap this one: a 200 whose JSON body cannot
    # be parsed comes out as json.JSONDecodeError (a ValueError), which is
    # not an openai.APIError. Players must catch it separately.
    server.add(Reply(content="unused", fault="invalid_json"))
    with client_for(server) as client, pytest.raises(json.JSONDecodeError) as caught:
        ask(client)
    assert not isinstance(caught.value, openai.APIError)


def test_truncated_answer_has_finish_reason_length_and_half_the_content(server):
    server.add(Reply(content='{"kind": "submit"}', fault="truncated"))  # 18 characters
    with client_for(server) as client:
        choice = ask(client).choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.content == '{"kind": '


def test_finish_reason_length_without_fault_keeps_the_content(server):
    server.add(Reply(content="abc", finish_reason="length"))
    with client_for(server) as client:
        choice = ask(client).choices[0]
    assert (choice.finish_reason, choice.message.content) == ("length", "abc")


def test_script_ran_out_is_a_500_that_says_so(server):
    server.add(Reply(content="only one"))
    with client_for(server) as client:
        ask(client)
        with pytest.raises(openai.InternalServerError, match="script ran out"):
            ask(client)
    assert len(server.requests) == 2


def test_broken_responder_is_a_500_naming_the_exception():
    def responder(request: dict) -> Reply:
        raise KeyError("no such card")

    with FakeOpenAI(responder) as fake, client_for(fake) as client:
        with pytest.raises(openai.InternalServerError, match="responder raised KeyError"):
            ask(client)


# -- retries, keys, concurrency --------------------------------------------
def test_client_retries_a_429_then_succeeds():
    script = [Reply(fault="429", retry_after=0.05), Reply(content="after the wait")]
    with FakeOpenAI(script) as fake, client_for(fake, max_retries=2) as client:
        assert ask(client).choices[0].message.content == "after the wait"
    assert len(fake.requests) == 2
    assert [r["headers"]["x-stainless-retry-count"] for r in fake.requests] == ["0", "1"]


def test_wrong_api_key_is_rejected_without_consuming_the_script(server):
    server.add(Reply(content="for the right key"))
    with client_for(server, api_key="wrong-key") as client, pytest.raises(openai.AuthenticationError) as caught:
        ask(client)
    assert caught.value.code == "invalid_api_key"
    assert server.remaining == 1
    with client_for(server) as client:
        assert ask(client).choices[0].message.content == "for the right key"


def test_missing_authorization_header_is_a_401(server):
    request = urllib.request.Request(f"{server.base_url}/models")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=2)
    assert caught.value.code == 401
    assert json.loads(caught.value.read())["error"]["code"] == "invalid_api_key"


def test_no_api_key_accepts_any_key():
    with FakeOpenAI([Reply(content="ok")], api_key=None) as fake, client_for(fake, api_key="anything") as client:
        assert ask(client).choices[0].message.content == "ok"


def test_eight_concurrent_async_calls_are_all_answered():
    # Every responder call waits until all eight are in flight at once, so
    # this passes only if the server handles requests in parallel.
    barrier = threading.Barrier(8, timeout=3.0)

    def responder(request: dict) -> Reply:
        barrier.wait()
        return Reply(content=request["messages"][-1]["content"])

    async def run(base_url: str) -> list[str]:
        async with openai.AsyncOpenAI(base_url=base_url, api_key=KEY, max_retries=0, timeout=4.0) as client:
            calls = [client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{i}"}])
                     for i in range(8)]
            return [r.choices[0].message.content for r in await asyncio.gather(*calls)]

    with FakeOpenAI(responder) as fake:
        assert asyncio.run(run(fake.base_url)) == [f"q{i}" for i in range(8)]
        assert len(fake.requests) == 8


def test_async_client_sees_the_same_faults():
    async def run(base_url: str):
        async with openai.AsyncOpenAI(base_url=base_url, api_key=KEY, max_retries=0, timeout=0.5) as client:
            with pytest.raises(openai.RateLimitError):
                await client.chat.completions.create(model="m", messages=MESSAGES)
            with pytest.raises(openai.APITimeoutError):
                await client.chat.completions.create(model="m", messages=MESSAGES)

    with FakeOpenAI([Reply(fault="429"), Reply(fault="hang", hang_seconds=2.0)]) as fake:
        asyncio.run(run(fake.base_url))


# -- edges of the HTTP surface ---------------------------------------------
def test_streaming_is_refused_with_a_400(server):
    server.add(Reply(content="x"))
    with client_for(server) as client, pytest.raises(openai.BadRequestError, match="streaming"):
        ask(client, stream=True)
    assert server.remaining == 1


def test_unknown_endpoint_is_a_404(server):
    with client_for(server) as client, pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="e", input="hello")


def test_stopped_server_refuses_connections():
    fake = FakeOpenAI([Reply(content="x")]).start()
    client = client_for(fake)
    fake.stop()
    fake.stop()  # idempotent
    with client, pytest.raises(openai.APIConnectionError):
        ask(client)


def test_only_loopback_hosts_are_allowed():
    with pytest.raises(ValueError, match="loopback"):
        FakeOpenAI(host="0.0.0.0")


def test_reply_rejects_unknown_faults_and_bad_counts():
    with pytest.raises(ValueError, match="unknown fault"):
        Reply(fault="teapot")
    with pytest.raises(ValueError, match="prompt_tokens"):
        Reply(prompt_tokens=-1)


# -- scripts and the command line ------------------------------------------
def test_load_script_reads_replies_strings_and_object_content(tmp_path):
    path = tmp_path / "replies.json"
    path.write_text(json.dumps([
        "plain text",
        {"content": {"kind": "submit"}, "cached_tokens": 5},
        {"fault": "429", "retry_after": 1.5},
    ]))
    replies = load_script(path)
    assert replies[0] == Reply(content="plain text")
    assert json.loads(replies[1].content) == {"kind": "submit"} and replies[1].cached_tokens == 5
    assert (replies[2].fault, replies[2].retry_after) == ("429", 1.5)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not JSON"),
    ('{"content": "x"}', "JSON list"),
    ('[{"contents": "x"}]', "reply #0: unknown reply field"),
    ('[{"fault": "teapot"}]', "reply #0: unknown fault"),
])
def test_load_script_explains_bad_scripts(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ScriptError, match=message):
        load_script(path)


def test_cli_refuses_non_loopback_hosts(capsys):
    assert main(["--host", "0.0.0.0", "--port", "0"]) == 2
    assert "only loopback" in capsys.readouterr().err


def test_cli_reports_a_bad_script(tmp_path, capsys):
    assert main(["--port", "0", "--script", str(tmp_path / "missing.json")]) == 2
    assert "cannot read script" in capsys.readouterr().err


def test_cli_serves_a_script_until_terminated(tmp_path):
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"content": {"kind": "submit"}, "prompt_tokens": 11}]))
    process = subprocess.Popen(
        [sys.executable, "-m", "scigame.testing.fake_openai", "--port", "0", "--api-key", "cli-key",
         "--script", str(script)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()
        base_url = lines.get(timeout=4.0).strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        with openai.OpenAI(base_url=base_url, api_key="cli-key", max_retries=0, timeout=2.0) as client:
            response = ask(client)
        assert json.loads(response.choices[0].message.content) == {"kind": "submit"}
        assert response.usage.prompt_tokens == 11
    finally:
        process.terminate()
        try:
            _, err = process.communicate(timeout=3.0)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0
    assert "stopped after 1 request(s)" in err


def test_a_burst_of_32_connections_is_accepted():
    """The listen backlog must hold a burst of clients (the default of 5 refused them)."""
    import asyncio
    import time as _time

    import openai

    from scigame.testing.fake_openai import FakeOpenAI, Reply

    def slow(_request):
        _time.sleep(0.1)
        return Reply(content="ok")

    async def burst(url):
        client = openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0, timeout=30)
        try:
            replies = await asyncio.gather(*(client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": str(i)}]) for i in range(32)))
        finally:
            await client.close()
        return replies

    with FakeOpenAI(slow, api_key=None) as server:
        replies = asyncio.run(burst(server.base_url))
        assert len(server.requests) == 32
    assert all(r.choices[0].message.content == "ok" for r in replies)


# -- behaviours of servers that are not OpenAI's (issue 10) -------------------------

ACTION = {"hypotheses": [{"statement": "s", "confidence": 1.0}], "experiment": None, "notes": "",
          "submission": {"selected": 0, "predictor": {"F": {"var": "m1"}}, "explanation": "e",
                         "applicability": "a"}}


def test_tool_call_and_missing_usage(server):
    server.add(Reply(content='{"a": 1}', tool_call=True), Reply(content="hi", usage=False))
    client = client_for(server)
    first = ask(client)
    assert first.choices[0].message.content is None
    assert first.choices[0].message.tool_calls[0].function.arguments == '{"a": 1}'
    second = ask(client)
    assert second.usage is None and second.choices[0].message.content == "hi"
    assert server.delivered == [(100, 0, 50)]  # only the answer that reported usage


@pytest.mark.parametrize("how, status, words", [("schema", 400, "json_schema is not supported"),
                                                ("plain", 400, "Error code: 400"),
                                                ("422", 422, "Error code: 422")])
def test_refuse_schema_answers_like_older_servers(how, status, words):
    with FakeOpenAI([Reply(content="ok")], api_key=KEY, refuse_schema=how) as fake:
        client = client_for(fake)
        schema = {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}}
        with pytest.raises(openai.APIStatusError) as caught:
            ask(client, response_format=schema)
        assert caught.value.status_code == status and words in str(caught.value)
        assert fake.remaining == 1  # the refusal consumed no reply
        assert ask(client).choices[0].message.content == "ok"  # without a schema it answers


def test_oddities_are_put_into_the_action_as_literals():
    import math
    text = json.dumps(ACTION)
    for oddity, check in [("nan", math.isnan), ("infinity", math.isinf), ("1e400", math.isinf),
                          ("bigint", lambda v: v == 10 ** 399)]:
        odd = json.loads(odd_content(text, oddity))  # Python's reader accepts all of these
        assert check(odd["submission"]["predictor"]["F"]["args"][0]), oddity
    deep = json.loads(odd_content(text, "deep"))["submission"]["predictor"]["F"]
    depth = 0
    while isinstance(deep, dict) and "args" in deep:
        deep, depth = deep["args"][0], depth + 1
    assert depth == 200
    with pytest.raises(RecursionError):
        json.loads(odd_content(text, "brackets"))


def test_a_trickled_body_arrives_slowly_but_whole(server):
    server.add(Reply(content="slow", fault="trickle", trickle_bytes=64, trickle_interval=0.05))
    started = time.monotonic()
    reply = ask(client_for(server, timeout=10.0))
    assert reply.choices[0].message.content == "slow" and time.monotonic() - started > 0.2
