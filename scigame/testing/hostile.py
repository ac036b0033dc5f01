"""A hostile endpoint: what an OpenAI-compatible server can send that no
honest one does. `Reply(hostile=NAME)` makes the fake server answer with
one of these behaviours (each a flag; `HOSTILE` lists them), so tests can
show that the client bounds each one and blames the endpoint, and that
every answered call still reaches the attempt archive.

    retry_after_huge   429 with `Retry-After: 1e9`
    retry_after_inf    429 with `Retry-After: inf`
    retry_after_nan    429 with `Retry-After: nan`
    huge_body          200 whose body is a completion padded past 24 MiB
                       (streamed, never held in memory)
    huge_body_chunked  the same without Content-Length (chunked transfer)
    deep_body          200 whose body nests an array 100,000 levels deep
    usage_1e400        a completion whose `usage.prompt_tokens` is 1e400
    usage_10e30        ... is 10^30 (an integer no SQLite column holds)
    usage_nan          ... is NaN, completion_tokens -5, cached_tokens "7"
    lone_surrogate     a completion whose content holds a lone "\\ud800"
    escape_content     a completion whose content holds terminal escapes
    escape_400         a 400 whose error message holds terminal escapes
    huge_error         a 400 whose error body is padded past 24 MiB (streamed)

A behaviour that answers 200 with a readable completion counts in
`FakeOpenAI.completions` (what the client must archive).
"""

from __future__ import annotations

import json
from typing import Iterator

HOSTILE = ("retry_after_huge", "retry_after_inf", "retry_after_nan", "huge_body", "huge_body_chunked",
           "deep_body", "usage_1e400", "usage_10e30", "usage_nan", "lone_surrogate", "escape_content",
           "escape_400", "huge_error")

#: Readable completions: the client must archive each of these calls.
ANSWERED = ("usage_1e400", "usage_10e30", "usage_nan", "lone_surrogate", "escape_content")

HUGE_BYTES = 24 * 2 ** 20
DEEP = 100_000
#: Terminal control sequences: set the window title, clear the screen, a hyperlink, a bell.
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\\x07\x9b1m"

_RETRY_AFTER = {"retry_after_huge": "1e9", "retry_after_inf": "inf", "retry_after_nan": "nan"}


def retry_after(name: str) -> str | None:
    """The Retry-After header of a 429 behaviour, else None."""
    return _RETRY_AFTER.get(name)


def error_message(name: str) -> str | None:
    """The error message of a 400 behaviour, else None."""
    return f"bad request {ESCAPES} (scripted by fake-openai)" if name == "escape_400" else None


def body(name: str, completion: dict) -> bytes | None:
    """The 200 body of a one-piece behaviour (None for the streamed ones)."""
    if name == "deep_body":
        return (json.dumps(completion)[:-1] + ', "padding": ' + "[" * DEEP + "]" * DEEP + "}").encode()
    usage = completion.get("usage") or {}
    completion["usage"] = usage
    if name == "usage_1e400":
        return json.dumps(completion).replace(f'"prompt_tokens": {usage["prompt_tokens"]}',
                                              '"prompt_tokens": 1e400', 1).encode()
    if name == "usage_10e30":
        usage["prompt_tokens"] = 10 ** 30
        usage["completion_tokens"] = 10 ** 30
    elif name == "usage_nan":
        usage.update(prompt_tokens=float("nan"), completion_tokens=-5, prompt_tokens_details={"cached_tokens": "7"})
    elif name == "lone_surrogate":
        message = completion["choices"][0]["message"]
        text = json.dumps(message.get("content") or "")
        return json.dumps(completion).replace(text, text[:-1] + '\\ud800 \\udfff"', 1).encode()
    elif name == "escape_content":
        message = completion["choices"][0]["message"]
        content = message.get("content") or ""
        if content.rstrip().endswith("}") and '"notes": "' in content:
            message["content"] = content.replace('"notes": "', '"notes": "' + ESCAPES, 1)
        else:
            message["content"] = content + ESCAPES
    return json.dumps(completion).encode()


def streamed(name: str, completion: dict) -> Iterator[bytes]:
    """The pieces of a huge body: a valid completion (or error), padded past HUGE_BYTES."""
    head = json.dumps(completion)[:-1].encode() + b', "padding": "'
    yield head
    piece = b"x" * (1 << 20)
    for _ in range(HUGE_BYTES // len(piece) + 1):
        yield piece
    yield b'"}'


def streamed_length(completion: dict) -> int:
    return sum(len(p) for p in streamed("huge_body", completion))
