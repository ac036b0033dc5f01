"""The chat client's own connections (scigame.llm.connections): kept alive
and reused, at most the limits' number open and kept, dropped once idle past
the expiry or when an answer was not read to its end, the pool timeout, and
TLS verified against the certificate store (a self-signed server)."""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import threading
import time

import pytest

from scigame.llm.connections import _http_library, lean_transport
from scigame.testing.fake_openai import FakeOpenAI, Reply

http = _http_library()


class Threads:
    """Answers after `latency` s; keeps the handler threads (one per connection) it ran on."""

    def __init__(self, latency: float = 0.0, content: str = '{"ok": true}'):
        self.latency, self.content, self.threads, self.lock = latency, content, [], threading.Lock()
        self.live = self.peak = 0

    def __call__(self, request):
        me = threading.current_thread()
        with self.lock:
            if not any(t is me for t in self.threads):
                self.threads.append(me)
            self.live += 1
            self.peak = max(self.peak, self.live)
        try:
            time.sleep(self.latency)
            return Reply(content=self.content)
        finally:
            with self.lock:
                self.live -= 1


def _client(max_connections=10, keep=10, expiry=5.0, pool=None):
    limits = http.Limits(max_connections=max_connections, max_keepalive_connections=keep, keepalive_expiry=expiry)
    timeout = http.Timeout(10.0, pool=pool)
    return http.AsyncClient(transport=lean_transport()(limits), timeout=timeout)


def _post(client, url):
    return client.post(f"{url}/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}]})


def test_a_connection_is_kept_and_reused_unless_its_answer_was_left_unread():
    answers = Threads(content="x" * 50_000)
    with FakeOpenAI(answers, api_key=None) as server:
        async def go():
            async with _client() as client:
                for _ in range(3):  # read to the end: the same connection each time
                    response = await _post(client, server.base_url)
                    assert response.status_code == 200
                    assert json.loads(response.content)["choices"][0]["message"]["content"] == "x" * 50_000
                request = client.build_request("POST", f"{server.base_url}/chat/completions",
                                               json={"model": "m", "messages": []})
                response = await client.send(request, stream=True)
                await response.aclose()  # not read: this connection cannot carry another request
                await _post(client, server.base_url)
        asyncio.run(go())
    assert len(answers.threads) == 2


def test_plain_http_never_loads_the_certificate_store(monkeypatch):
    """The store is loaded for the first TLS connection (the TLS test below), not for a client
    that only speaks plain HTTP (a local endpoint): loading it was most of a run's fixed CPU."""
    def refuse():
        raise AssertionError("the certificate store was loaded for plain HTTP")

    monkeypatch.setattr(http, "create_ssl_context", refuse)
    with FakeOpenAI(Threads(), api_key=None) as server:
        async def go():
            async with _client() as client:
                return [(await _post(client, server.base_url)).status_code for _ in range(2)]
        assert asyncio.run(go()) == [200, 200]


def test_connections_stay_within_the_limits_and_expire_when_idle():
    answers = Threads(latency=0.1)
    with FakeOpenAI(answers, api_key=None) as server:
        async def go():
            async with _client(max_connections=3, keep=2, expiry=0.3) as client:
                replies = await asyncio.gather(*[_post(client, server.base_url) for _ in range(9)])
                assert [r.status_code for r in replies] == [200] * 9
                assert len(answers.threads) == 3 and answers.peak == 3  # three waves over three connections
                await asyncio.gather(*[_post(client, server.base_url) for _ in range(3)])
                assert len(answers.threads) == 4  # two were kept alive, a third one opened
                await asyncio.sleep(0.6)
                await _post(client, server.base_url)
                assert len(answers.threads) == 5  # the kept ones had expired
        asyncio.run(go())


def test_a_waiting_request_takes_a_released_connection_whatever_may_be_kept_idle():
    """The keep-alive limit is for connections nobody waits for: with none
    kept idle, nine requests over three connections still reuse those three."""
    answers = Threads(latency=0.05)
    with FakeOpenAI(answers, api_key=None) as server:
        async def go():
            async with _client(max_connections=3, keep=0) as client:
                replies = await asyncio.gather(*[_post(client, server.base_url) for _ in range(9)])
                assert [r.status_code for r in replies] == [200] * 9
        asyncio.run(go())
    assert len(answers.threads) == 3 and answers.peak == 3


def test_a_client_used_again_under_another_event_loop_opens_a_new_connection():
    answers = Threads()
    with FakeOpenAI(answers, api_key=None) as server:
        client = _client()

        async def one():
            return (await _post(client, server.base_url)).status_code

        assert asyncio.run(one()) == 200
        assert asyncio.run(one()) == 200  # the kept connection belongs to the first loop
        asyncio.run(client.aclose())
    assert len(answers.threads) == 2


def test_a_request_that_waits_too_long_for_a_connection_is_a_pool_timeout():
    answers = Threads(latency=1.0)
    with FakeOpenAI(answers, api_key=None) as server:
        async def go():
            async with _client(max_connections=1, pool=0.2) as client:
                first = asyncio.create_task(_post(client, server.base_url))
                await asyncio.sleep(0.05)
                with pytest.raises(http.PoolTimeout):
                    await _post(client, server.base_url)
                assert (await first).status_code == 200
        asyncio.run(go())


def test_a_refused_connection_is_a_connect_error():
    async def go():
        async with _client() as client:
            with pytest.raises(http.ConnectError):
                await _post(client, "http://127.0.0.1:9")  # discard: nothing listens there
    asyncio.run(go())


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_is_verified_against_the_certificate_store(tmp_path, monkeypatch):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    served = []

    async def handle(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        served.append(json.loads(await reader.readexactly(length)))
        body = b'{"ok": true}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(body), body))
        await writer.drain()
        writer.close()

    async def go(trusted: bool):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
        port = server.sockets[0].getsockname()[1]
        try:
            if trusted:
                monkeypatch.setenv("SSL_CERT_FILE", str(cert))
            else:
                monkeypatch.delenv("SSL_CERT_FILE", raising=False)
            async with _client(keep=0) as client:  # kept none: two connections, one store
                for n in (1, 2):
                    response = await client.post(f"https://localhost:{port}/v1/chat/completions", json={"n": n})
                return response.status_code, json.loads(response.content)
        finally:
            server.close()

    loaded = []
    create = http.create_ssl_context
    monkeypatch.setattr(http, "create_ssl_context", lambda *a, **k: loaded.append(1) or create(*a, **k))
    assert asyncio.run(go(trusted=True)) == (200, {"ok": True})
    assert served == [{"n": 1}, {"n": 2}]
    assert loaded == [1]
    with pytest.raises(http.ConnectError):  # a certificate nobody vouches for
        asyncio.run(go(trusted=False))


def test_a_request_head_is_validated_as_h11_validates_it_each_field_once():
    """_request_event gives the event h11's full validation gives, the first
    time and from its record of validated fields after; a field never
    validated (a value with a line break) is refused as h11 refuses it."""
    import h11

    from scigame.llm import connections

    connections._VALID_FIELDS.clear()

    def event_of(headers):
        request = http.Request("POST", "http://127.0.0.1:9/v1/chat/completions?x=1", headers=headers,
                               content=b'{"a": 1}')
        return connections._request_event(h11, request), h11.Request(
            method=request.method, target=request.url.raw_path, headers=request.headers.raw)

    for length in (1, 2):  # validated in full, then from the record
        ours, full = event_of({"Authorization": "Bearer k", "X-Stainless-Lang": "python"})
        assert (ours.method, ours.target, list(ours.headers), ours.headers.raw_items()) == (
            full.method, full.target, list(full.headers), full.headers.raw_items())
        assert len(connections._VALID_FIELDS) == 3  # Host, Authorization, X-Stainless-Lang (not the length)
    with pytest.raises(h11.LocalProtocolError):
        event_of({"Authorization": "Bearer k\r\nX-Injected: 1"})
