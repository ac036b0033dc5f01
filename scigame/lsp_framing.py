"""The language server's framing and error answers, hardened (`scigame lsp`).

pygls reads `Content-Length` headers as it finds them and trusts them: a
`Content-Length: abc`, a header block without one, or a body that does not
end in a newline desynchronises its reader for good, and
`Content-Length: 99999999999999999999` makes it try to read that many
bytes. `FramedInput` sits between stdin and pygls: it reads the client's
bytes itself and hands pygls only well-formed frames
(`Content-Length: N\\r\\n\\r\\n` and N bytes of body). A frame it cannot read
(no length, a length that is not a number or above MAX_MESSAGE_BYTES, a
header line longer than MAX_HEADER_LINE) is dropped with a line on
stderr, and reading resumes at the next `Content-Length:` in the stream,
wherever it is.

`protocol_class()` makes pygls answer a request whose params do not match
the method's schema with a JSON-RPC error (-32602, invalid params) to that
request, instead of a pop-up in the editor and no answer. `one_line_logs()`
keeps pygls's log on stderr to one line per entry (its tracebacks of a
client's bad message are not the server failing).
"""

from __future__ import annotations

import re
import sys
from typing import BinaryIO, Callable, Optional

#: The largest message body read (a card of lint's largest size, as JSON, is far smaller).
MAX_MESSAGE_BYTES = 64 * 2 ** 20
#: The longest header line kept; a longer one is not a header.
MAX_HEADER_LINE = 4096
_MARK = b"content-length:"
_LENGTH = re.compile(rb"[ \t]*content-length[ \t]*:[ \t]*(\S*)[ \t]*\r?\n?", re.IGNORECASE)
_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:[^\r\n]*\r?\n?")


class FramedInput:
    """A reader with pygls's interface (`readline`, `read(n)`) that yields
    only well-formed frames of the raw stream (see the module doc)."""

    def __init__(self, raw: BinaryIO, log: Optional[Callable[[str], None]] = None):
        self.raw = raw
        self.log = log or (lambda text: print(f"scigame lsp: {text}", file=sys.stderr, flush=True))
        self.buf = bytearray()
        self.ready = bytearray()  # well-formed frames waiting for pygls
        self.eof = False

    # -- pygls's side -----------------------------------------------------------
    def readline(self) -> bytes:
        if not self.ready and not self._frame():
            return b""
        end = self.ready.find(b"\n")
        end = len(self.ready) if end < 0 else end + 1
        line = bytes(self.ready[:end])
        del self.ready[:end]
        return line

    def read(self, n: int) -> bytes:
        out = bytes(self.ready[:n])
        del self.ready[:n]
        return out

    # -- the raw side -------------------------------------------------------------
    def _fill(self) -> bool:
        if self.eof:
            return False
        read = getattr(self.raw, "read1", None) or self.raw.read
        chunk = read(65536)
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def _line(self) -> Optional[bytes]:
        """The next raw line (with its newline), or None at the end of input;
        a line past MAX_HEADER_LINE comes back as far as it was read."""
        while True:
            end = self.buf.find(b"\n")
            if end >= 0 or len(self.buf) > MAX_HEADER_LINE:
                end = end + 1 if 0 <= end <= MAX_HEADER_LINE else MAX_HEADER_LINE + 1
                line = bytes(self.buf[:end])
                del self.buf[:end]
                return line
            if not self._fill():
                if self.buf:
                    line = bytes(self.buf)
                    self.buf.clear()
                    return line
                return None

    def _resync(self) -> bool:
        """Drop bytes up to the next `Content-Length:` (any case); False at the end."""
        while True:
            at = self.buf.lower().find(_MARK)
            if at >= 0:
                del self.buf[:at]
                return True
            keep = len(_MARK) - 1  # the mark may straddle two reads
            if len(self.buf) > keep:
                del self.buf[:len(self.buf) - keep]
            if not self._fill():
                return False

    def _frame(self) -> bool:
        """Put the next well-formed frame into `ready`; False at the end of input."""
        while True:
            length, problem, blank = None, None, False
            while True:
                line = self._line()
                if line is None:
                    return False
                if not line.strip():
                    blank = True
                    break
                m = _LENGTH.fullmatch(line)
                if m:
                    value = m.group(1)
                    if not value.isdigit():
                        problem = f"Content-Length {value[:40]!r} is not a number"
                    elif len(value) > 12 or int(value) > MAX_MESSAGE_BYTES:
                        problem = f"Content-Length {value[:40].decode()} is more than {MAX_MESSAGE_BYTES:,} bytes"
                    else:
                        length = int(value)
                elif not _HEADER.fullmatch(line):
                    problem = "a header line that is not `Name: value`"
                    break
            if blank and length is not None and problem is None:
                while len(self.buf) < length:
                    if not self._fill():
                        self.log(f"the input ended inside a message ({len(self.buf)} of {length} bytes)")
                        return False
                self.ready += b"Content-Length: %d\r\n\r\n" % length + self.buf[:length]
                del self.buf[:length]
                return True
            self.log(f"dropped a message: {problem or 'a header block without Content-Length'}; "
                     "reading on from the next Content-Length header")
            if not self._resync():
                return False


def one_line_logs() -> None:
    """pygls's warnings and errors on stderr, the first line of each only."""
    import logging

    class FirstLine(logging.Formatter):
        def format(self, record):
            return f"scigame lsp: {record.levelname.lower()}: {record.getMessage().splitlines()[0][:300]}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(FirstLine())
    log = logging.getLogger("pygls")
    log.handlers, log.propagate = [handler], False
    log.setLevel(logging.WARNING)


def protocol_class():
    """pygls's LanguageServerProtocol, answering invalid params with a JSON-RPC error."""
    from pygls.exceptions import JsonRpcException
    from pygls.protocol import LanguageServerProtocol

    class _Ignored:
        jsonrpc = "ignored"  # handle_message drops a message of another version, with a log line

    class Protocol(LanguageServerProtocol):
        def structure_message(self, data):
            try:
                return super().structure_message(data)
            except JsonRpcException as error:  # invalid params (-32602), or a message pygls cannot read
                if isinstance(data, dict) and "id" in data and "method" in data:
                    self._send_response(data["id"], None, error.to_response_error())
                return _Ignored()
    return Protocol
