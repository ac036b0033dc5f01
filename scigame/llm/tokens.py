"""Token estimates for endpoints that report no `usage`.

A budget (`--max-cost`) must still hold against a server that leaves
`usage` out of its answers, so such calls are counted with an estimate and
marked `estimated`. With the optional `tiktoken` package (the `tokens`
extra) and its `o200k_base` encoding already in tiktoken's local cache, the
estimate is that encoding's count; otherwise it is one token per four bytes
of UTF-8 text, rounded up (close to English text under OpenAI's tokenizers,
and never zero for a non-empty text). Nothing is downloaded: a run must not
hang on a blocked network to count tokens.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Union

#: The encoding of current OpenAI chat models, and where tiktoken fetches it from.
ENCODING = "o200k_base"
_ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
#: Tokens a chat message costs beyond its text (role and separators).
PER_MESSAGE = 4


def _cached_encoding_file() -> Path:
    """Where tiktoken keeps the encoding it downloaded (its own cache rule)."""
    base = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") or \
        os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(base) / hashlib.sha1(_ENCODING_URL.encode()).hexdigest()


@lru_cache(maxsize=1)
def _encoder():
    try:
        import tiktoken
    except ImportError:
        return None
    if not _cached_encoding_file().is_file():
        return None  # tiktoken would download it: not during a run
    try:
        return tiktoken.get_encoding(ENCODING)
    except Exception:  # a damaged cache file: fall back to the byte estimate
        return None


def TOKENIZER_NOTE() -> str:  # noqa: N802 - reads like the constant it describes
    return f"tiktoken {ENCODING}" if _encoder() is not None else "about 4 bytes of text per token"


def _count(text: str) -> int:
    enc = _encoder()
    if enc is not None:
        return len(enc.encode(text, disallowed_special=()))
    return -(-len(text.encode("utf-8")) // 4)


def estimate_tokens(value: Union[str, list[dict]]) -> int:
    """Estimated tokens of a reply text, or of a list of chat messages."""
    if isinstance(value, str):
        return _count(value)
    total = 0
    for message in value:
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        total += PER_MESSAGE + _count(str(content or ""))
    return total
