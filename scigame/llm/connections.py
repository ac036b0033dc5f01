"""The chat client's connections: HTTP/1.1 keep-alive connections on the
event loop, spoken with h11 (the protocol library under httpcore).

openai's HTTP library (httpx) sends through its transport; its default one
(httpcore's pool over anyio) spent more CPU per call on the event loop than
the rest of a player's turn: a dozen cancel scopes, locks and library
lookups per request, and a look at every pooled connection's socket each
time a request comes or goes. `lean_transport()` is a transport of the same
library that does what a chat call needs with asyncio's own protocol
callbacks: a connection per call in flight, kept alive afterwards (at most
`max_keepalive_connections`, each for `keepalive_expiry` seconds, as httpx's
`Limits` say), plain HTTP or TLS (one certificate store for all of them),
the request's connect, read, write and pool timeouts, and the library's own
exceptions (ConnectError, ReadTimeout, RemoteProtocolError, ...), which
openai maps to its APIConnectionError and APITimeoutError as before. What it
does not do (HTTP/2, a proxy, a Unix socket) the client does not ask of it:
openai's client sends over HTTP/1.1, and proxies from the environment are
httpx's own mounts, not this transport.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from typing import Any, Optional

#: The largest response head (status line and headers) read, as httpcore's.
MAX_HEAD_BYTES = 100 * 1024
#: Bytes of an answer buffered before reading from the socket pauses until they are consumed.
READ_BUFFER = 256 * 1024


@functools.cache
def _http_library():
    """The HTTP library under the installed openai (httpx; httpx2 for openai 3)."""
    import importlib

    import openai
    client = next(c for c in openai.DefaultAsyncHttpxClient.__mro__ if c.__name__ == "AsyncClient")
    return importlib.import_module(client.__module__.split(".")[0])


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: h11's state machine fed by the socket's data."""

    def __init__(self, origin: tuple, h11: Any, http: Any, lost=None):
        self.origin, self._h11mod, self._http, self._on_lost = origin, h11, http, lost
        self.h11 = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.transport: Optional[asyncio.Transport] = None
        self._data: deque = deque()
        self._buffered = 0
        self._eof = False
        self._lost: Optional[BaseException] = None
        self._waiter: Optional[asyncio.Future] = None
        self._writable: Optional[asyncio.Future] = None
        self._paused = False
        self.idle_since = 0.0
        self.loop: Optional[asyncio.AbstractEventLoop] = None

    # -- asyncio's callbacks --------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        self._data.append(data)
        self._buffered += len(data)
        if self._buffered > READ_BUFFER and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> Optional[bool]:
        self._eof = True
        self._wake()
        return None  # close the transport

    def connection_lost(self, exc: Optional[BaseException]) -> None:
        self._eof = True
        self._lost = exc
        self._wake()
        if self._on_lost is not None:
            self._on_lost(self)
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def pause_writing(self) -> None:
        self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._writable = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # -- use -----------------------------------------------------------------------------------
    @property
    def usable(self) -> bool:
        """Open, its last exchange complete, and nothing unasked-for arrived."""
        return (self.transport is not None and not self.transport.is_closing() and not self._eof
                and not self._data and self.h11.our_state is self._h11mod.IDLE
                and self.loop is asyncio.get_running_loop())  # a client used again under another loop

    def close(self) -> None:
        if self.transport is not None:
            try:
                self.transport.close()
            except RuntimeError:  # its event loop is closed: the socket goes with the transport
                pass

    async def send(self, request, timeout: Optional[float]) -> None:
        h11, http = self._h11mod, self._http
        try:
            data = self.h11.send(_request_event(h11, request))
            chunks = [data]
            async for chunk in request.stream:
                chunks.append(self.h11.send(h11.Data(data=chunk)))
            chunks.append(self.h11.send(h11.EndOfMessage()))
        except h11.LocalProtocolError as exc:
            raise http.LocalProtocolError(str(exc)) from exc
        if self.transport.is_closing():
            raise http.WriteError("the connection was closed before the request was sent")
        self.transport.write(b"".join(chunks))
        if self._writable is not None:
            try:
                async with asyncio.timeout(timeout):
                    await self._writable
            except TimeoutError:
                raise http.WriteTimeout("the request was not sent within the write timeout") from None
            if self._lost is not None:
                raise http.WriteError(str(self._lost)) from self._lost

    async def next_event(self, timeout: Optional[float]):
        h11, http = self._h11mod, self._http
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise http.RemoteProtocolError(str(exc)) from exc
            if event is not h11.NEED_DATA:
                return event
            data = await self._read(timeout)
            try:
                self.h11.receive_data(data)
            except h11.RemoteProtocolError as exc:
                raise http.RemoteProtocolError(str(exc)) from exc

    async def _read(self, timeout: Optional[float]) -> bytes:
        """The bytes received since the last read; b"" once the peer closed."""
        if not self._data and not self._eof:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                async with asyncio.timeout(timeout):
                    await self._waiter
            except TimeoutError:
                raise self._http.ReadTimeout("no answer within the read timeout") from None
            finally:
                self._waiter = None
        if self._data:
            data = b"".join(self._data) if len(self._data) > 1 else self._data[0]
            self._data.clear()
            self._buffered = 0
            if self._paused:
                self._paused = False
                self.transport.resume_reading()
            return data
        if self._lost is not None:
            raise self._http.ReadError(str(self._lost)) from self._lost
        return b""


#: Header fields (name, value) h11 has validated, of the requests sent: a chat call's are the same
#: every call but its Content-Length, and validating each again (two regular expressions a field)
#: was the largest part of building a request's head.
_VALID_FIELDS: set = set()
VALID_FIELDS_KEPT = 4096


@functools.cache
def _h11_headers() -> Optional[type]:
    """h11's `Headers`, what its normalisation makes (None where h11 has no such class)."""
    try:
        from h11._headers import Headers
    except ImportError:
        return None
    return Headers


def _request_event(h11: Any, request) -> Any:
    """`h11.Request` of an HTTP library's request. Its fields are validated
    as h11 validates them (`normalize_and_validate`): each field once, after
    which the request's own (raw name, lower-cased name, value) triples,
    which are h11's `Headers` as its normalisation makes them, are given as
    they are. A field never validated, a Transfer-Encoding, or a
    Content-Length that is not one field of digits goes through h11's
    whole validation."""
    triples = getattr(request.headers, "_list", None)  # httpx's, as h11 keeps them
    headers = _h11_headers()
    if triples is not None and headers is not None:
        lengths = 0
        for raw, name, value in triples:
            if name == b"content-length" and value.isdigit() and len(value) < 19:
                lengths += 1
            elif (raw, value) not in _VALID_FIELDS:
                break
        else:
            if lengths <= 1:
                return h11.Request(method=request.method.encode("ascii"), target=request.url.raw_path,
                                   headers=headers(list(triples)), _parsed=True)
    fields = request.headers.raw
    event = h11.Request(method=request.method, target=request.url.raw_path, headers=fields)
    if len(_VALID_FIELDS) + len(fields) > VALID_FIELDS_KEPT:
        _VALID_FIELDS.clear()
    _VALID_FIELDS.update(f for f in fields if f[0].lower() not in (b"content-length", b"transfer-encoding"))
    return event


class _Body:
    """An answer's body as it arrives; closing it gives the connection back to the pool (or
    closes it, when the answer was not read to its end). Made a stream of the HTTP
    library's by `lean_transport`."""

    def __init__(self, pool: "_Lean", connection: _Connection, timeout: Optional[float]):
        self._pool, self._connection, self._timeout = pool, connection, timeout
        self._closed = False

    async def __aiter__(self):
        h11 = self._pool.h11_module
        while True:
            event = await self._connection.next_event(self._timeout)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                return

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.release(self._connection)



class _Lean:
    """The pool of `_Connection`s behind `lean_transport`'s transport class,
    which gives it the HTTP library (`http`), h11 (`h11_module`) and its `Body` stream."""

    http: Any
    h11_module: Any
    Body: type

    def __init__(self, limits):
        self._most = limits.max_connections  # None: no limit
        self._keep = limits.max_keepalive_connections
        self._expiry = limits.keepalive_expiry
        self._idle: list[_Connection] = []
        self._open = 0
        self._waiting: deque = deque()
        # one certificate store for every connection, built as httpx's own transport builds its own, when
        # the first TLS connection is made: loading it is most of a run's fixed CPU, and plain HTTP (a
        # local endpoint) never reads it
        self._ssl = None
        self._closed = False

    async def handle_async_request(self, request):
        h11, http = self.h11_module, self.http
        timeouts = request.extensions.get("timeout", {})
        connection = await self._acquire(request, timeouts)
        try:
            await connection.send(request, timeouts.get("write"))
            event = await connection.next_event(timeouts.get("read"))
            while isinstance(event, h11.InformationalResponse):
                event = await connection.next_event(timeouts.get("read"))
            if isinstance(event, h11.ConnectionClosed):
                raise http.RemoteProtocolError("Server disconnected without sending a response.")
        except BaseException:
            connection.close()
            self.release(connection)
            raise
        return http.Response(status_code=event.status_code, headers=event.headers.raw_items(),
                             stream=self.Body(self, connection, timeouts.get("read")),
                             extensions={"http_version": b"HTTP/" + event.http_version,
                                         "reason_phrase": event.reason})

    async def _acquire(self, request, timeouts: dict) -> _Connection:
        http, url = self.http, request.url
        if url.scheme not in ("http", "https"):
            raise http.UnsupportedProtocol(f"Request URL has an unsupported protocol '{url.scheme}://'.")
        origin = (url.scheme, url.raw_host, url.port or (443 if url.scheme == "https" else 80))
        now = time.monotonic()
        while self._idle and self._expiry is not None and now - self._idle[0].idle_since > self._expiry:
            self._drop(self._idle.pop(0))  # kept longest: the list is in the order they came free
        for i in range(len(self._idle) - 1, -1, -1):  # the one used last first: the likeliest to be open
            if self._idle[i].origin == origin:
                connection = self._idle.pop(i)
                if connection.usable:
                    return connection
                self._drop(connection)
        if self._most is not None and self._open >= self._most:
            if self._idle:  # a connection kept for another origin gives way
                self._drop(self._idle.pop(0))
            else:
                given = await self._wait(origin, timeouts.get("pool"))
                if given is not None:
                    if given.usable:
                        return given
                    self._drop(given)
                return await self._acquire(request, timeouts)
        self._open += 1
        try:
            return await self._connect(origin, request, timeouts.get("connect"))
        except BaseException:
            self._open -= 1
            self._wake_one()
            raise

    async def _wait(self, origin: tuple, timeout: Optional[float]) -> Optional[_Connection]:
        """Wait, at most `timeout` s, until a connection to `origin` is handed
        over (`release`) or a place comes free (None: look again)."""
        waiter = asyncio.get_running_loop().create_future()
        entry = (origin, waiter)
        self._waiting.append(entry)
        try:
            async with asyncio.timeout(timeout):
                return await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled() and waiter.result() is not None:
                self.release(waiter.result())  # handed over as the wait ended: not lost to the pool
            if isinstance(exc, TimeoutError):
                raise self.http.PoolTimeout("no connection came free within the pool timeout") from None
            raise
        finally:
            if any(e is entry for e in self._waiting):
                self._waiting.remove(entry)

    async def _connect(self, origin: tuple, request, timeout: Optional[float]) -> _Connection:
        http, scheme, host, port = self.http, *origin
        host = host.decode("ascii") if isinstance(host, bytes) else host
        tls = {}
        if scheme == "https":
            sni = request.extensions.get("sni_hostname") or host
            if self._ssl is None:
                self._ssl = self.http.create_ssl_context()
            tls = {"ssl": self._ssl, "server_hostname": sni, "ssl_handshake_timeout": timeout}
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                _, connection = await loop.create_connection(
                    lambda: _Connection(origin, self.h11_module, http, self._lost), host, port, **tls)
        except TimeoutError:
            raise http.ConnectTimeout(f"no connection to {host}:{port} within the connect timeout") from None
        except OSError as exc:
            raise http.ConnectError(str(exc)) from exc
        return connection

    def _drop(self, connection: _Connection) -> None:
        self._open -= 1
        connection.close()

    def _lost(self, connection: _Connection) -> None:
        """A kept connection the server closed is no longer kept."""
        for i, kept in enumerate(self._idle):
            if kept is connection:
                del self._idle[i]
                self._open -= 1
                self._wake_one()
                return

    def release(self, connection: _Connection) -> None:
        """An exchange is over: hand the connection to the longest-waiting
        request for its origin, else keep it alive if it may be used again
        (within the keep-alive limit, which is for connections nobody waits
        for), else close it."""
        done = self.h11_module.DONE
        if connection.h11.our_state is done and connection.h11.their_state is done:
            connection.h11.start_next_cycle()
        if not self._closed and connection.usable:
            for entry in self._waiting:
                origin, waiter = entry
                if origin == connection.origin and not waiter.done():
                    self._waiting.remove(entry)
                    waiter.set_result(connection)
                    return
        if (not self._closed and connection.usable
                and (self._keep is None or len(self._idle) < self._keep)):
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            self._drop(connection)
        self._wake_one()

    def _wake_one(self) -> None:
        """A place came free, or a connection another origin may take the place of was kept: the
        longest-waiting request looks again."""
        while self._waiting:
            _, waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            self._drop(connection)


@functools.cache
def lean_transport() -> type:
    """A transport class of openai's HTTP library over `_Connection`s (see the module doc)."""
    import h11

    http = _http_library()
    body = type("Body", (_Body, http.AsyncByteStream), {"__doc__": _Body.__doc__})
    return type("Lean", (_Lean, http.AsyncBaseTransport), {"__doc__": _Lean.__doc__, "http": http, "h11_module": h11,
                                                           "Body": body})
