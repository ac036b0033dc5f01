"""The one way a command replaces a file: write a temporary file beside it,
then rename it over the old one (`os.replace`, atomic on POSIX). A command
killed mid-write leaves the old file whole, never a truncated one; a
reader sees the old content or the new, nothing between.

A leaf module (standard library only): the compiler, the runtime and the
report all call it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def write_atomic(path: str | Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Replace `path` with `data` (text is encoded with `encoding`); the
    folder is created if needed. The file gets the permissions a plain
    write would give it (mkstemp's own are 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
