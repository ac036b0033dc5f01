"""One chat call to an OpenAI-compatible endpoint, robust enough for a
10,000-episode campaign.

- Infrastructure faults (connection errors, 429, 5xx, a body that is not a
  chat completion, a call that outlasts `timeout`) are retried with
  exponential backoff and jitter, honouring Retry-After; they never count
  against the model. `timeout` is a deadline for the whole call, however
  slowly the body arrives. A fault that outlasts the retries, or another
  refusal of the request, raises `EndpointFault`, whoever called (the
  player maps it to its `PlayerFault`: the episode is left unfinished and a
  resume plays it again; the judge leaves the grade for a later run).
- Authentication and permission errors raise `AuthFailure`: the run stops.
- Structured outputs (a JSON Schema) are asked for where the endpoint
  supports them. Support is decided once per client, under a lock, by the
  first call that carries a schema; any 400 or 422 to a request with a
  schema switches them off and the request is sent again without it (the
  caller then extracts and validates JSON itself). Error messages keep the
  endpoint's detail.
- The answer is the message content, or the arguments of its first tool call;
  with `tools` offered (function tools), the tool calls come apart in
  `Completion.tool_calls`.
- Every quantity the endpoint controls is bounded: a Retry-After wait by
  `timeout` (a non-finite one is ignored), the body by MAX_BODY_BYTES (read
  as it streams, never whole first), its JSON nesting by the parser's
  recursion limit, token counts by MAX_TOKENS_PER_CALL, and text that
  cannot be stored (lone surrogates) becomes U+FFFD. A body past those
  bounds is the endpoint's fault (retried like a 5xx); a completion whose
  token counts are not plausible whole numbers is kept, with its tokens
  estimated (marked `estimated`, warned about once), so its spend still
  reaches the attempt archive.
- Tokens (input, cached, output, reasoning) are counted per call and priced
  from the model registry; an answer without `usage` is estimated (marked
  `estimated`, warned about once). Every answered call is reported to the
  run's attempt archive (`scigame.episode_context.record_call`, which the runner points at the store) the moment it arrives.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import re
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

import openai

from ..records import Usage
from ..episode_context import record_call
from ..identity_memo import IdentityMemo
from .connections import _http_library, lean_transport
from .registry import Registry, load_registry
from .tokens import TOKENIZER_NOTE, estimate_tokens


class AuthFailure(RuntimeError):
    """The endpoint refused our credentials: nothing else will work."""


class EndpointFault(RuntimeError):
    """The endpoint failed a call (retries outlasted, or a request it
    refused): not the model's fault. `usage` is what was spent before it
    (a conversation adds its earlier calls; see `conversation.converse`).

    The one fault type of the endpoint, whoever called: the LLM player turns
    it into its PlayerFault (the episode is left unfinished), the judge and
    curation catch it themselves."""

    def __init__(self, message: str, usage: Optional[Usage] = None):
        super().__init__(message)
        self.usage = usage if usage is not None else Usage()


@dataclass
class LLMConfig:
    """How to reach and call one model."""

    model: str
    base_url: Optional[str] = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 6
    backoff_base: float = 1.0  # seconds; doubled per retry, with jitter
    backoff_max: float = 60.0
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None
    reasoning_effort: Optional[str] = None
    structured: bool = True  # ask for JSON-Schema structured outputs
    connections: int = 0  # calls in flight at once (--concurrency): the pool keeps that many alive

    def api_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if not key:
            raise AuthFailure(f"no API key: the environment variable {self.api_key_env} is not set "
                              "(choose another with --api-key-env)")
        return key


@dataclass
class Completion:
    text: str
    finish_reason: str
    usage: Usage
    #: The message's tool calls as sent (JSON objects), when tools were offered.
    tool_calls: list = field(default_factory=list)


#: The largest chat-completion body read (a real one is kilobytes).
MAX_BODY_BYTES = 16 * 2 ** 20
#: A token count above this is not believed (no context window is this large).
MAX_TOKENS_PER_CALL = 100_000_000

_RETRYABLE = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
              openai.InternalServerError, openai.APIResponseValidationError)


class _Deadline(Exception):
    """The whole call (connect, wait, every byte of the body) took longer than --timeout."""


def error_text(exc: "openai.APIStatusError") -> str:
    """The endpoint's message, with the body's detail when the message lacks
    it (a 422 from a FastAPI-style server carries its reasons in `detail`)."""
    text = str(exc.message)
    body = exc.body
    detail = body.get("detail") if isinstance(body, dict) else body if isinstance(body, str) else None
    if detail:
        detail_text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
        if detail_text not in text:
            text = f"{text}: {detail_text[:500]}"
    return text


#: The user cache's record of the endpoints (base URL and model) that took a
#: schema-carrying request: a later run starts with structured outputs on,
#: instead of holding every first call behind one (ChatClient.complete).
STRUCTURED_MEMO = "structured-outputs.json"
#: The most endpoints it keeps.
STRUCTURED_MEMO_SIZE = 64


def _endpoint(config: "LLMConfig") -> str:
    return f"{config.base_url or 'https://api.openai.com/v1'} {config.model}"


def _remember_structured(config: "LLMConfig", accepted: bool) -> None:
    """Record (or, refused, forget) that this endpoint takes structured outputs."""
    from ..compiler.usercache import read_json, write_json

    memo, key = read_json(STRUCTURED_MEMO), _endpoint(config)
    if memo.get(key) is (True if accepted else None):
        return
    if accepted:
        memo[key] = True
        for old in list(memo)[:-STRUCTURED_MEMO_SIZE]:  # the oldest go first (a test server's ports)
            del memo[old]
    else:
        memo.pop(key, None)
    write_json(STRUCTURED_MEMO, memo)


def _remembered_structured(config: "LLMConfig") -> bool:
    from ..compiler.usercache import read_json

    return read_json(STRUCTURED_MEMO).get(_endpoint(config)) is True


class ChatClient:
    """Chat completions with retries, timeouts and token accounting."""

    def __init__(self, config: LLMConfig, registry: Registry | None = None):
        self.config = config
        self.registry = registry or load_registry()
        self._client: Optional[openai.AsyncOpenAI] = None
        #: Structured outputs: True/False once decided for this endpoint, None while unknown;
        #: True from the start when an earlier run found the endpoint takes them (STRUCTURED_MEMO).
        self._structured: Optional[bool] = (None if not _remembered_structured(config) else True) \
            if config.structured else False
        self._negotiation: Optional[asyncio.Lock] = None
        #: Each schema's `response_format` as the request's JSON bytes, by schema (and then its
        #: name): the schema is the same every call of a card.
        self._formats: IdentityMemo[dict[str, bytes]] = IdentityMemo(256)
        #: Things the user should hear once per run (the CLI prints them).
        self.warnings: list[str] = []

    def _ensure(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(api_key=self.config.api_key(), base_url=self.config.base_url,
                                              timeout=self.config.timeout, max_retries=0,
                                              http_client=_http_client(self.config.connections))
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _delay(self, attempt: int, exc: Exception) -> float:
        """The wait before the next try: backoff with jitter, or the endpoint's
        Retry-After if longer, but never longer than --timeout (an endpoint
        that asks for 1e9 s, inf or nan gets the bounded wait)."""
        retry_after = 0.0
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after"))
            except (TypeError, ValueError, OverflowError):
                retry_after = 0.0
            if not 0.0 <= retry_after < float("inf"):
                retry_after = 0.0
        backoff = min(self.config.backoff_max, self.config.backoff_base * 2 ** min(attempt, 60))
        delay = backoff * (0.5 + random.random() / 2)  # jitter: spread retries of concurrent episodes
        return min(max(delay, retry_after), self.config.timeout)

    def _base_kwargs(self, messages: list[dict]) -> dict[str, Any]:
        cfg = self.config
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages}
        if cfg.temperature is not None:
            kwargs["temperature"] = cfg.temperature
        if cfg.max_tokens is not None:
            kwargs["max_completion_tokens"] = cfg.max_tokens
        if cfg.reasoning_effort is not None:
            kwargs["reasoning_effort"] = cfg.reasoning_effort
        return kwargs

    async def complete(self, messages: list[dict], schema: Optional[dict] = None,
                       schema_name: str = "action", tools: Optional[list] = None) -> Completion:
        """One completion; retries infrastructure faults (see module doc).

        While this endpoint's support for structured outputs is unknown, the
        calls that carry a schema wait for the first one (a lock): it
        decides, and every later call knows the answer before it is sent.
        The calls that waited are sent side by side once it is decided, not
        one at a time under the lock. An endpoint that took a schema is
        remembered in the user cache (STRUCTURED_MEMO), so a later run's
        first calls go out at once; a refusal then switches them off as
        below, and forgets it."""
        if schema is None or self._structured is not None:
            return await self._complete(messages, schema, schema_name, tools)
        if self._negotiation is None:
            self._negotiation = asyncio.Lock()
        async with self._negotiation:
            if self._structured is None:
                completion = await self._complete(messages, schema, schema_name, tools)
                if self._structured is None:
                    self._structured = True  # a schema-carrying request was accepted
                    await asyncio.to_thread(_remember_structured, self.config, True)
                return completion
        return await self._complete(messages, schema, schema_name, tools)  # decided while this call waited

    async def _complete(self, messages: list[dict], schema: Optional[dict], schema_name: str,
                        tools: Optional[list] = None) -> Completion:
        client = self._ensure()
        cfg = self.config
        kwargs = self._base_kwargs(messages)
        if tools:
            kwargs["tools"] = tools
        retries = 0
        attempt = 0
        while True:
            carried = schema is not None and self._structured is not False
            body = dict(kwargs)
            if carried:
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": schema_name, "schema": schema, "strict": False}}
            try:
                content = self._content(kwargs, body["response_format"], schema, schema_name) if carried else None
                async with asyncio.timeout(cfg.timeout):  # no task of its own per call, as wait_for makes
                    response = _completion_json(await _post(client, body, content))
            except TimeoutError:
                exc: Exception = _Deadline(f"no complete answer within --timeout {cfg.timeout:g} s")
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise AuthFailure(f"{cfg.model} at {cfg.base_url or 'api.openai.com'}: {e.message}") from None
            except (openai.BadRequestError, openai.UnprocessableEntityError) as e:
                if carried:  # any 400/422 to a request with a schema: no structured outputs here
                    if self._structured is not False:  # the first refusal (calls in flight may bring more)
                        self._structured = False
                        self.warnings.append(f"{cfg.model}: the endpoint refused structured outputs "
                                             f"(HTTP {e.status_code}: {error_text(e)[:200]}); asking for "
                                             "plain JSON from now on")
                        await asyncio.to_thread(_remember_structured, cfg, False)
                    continue
                raise EndpointFault(f"the endpoint rejected the request (HTTP {e.status_code}): "
                                  f"{error_text(e)}") from None
            except (*_RETRYABLE, _BadCompletion, ValueError) as e:  # ValueError: a body that is not JSON
                exc = e
            except RecursionError:
                exc = _BadCompletion("the endpoint's answer nests JSON too deeply to read")
            except openai.APIStatusError as e:  # other 4xx: not the model's fault, not retryable
                raise EndpointFault(f"HTTP {e.status_code} from the endpoint: {error_text(e)}") from None
            else:
                completion = self._completion(response, retries, messages, bool(tools))
                record_call(completion.usage)
                return completion
            if attempt >= cfg.max_retries:
                raise EndpointFault(f"{type(exc).__name__} after {attempt + 1} attempts: {exc}",
                                    Usage(retries=retries)) from None
            await asyncio.sleep(self._delay(attempt, exc))
            attempt += 1
            retries += 1

    def _content(self, kwargs: dict, response_format: dict, schema: dict, schema_name: str) -> Optional[bytes]:
        """The request's JSON bytes, `kwargs` then `response_format` (as
        openai's `openapi_dumps` writes `{**kwargs, "response_format": ...}`,
        byte for byte), the response format's bytes written once per schema;
        None where openai has no `openapi_dumps` (then `_post` sends the body)."""
        try:
            from openai._utils._json import openapi_dumps
        except ImportError:
            return None
        by_name = self._formats.get(schema, lambda _: {})
        if schema_name not in by_name:
            by_name[schema_name] = openapi_dumps(response_format)
        return openapi_dumps(kwargs)[:-1] + b',"response_format":' + by_name[schema_name] + b"}"

    def _completion(self, response: dict, retries: int, messages: list[dict], tools: bool = False) -> Completion:
        choice = response["choices"][0]
        calls = _at(choice, "message", "tool_calls") if tools else None
        calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
        text = storable(reply_text(_at(choice, "message")))
        u = _at(response, "usage")
        counts = {name: _at(u, *path) for name, path in _USAGE_PATHS.items()}
        if counts["input_tokens"] is None or any(_count(v) is None for v in counts.values() if v is not None):
            usage = Usage(calls=1, retries=retries, estimated=1, input_tokens=estimate_tokens(messages),
                          output_tokens=estimate_tokens(text))
            why = "no token usage" if u is None or counts["input_tokens"] is None else "implausible token counts"
            if not any(f"reported {why}" in w for w in self.warnings):
                self.warnings.append(f"{self.config.model}: the endpoint reported {why}; tokens "
                                     f"and cost are estimated ({TOKENIZER_NOTE()}) and marked `estimated`")
        else:
            usage = Usage(calls=1, retries=retries, **{k: _count(v) or 0 for k, v in counts.items()})
        usage = usage.model_copy(update={"cost_usd": self.registry.cost(self.config.model, usage)})
        finish = _at(choice, "finish_reason")
        return Completion(text=text, finish_reason=storable(finish) if isinstance(finish, str) else "", usage=usage,
                          tool_calls=calls)


_USAGE_PATHS = {"input_tokens": ("prompt_tokens",), "cached_tokens": ("prompt_tokens_details", "cached_tokens"),
                "output_tokens": ("completion_tokens",),
                "reasoning_tokens": ("completion_tokens_details", "reasoning_tokens")}


async def _post(client: openai.AsyncOpenAI, body: dict, content: Optional[bytes] = None) -> Any:
    """POST the request and read the answer's body as it streams, at most
    MAX_BODY_BYTES of it (openai's own reading would hold any size).
    `content`, when given, is `body` as JSON bytes (ChatClient._content)."""
    if client not in _TEMPLATES:
        _TEMPLATES[client] = await asyncio.to_thread(_request_template, client)
    template = _TEMPLATES[client]
    if template is not None:
        response = await _send_built(client, template, body, content)
    else:
        from openai._response import AsyncAPIResponse

        # posted as is: the client's per-call type transforms of the parameters (a few ms of CPU for
        # the large schema) would run on the event loop every call; read as plain JSON: building
        # openai's ChatCompletion model costs ~0.7 ms a call, for 6 fields
        raw = await client.post("/chat/completions", body=body, cast_to=AsyncAPIResponse[object],
                                options={"headers": {"X-Stainless-Raw-Response": "stream"}})
        response = raw.http_response
    try:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise _BadCompletion(f"the endpoint's answer is {int(declared):,} bytes, more than the "
                                 f"{MAX_BODY_BYTES:,} a completion may take")
        # an answer not content-encoded is the transport's stream itself: httpx's decoding layers
        # (a decoder, a chunker, a byte count and an error context per chunk) have nothing to do
        plain = template is not None and response.headers.get("content-encoding", "identity") == "identity"
        content = await _body(response, plain)
    finally:
        await response.aclose()
    return json.loads(content)  # ValueError: not JSON; RecursionError: nested too deeply


async def _body(response, plain: bool) -> bytes:
    """An answer's body as it streams (`plain`: from the transport's stream
    itself), at most MAX_BODY_BYTES of it. The connection failing while it
    is read (cut off before its Content-Length, a read timeout) is the same
    transport fault as failing before the answer, mapped as openai maps that
    one (APIConnectionError, APITimeoutError: retried), not the HTTP
    library's own error escaping the client."""
    http = _http_library()
    chunks, size = [], 0
    try:
        async for chunk in (response.stream if plain else response.aiter_bytes()):
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise _BadCompletion(f"the endpoint's answer is longer than the {MAX_BODY_BYTES:,} bytes "
                                     "a completion may take")
            chunks.append(chunk)
    except http.TimeoutException as err:
        raise openai.APITimeoutError(request=response.request) from err
    except http.RequestError as err:
        raise openai.APIConnectionError(request=response.request) from err
    return b"".join(chunks)


#: Each live client's request template (see _request_template), or None: send through `client.post`.
_TEMPLATES: "weakref.WeakKeyDictionary[openai.AsyncOpenAI, Optional[tuple]]" = weakref.WeakKeyDictionary()


def _request_template(client: openai.AsyncOpenAI) -> Optional[tuple]:
    """(url, headers, extensions, ..., transport) of a chat-completions POST,
    as openai's own `_build_request` makes them (auth, default and platform
    headers, the timeout), and the transport its HTTP client sends them
    through, built once per client (it runs in a thread: openai reads the
    platform from the system the first time). Building and validating them
    anew was the largest part of the client's CPU per call. None when the
    client does something per request (an API-key provider, a custom or
    workload-identity auth, a provider runtime, HTTP auth or event hooks, a
    legacy httpx), or openai's internals are not the ones this was written
    against: then every call goes through `client.post`."""
    try:
        from openai._httpx2 import request_exceptions, timeout_exceptions  # noqa: F401 (what _send_built uses)
        from openai._models import FinalRequestOptions
        from openai._utils._json import openapi_dumps  # noqa: F401

        http_client = client._client
        if (getattr(client, "_provider_runtime", None) is not None or getattr(client, "_api_key_provider", None)
                is not None or getattr(client, "_workload_identity_auth", None) is not None
                or client.custom_auth is not None or not hasattr(client, "_send_request")
                or not hasattr(client, "_make_status_error_from_response") or http_client.auth is not None
                or any(http_client.event_hooks.values()) or not hasattr(http_client, "_build_redirect_request")):
            return None
        if client._platform is None:
            from openai._base_client import get_platform
            client._platform = get_platform()
        built = client._build_request(FinalRequestOptions.construct(method="post", url="/chat/completions",
                                                                    json_data={}))
        transport = http_client._transport_for_url(built.url)  # its proxy, when the environment names one
    except (ImportError, AttributeError, TypeError):
        return None
    idempotency = getattr(client, "_idempotency_header", None)  # openai's own: none for OpenAI's API
    skip = {b"content-length"} | ({idempotency.lower().encode()} if idempotency else set())
    headers = type(built.headers)([(k, v) for k, v in built.headers.raw if k.lower() not in skip])
    # the URL and headers as the HTTP library's own objects: a request made from them copies them
    # rather than parsing the URL and normalising every header again, each call
    return built.url, headers, dict(built.extensions), type(built), idempotency, transport


async def _send_built(client: openai.AsyncOpenAI, template: tuple, body: dict, content: Optional[bytes] = None):
    """Send `body` with the template's URL and headers straight to its HTTP
    client's transport (`_sent`) and map failures as openai's `request` does:
    a timeout to APITimeoutError, another transport error to
    APIConnectionError, HTTP 4xx/5xx to openai's status errors
    (`_make_status_error_from_response`: RateLimitError, AuthenticationError, ...)."""
    import uuid

    from openai._httpx2 import request_exceptions, timeout_exceptions
    from openai._utils._json import openapi_dumps

    url, headers, extensions, request_type, idempotency, transport = template
    content = openapi_dumps(body) if content is None else content
    headers = type(headers)(headers)
    if idempotency:  # a fresh key per call, as openai's `request` makes one per call
        headers[idempotency] = f"stainless-python-retry-{uuid.uuid4()}"
    # the headers `Request(content=...)` would end with (the template has the Host): given as a stream
    # with them, the request does not look through and normalise every header again, each call
    headers["Content-Length"] = str(len(content))
    request = request_type("POST", url, headers=headers, stream=_http_library().ByteStream(content),
                           extensions=dict(extensions))
    request.read()  # its `content`, as a request made with content= has it
    try:
        response = await _sent(client, transport, request)
    except timeout_exceptions() as err:
        raise openai.APITimeoutError(request=request) from err
    except openai.OpenAIError:
        raise
    except request_exceptions() as err:
        raise openai.APIConnectionError(request=request) from err
    if response.status_code >= 400:
        try:
            await response.aread()
        except request_exceptions() as err:
            raise openai.APIConnectionError(request=request) from err
        finally:
            await response.aclose()
        raise client._make_status_error_from_response(response) from None
    return response


async def _sent(client: openai.AsyncOpenAI, transport, request):
    """The transport's answer to `request`. openai's own send (its auth
    retry, then its HTTP client's auth flow, redirects, event hooks and
    cookie jar) has nothing to do for a client that `_request_template`
    accepts except follow a redirect: the request a redirect asks for goes
    through it, built and followed as its HTTP client follows one. Each
    layer cost CPU every call."""
    response = await transport.handle_async_request(request)
    response.request = request
    http_client = client._client
    if response.has_redirect_location and http_client.follow_redirects:
        follow = http_client._build_redirect_request(request, response)
        await response.aclose()
        response = await client._send_request(follow, stream=True)
    return response


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """Text with lone surrogates (which JSON can spell but UTF-8 cannot
    encode, so no record could hold them) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _completion_json(response: Any) -> dict:
    """A chat completion as parsed JSON with at least one choice (openai
    hands back the text of a body not labelled JSON), else _BadCompletion."""
    if isinstance(response, (str, bytes)):
        response = json.loads(response)  # ValueError: not JSON, retried as a transport fault
    choices = _at(response, "choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _BadCompletion(f"the endpoint answered without a completion: {str(response)[:200]}")
    return response


def _at(node: Any, *keys: str) -> Any:
    """`node[k1][k2]...` through JSON objects; None where one is missing."""
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _count(value: Any) -> Optional[int]:
    """A token count as the API reports it (a whole number up to
    MAX_TOKENS_PER_CALL), else None (NaN, 1e400, 10^30, -5, "7")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not 0 <= value <= MAX_TOKENS_PER_CALL:  # False for NaN too
        return None
    return int(value)


def _http_client(connections: int):
    """openai's own async HTTP client, over the event loop's own connections
    (`connections.lean_transport`), keeping `connections` of them alive (and
    at least openai's defaults): beyond its default of 100, calls in flight
    would close and reopen connections. Error answers are read at most
    MAX_ERROR_BODY_BYTES far (error_body_cap)."""
    from openai._constants import DEFAULT_CONNECTION_LIMITS as default

    limits = type(default)(max_connections=max(default.max_connections or 0, connections) or None,
                           max_keepalive_connections=max(default.max_keepalive_connections or 0, connections),
                           keepalive_expiry=default.keepalive_expiry)
    return openai.DefaultAsyncHttpxClient(transport=error_body_cap()(lean_transport()(limits)))


#: How much of an error answer (HTTP 4xx/5xx) is read: openai reads an error's whole body to
#: build its message, and the endpoint controls its size (a completion's is bounded in _post).
MAX_ERROR_BODY_BYTES = 64 * 2 ** 10


@functools.cache
def error_body_cap() -> type:
    """A transport class (of openai's HTTP library) whose error answers' bodies
    are cut at MAX_ERROR_BODY_BYTES: the rest is never read, the connection is
    dropped rather than drained."""
    http = _http_library()

    class Truncated(http.AsyncByteStream):
        def __init__(self, stream, cap: int):
            self._stream, self._cap = stream, cap

        async def __aiter__(self):
            left = self._cap
            async for chunk in self._stream:
                if len(chunk) >= left:
                    yield chunk[:left]
                    return
                left -= len(chunk)
                yield chunk

        async def aclose(self) -> None:
            await self._stream.aclose()

    class ErrorBodyCap(http.AsyncBaseTransport):
        def __init__(self, inner):
            self._inner = inner

        async def handle_async_request(self, request):
            response = await self._inner.handle_async_request(request)
            if response.status_code >= 400:
                response.stream = Truncated(response.stream, MAX_ERROR_BODY_BYTES)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    return ErrorBodyCap


def reply_text(message: Any) -> str:
    """The answer in a chat message (parsed JSON): its content, or else the
    arguments of its first tool call (servers that answer a schema with a
    tool call)."""
    content = _at(message, "content")
    if isinstance(content, str) and content:
        return content
    if isinstance(content, list):  # content parts: the text ones, in order
        text = "".join(p.get("text") or "" for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if text:
            return text
    calls = _at(message, "tool_calls")
    for call in calls if isinstance(calls, list) else []:
        arguments = _at(call, "function", "arguments")
        if isinstance(arguments, str) and arguments:
            return arguments
    return ""


async def gather_until_auth_failure(tasks: list["asyncio.Task"]) -> str:
    """Await every task; on the first AuthFailure cancel the rest (nothing
    else would work) and return its message, else return ""."""
    try:
        await asyncio.gather(*tasks)
    except AuthFailure as exc:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return str(exc)
    return ""


class _BadCompletion(Exception):
    """A 200 answer that holds no completion (a broken proxy, a bad gateway)."""
