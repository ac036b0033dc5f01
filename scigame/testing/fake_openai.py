"""A fake OpenAI chat-completions server on the loopback interface.

`FakeOpenAI` is a real HTTP server (standard library only) that plays
scripted answers, so LLM players and judges can be tested through the real
`openai` client, and a campaign can be dry-run by hand without spending
money:

    with FakeOpenAI([Reply(content='{"action": "submit"}')]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        client.chat.completions.create(model="m", messages=[...])
        server.requests[0]["messages"]   # what the player sent

Each `Reply` is one scripted answer, or one scripted failure (`fault`):
a rate limit, a server error, a rejected key, an answer that never comes,
a body that is not JSON, a truncated answer, a dropped connection, a body
trickled a few bytes at a time, or a 422 with FastAPI-style `detail`. A
reply may also come as a tool call instead of content (`tool_call`), leave
out `usage` (`usage=False`), or have an `oddity` put into its JSON action
(NaN, Infinity, 1e400, a 400-digit integer, nesting 200 levels deep, or
5,000 nested brackets). `hostile` makes the server misbehave on purpose
(a Retry-After of 1e9, a 24 MiB body, a body nested 100,000 deep, token
counts of 1e400, a lone surrogate, terminal escapes; see `hostile.py`). `FakeOpenAI(refuse_schema=...)` makes the server
refuse every request that asks for `json_schema` structured outputs, the
way older servers do (a schema-specific 400, a plain "Bad Request" 400, or
a 422), without consuming a reply.

Endpoints: `POST /v1/chat/completions` and `GET /v1/models`. Streaming is
not supported (a request with `"stream": true` gets a 400).

From a shell (serves until Ctrl-C and prints the base URL on stdout):

    python -m scigame.testing.fake_openai [--host 127.0.0.1] [--port 8765]
        [--api-key KEY] [--script replies.json] [--refuse-schema schema|plain|422]

Only loopback addresses are served: this workplace allows loopback traffic
and nothing else.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from . import hostile as _hostile
from .hostile import HOSTILE
from .oddities import ODDITIES, odd_content

__all__ = ["FAULTS", "HOSTILE", "FakeOpenAI", "LOOPBACK_HOSTS", "ODDITIES", "REFUSALS", "Reply", "Responder",
           "ScriptError", "echo_responder", "load_script", "main", "odd_content"]

FAULTS = ("429", "500", "503", "401", "422", "hang", "invalid_json", "truncated", "disconnect", "trickle")
REFUSALS = ("schema", "plain", "422")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
DEFAULT_MODEL = "fake-model"

EXIT_OK = 0
EXIT_USAGE = 2

# Request headers worth keeping in the log: who called, with which key, and
# which retry of the client this is.
_LOGGED_HEADERS = ("authorization", "content-type", "user-agent", "idempotency-key",
                   "x-stainless-retry-count", "x-stainless-timeout",
                   "openai-organization", "openai-project")


@dataclass
class Reply:
    """One scripted answer of the fake server.

    `content` is the assistant's message text (for a player, usually a JSON
    action). `fault`, when set, replaces the normal answer:

    - "429": HTTP 429 rate-limit error, with `Retry-After: retry_after` if given;
    - "500", "503": that HTTP status with an OpenAI-style error body;
    - "401": HTTP 401 with error code "invalid_api_key";
    - "hang": sleep `hang_seconds`, then answer normally (the client should
      have given up by then);
    - "invalid_json": HTTP 200 whose body is not JSON;
    - "truncated": HTTP 200 with `finish_reason` "length" and the first half
      of `content`;
    - "disconnect": close the connection without sending a response;
    - "trickle": HTTP 200 whose body is sent `trickle_bytes` at a time, one
      piece every `trickle_interval` seconds (a per-read timeout never fires);
    - "422": HTTP 422 whose body holds only a FastAPI-style `detail` list.

    `tool_call` sends the content as the arguments of a function tool call
    (content null); `tool_calls` sends these calls instead, each
    {"name": function, "arguments": text} (a model using offered tools); `usage=False` leaves `usage` out of the answer; `oddity`
    rewrites a JSON action in `content` (see `odd_content`).
    """

    content: Optional[str] = None
    prompt_tokens: int = 100
    completion_tokens: int = 50
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    finish_reason: str = "stop"
    fault: Optional[str] = None
    retry_after: Optional[float] = None
    hang_seconds: float = 30.0
    trickle_bytes: int = 16
    trickle_interval: float = 0.25
    tool_call: bool = False
    usage: bool = True
    oddity: Optional[str] = None
    tool_calls: Optional[list] = None
    hostile: Optional[str] = None  # one of HOSTILE: the endpoint misbehaves (scigame/testing/hostile.py)

    def __post_init__(self) -> None:
        if self.hostile is not None and self.hostile not in HOSTILE:
            raise ValueError(f"unknown hostile behaviour {self.hostile!r}; expected one of {', '.join(HOSTILE)}")
        for call in self.tool_calls or []:
            if not (isinstance(call, dict) and isinstance(call.get("name"), str)
                    and isinstance(call.get("arguments"), str)):
                raise ValueError(f'a tool call is {{"name": text, "arguments": text}}, not {call!r}')
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; expected one of {', '.join(FAULTS)}")
        if self.oddity is not None and self.oddity not in ODDITIES:
            raise ValueError(f"unknown oddity {self.oddity!r}; expected one of {', '.join(ODDITIES)}")
        if isinstance(self.trickle_bytes, bool) or not isinstance(self.trickle_bytes, int) or self.trickle_bytes < 1:
            raise ValueError(f"trickle_bytes must be a positive integer, not {self.trickle_bytes!r}")
        if not self.trickle_interval >= 0:
            raise ValueError(f"trickle_interval must be >= 0 seconds, not {self.trickle_interval!r}")
        for name in ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
        if self.retry_after is not None and not self.retry_after >= 0:
            raise ValueError(f"retry_after must be >= 0 seconds, not {self.retry_after!r}")
        if not self.hang_seconds >= 0:
            raise ValueError(f"hang_seconds must be >= 0, not {self.hang_seconds!r}")

    @classmethod
    def from_json(cls, item: Any) -> "Reply":
        """A Reply from one entry of a JSON script.

        A bare string is the content. In an object, a `content` that is not
        a string (say, an action written as a JSON object) is JSON-encoded,
        which keeps hand-written scripts readable.
        """
        if isinstance(item, str):
            return cls(content=item)
        if not isinstance(item, dict):
            raise ValueError(f"a reply must be a string or an object, not {type(item).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(item) - known)
        if unknown:
            raise ValueError(f"unknown reply field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        fields = dict(item)
        if fields.get("content") is not None and not isinstance(fields["content"], str):
            fields["content"] = json.dumps(fields["content"], ensure_ascii=False)
        return cls(**fields)


Responder = Callable[[dict], Reply]

def echo_responder(request: dict) -> Reply:
    """The default answer when no script is given: a fixed JSON note.

    It plays no game; it only shows that the request reached the fake server.
    """
    return Reply(content=json.dumps({"note": "fake-openai: no script"}))


class ScriptError(ValueError):
    """A --script file that cannot be read as a list of replies."""


def load_script(path: Union[str, Path]) -> list[Reply]:
    """The replies of a JSON script file: a list of Reply objects (or strings)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"cannot read script {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ScriptError(f"script {path} is not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    if not isinstance(data, list):
        raise ScriptError(f"script {path} must hold a JSON list of replies, not a {type(data).__name__}")
    replies = []
    for number, item in enumerate(data):
        try:
            replies.append(Reply.from_json(item))
        except (TypeError, ValueError) as exc:
            raise ScriptError(f"script {path}, reply #{number}: {exc}") from exc
    return replies


class _Script:
    """Replies played in order; thread-safe, and extendable while serving."""

    def __init__(self, replies: Sequence[Reply]):
        self._replies = deque(replies)
        self._played = 0
        self._lock = threading.Lock()

    def add(self, replies: Sequence[Reply]) -> None:
        with self._lock:
            self._replies.extend(replies)

    def remaining(self) -> int:
        with self._lock:
            return len(self._replies)

    def __call__(self, request: dict) -> Reply:
        with self._lock:
            if not self._replies:
                raise _ScriptExhausted(
                    f"fake-openai: the script ran out: all {self._played} scripted replies were "
                    "already played; add more with FakeOpenAI.add()")
            self._played += 1
            return self._replies.popleft()


class _ScriptExhausted(Exception):
    pass


def _error_body(message: str, type_: str, code: Optional[str], param: Optional[str] = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class _Server(ThreadingHTTPServer):
    """The threading server, with its open connections tracked so that
    `stop()` can cut them (a keep-alive connection or a hung answer would
    otherwise outlive the server)."""

    daemon_threads = True
    block_on_close = False  # stop() must not wait for handlers that hang on purpose
    allow_reuse_address = True
    request_queue_size = 512  # the listen backlog: the default 5 refuses a burst of 32 clients

    def __init__(self, address, fake: "FakeOpenAI"):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.fake = fake
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request, client_address):
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def cut_connections(self) -> None:
        with self.connections_lock:
            open_sockets = list(self.connections)
        for sock in open_sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):
        # A client that timed out or hung up mid-answer is expected here.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, OSError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real API
    server_version = "fake-openai/1"
    timeout = 120  # an idle keep-alive connection is dropped after this long
    disable_nagle_algorithm = True  # headers and body go out in two writes; Nagle would add ~40 ms
    server: _Server

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        log = self.server.fake.log
        if log is not None:
            log(f"fake-openai: {self.address_string()} {format % args}")

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        fake = self.server.fake
        path = self.path.split("?", 1)[0].rstrip("/")
        body, body_problem = self._read_body()
        record: dict = dict(body) if isinstance(body, dict) else {}
        record.update(method=method, path=path, headers={
            name: self.headers[name] for name in _LOGGED_HEADERS if self.headers.get(name) is not None})
        if body_problem:
            record["body_error"] = body_problem
        fake._record(record)

        if fake.api_key is not None and self.headers.get("authorization") != f"Bearer {fake.api_key}":
            self._send_error(401, _error_body(
                "Incorrect API key provided (fake-openai expects the key it was started with).",
                "invalid_request_error", "invalid_api_key"))
            return
        if method == "GET" and path == "/v1/models":
            self._send_json(200, fake._models_listing())
            return
        if method == "POST" and path == "/v1/chat/completions":
            if body_problem:
                self._send_error(400, _error_body(body_problem, "invalid_request_error", None))
                return
            if body.get("stream"):
                self._send_error(400, _error_body(
                    "fake-openai does not support streaming; send stream=false.",
                    "invalid_request_error", None, "stream"))
                return
            self._chat_completion(body)
            return
        self._send_error(404, _error_body(
            f"fake-openai serves POST /v1/chat/completions and GET /v1/models, not {method} {self.path}",
            "invalid_request_error", "unknown_url"))

    def _read_body(self) -> tuple[Any, Optional[str]]:
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            return None, "the Content-Length header is not a number"
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw:
            return None, "the request has no JSON body" if self.command == "POST" else None
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return None, f"the request body is not JSON: {exc}"
        if not isinstance(body, dict):
            return None, "the request body must be a JSON object"
        return body, None

    def _chat_completion(self, request: dict) -> None:
        fake = self.server.fake
        fmt = request.get("response_format")
        if fake.refuse_schema and isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            self._refuse_schema(fake.refuse_schema)
            return
        try:
            reply = fake.responder(request)
        except _ScriptExhausted as exc:
            self._send_error(500, _error_body(str(exc), "fake_openai_script_exhausted", "script_exhausted"))
            return
        except Exception as exc:  # noqa: BLE001 - a broken responder must show up in the test that uses it
            self._send_error(500, _error_body(
                f"fake-openai: the responder raised {type(exc).__name__}: {exc}", "fake_openai_responder_error",
                "responder_error"))
            return
        if not isinstance(reply, Reply):
            self._send_error(500, _error_body(
                f"fake-openai: the responder returned {type(reply).__name__}, not a Reply",
                "fake_openai_responder_error", "responder_error"))
            return

        if reply.hostile is not None:
            return self._hostile(request, reply)
        fault = reply.fault
        if fault == "429":
            headers = {} if reply.retry_after is None else {"Retry-After": f"{reply.retry_after:g}"}
            self._send_error(429, _error_body(
                "Rate limit reached (scripted by fake-openai).", "requests", "rate_limit_exceeded"), headers)
        elif fault in ("500", "503"):
            self._send_error(int(fault), _error_body(
                f"The server had an error while processing your request (scripted HTTP {fault}).",
                "server_error", None))
        elif fault == "401":
            self._send_error(401, _error_body(
                "Incorrect API key provided (scripted by fake-openai).", "invalid_request_error",
                "invalid_api_key"))
        elif fault == "disconnect":
            # No status line, no headers: the client sees the connection drop.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif fault == "422":
            self._send_json(422, {"detail": [{"loc": ["body", "messages", 0, "content"],
                                              "msg": "scripted validation failure (fake-openai)",
                                              "type": "value_error"}]})
        elif fault == "trickle":
            if self._trickle(json.dumps(fake._completion(request, reply)).encode("utf-8"), reply):
                fake._delivered(reply)
        elif fault == "invalid_json":
            self._send(200, b'{"id": "chatcmpl-fake", "choices": [ <- cut off, not JSON',
                       "application/json")
        else:
            if fault == "hang" and fake._stopping.wait(reply.hang_seconds):
                self.close_connection = True  # the server is stopping: drop the hung answer
                return
            if self._send_json(200, fake._completion(request, reply)):
                fake._delivered(reply)

    def _hostile(self, request: dict, reply: Reply) -> None:
        """Answer with one of the hostile behaviours (see hostile.py)."""
        fake, name = self.server.fake, reply.hostile
        wait = _hostile.retry_after(name)
        if wait is not None:
            self._send_error(429, _error_body("Rate limit reached (hostile).", "requests", "rate_limit_exceeded"),
                             {"Retry-After": wait})
            return
        message = _hostile.error_message(name)
        if message is not None:
            self._send_error(400, _error_body(message, "invalid_request_error", None))
            return
        if name == "huge_error":
            error = _error_body("bad request (hostile, padded)", "invalid_request_error", None)
            fake.error_bytes_sent = self._stream(_hostile.streamed(name, error), _hostile.streamed_length(error),
                                                 status=400)
            return
        completion = fake._completion(request, reply)
        if name.startswith("huge_body"):
            self._stream(_hostile.streamed(name, completion),
                         None if name.endswith("chunked") else _hostile.streamed_length(completion))
            return
        if self._send(200, _hostile.body(name, completion), "application/json") and name in _hostile.ANSWERED:
            with fake._requests_lock:
                fake.completions += 1

    def _stream(self, pieces, length: Optional[int], status: int = 200) -> int:
        """A body sent piece by piece (chunked when `length` is None); the bytes that went out."""
        sent = 0
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if length is None:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(length))
            self.end_headers()
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if length is None else piece)
                self.wfile.flush()
                sent += len(piece)
            if length is None:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the client stopped reading: what it should do
        return sent
        self.close_connection = True

    def _refuse_schema(self, how: str) -> None:
        """How servers without structured outputs answer `json_schema`."""
        if how == "plain":
            self._send(400, b"Bad Request", "text/plain")
        elif how == "422":
            self._send_json(422, {"detail": [{"loc": ["body", "response_format", "type"],
                                              "msg": "Input should be 'text' or 'json_object'",
                                              "type": "literal_error", "input": "json_schema"}]})
        else:
            self._send_error(400, _error_body("response_format json_schema is not supported by this server",
                                              "invalid_request_error", None, "response_format"))

    def _trickle(self, payload: bytes, reply: Reply) -> bool:
        """Send the body slowly; True when all of it went out."""
        fake = self.server.fake
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.flush()
            for i in range(0, len(payload), reply.trickle_bytes):
                if fake._stopping.wait(reply.trickle_interval):
                    self.close_connection = True
                    return False
                self.wfile.write(payload[i:i + reply.trickle_bytes])
                self.wfile.flush()
        except OSError:
            self.close_connection = True
            return False
        return True

    def _send_error(self, status: int, body: dict, headers: Optional[dict] = None) -> None:
        self._send_json(status, body, headers)

    def _send_json(self, status: int, body: dict, headers: Optional[dict] = None) -> bool:
        return self._send(status, json.dumps(body).encode("utf-8"), "application/json", headers)

    def _send(self, status: int, payload: bytes, content_type: str, headers: Optional[dict] = None) -> bool:
        """Send one answer; True when it went out in full."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            # The client gave up (timeout, hang-up): nobody is left to answer.
            self.close_connection = True
            return False
        return True


class FakeOpenAI:
    """A fake OpenAI chat-completions server on 127.0.0.1 (see the module docstring).

    `responder` is either a function from the request JSON to a `Reply`, or
    a sequence of replies played in order; None starts an empty script for
    `add()` to fill. Once a script runs out, each further request gets an
    HTTP 500 saying so. With `api_key` set, a request whose header is not
    `Authorization: Bearer <api_key>` gets a 401 and consumes no reply.

    `requests` logs every request in arrival order, faulted or not: the JSON
    body's fields, plus `method`, `path` and `headers` (a lower-case subset).
    `delivered` lists the usage of every completed answer whose body was
    sent in full (what a provider would bill), as (prompt, cached,
    completion) token counts. `refuse_schema` ("schema", "plain" or "422")
    refuses every request that asks for `json_schema` structured outputs.
    """

    def __init__(self, responder: Union[Responder, Sequence[Reply], None] = None, *,
                 host: str = "127.0.0.1", port: int = 0, api_key: Optional[str] = "test-key",
                 log: Optional[Callable[[str], None]] = None, refuse_schema: Optional[str] = None):
        if refuse_schema is not None and refuse_schema not in REFUSALS:
            raise ValueError(f"refuse_schema must be one of {', '.join(REFUSALS)}, not {refuse_schema!r}")
        self.refuse_schema = refuse_schema
        if host not in LOOPBACK_HOSTS:
            raise ValueError(f"fake-openai serves only loopback addresses ({', '.join(LOOPBACK_HOSTS)}), "
                             f"not {host!r}")
        if responder is None:
            responder = _Script([])
        elif not callable(responder):
            replies = list(responder)
            for reply in replies:
                if not isinstance(reply, Reply):
                    raise TypeError(f"a scripted reply must be a Reply, not {type(reply).__name__}")
            responder = _Script(replies)
        self.responder: Responder = responder
        self.host = host
        self.port = port
        self.api_key = api_key
        self.log = log
        self.requests: list[dict] = []
        self.delivered: list[tuple[int, int, int]] = []
        #: Completions sent in full whose body a client can read (usage or not): each must be archived.
        self.completions = 0
        self.error_bytes_sent: Optional[int] = None  # what a huge_error answer got out before the client hung up
        self._requests_lock = threading.Lock()
        self._models_seen: set[str] = set()
        self._stopping = threading.Event()
        self._server: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    # -- life cycle -----------------------------------------------------
    def start(self) -> "FakeOpenAI":
        """Bind and serve in a background thread; returns self."""
        if self._server is not None:
            raise RuntimeError("fake-openai is already running")
        self._stopping.clear()
        self._server = _Server((self.host, self.port), self)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-openai:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and cut open connections. Does not wait for hung
        answers: their threads are daemons and wake up to find the server gone."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        server.cut_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The URL to give `openai.OpenAI(base_url=...)`, e.g. http://127.0.0.1:PORT/v1."""
        if self._server is None:
            raise RuntimeError("fake-openai is not running: call start() first")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    # -- the script -----------------------------------------------------
    def add(self, *replies: Reply) -> None:
        """Append replies to the scripted sequence (also while serving)."""
        if not isinstance(self.responder, _Script):
            raise TypeError("add() needs a scripted server; this one answers with a responder function")
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"a scripted reply must be a Reply, not {type(reply).__name__}")
        self.responder.add(replies)

    @property
    def remaining(self) -> Optional[int]:
        """Scripted replies not yet played (None for a responder function)."""
        return self.responder.remaining() if isinstance(self.responder, _Script) else None

    # -- used by the handler threads ------------------------------------
    def _record(self, record: dict) -> None:
        with self._requests_lock:
            self.requests.append(record)
            model = record.get("model")
            if record.get("path") == "/v1/chat/completions" and isinstance(model, str):
                self._models_seen.add(model)

    def _delivered(self, reply: Reply) -> None:
        with self._requests_lock:
            self.completions += 1
        if reply.usage:
            with self._requests_lock:
                self.delivered.append((reply.prompt_tokens, reply.cached_tokens, reply.completion_tokens))

    def _models_listing(self) -> dict:
        with self._requests_lock:
            models = sorted(self._models_seen) or [DEFAULT_MODEL]
        return {"object": "list", "data": [
            {"id": model, "object": "model", "created": 0, "owned_by": "fake-openai"} for model in models]}

    @staticmethod
    def _completion(request: dict, reply: Reply) -> dict:
        content, finish_reason = reply.content, reply.finish_reason
        if reply.oddity is not None and content is not None:
            content = odd_content(content, reply.oddity)
        if reply.fault == "truncated":
            finish_reason = "length"
            if content is not None:
                content = content[: len(content) // 2]
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if reply.tool_call:
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [{
                "id": f"call_{uuid.uuid4().hex[:16]}", "type": "function",
                "function": {"name": "action", "arguments": content or ""}}]}
        if reply.tool_calls:
            message = {"role": "assistant", "content": content, "refusal": None, "tool_calls": [{
                "id": f"call_{uuid.uuid4().hex[:16]}", "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]}} for c in reply.tool_calls]}
        model = request.get("model")
        body = {
            "id": f"chatcmpl-fake-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model if isinstance(model, str) else DEFAULT_MODEL,
            "system_fingerprint": "fake-openai",
            "choices": [{
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": ("tool_calls" if (reply.tool_call or reply.tool_calls) and finish_reason == "stop"
                                  else finish_reason),
            }],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
                "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
            },
        }
        if not reply.usage:
            del body["usage"]
        return body


# -- command line: scigame/testing/fake_openai_cli.py (which imports this module, not the other way)
if __name__ == "__main__":
    # Under `python -m` this file runs as __main__, a second copy of the module:
    # serve with the package's copy so that responders (which import
    # scigame.testing.fake_openai.Reply) return the class the server checks for.
    from scigame.testing.fake_openai_cli import serve
    sys.exit(serve())
