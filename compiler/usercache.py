"""The user's own cache folder for what the compiler can reuse between
processes (Lark's parse tables, units resolved by pint): files that only
make the next process faster, never change what it computes.

$XDG_CACHE_HOME/scigame, else ~/.cache/scigame; not the shared temporary
folder, where another user could plant a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional


def user_cache_folder() -> Optional[Path]:
    """The folder, made if needed; None where it cannot be made."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "scigame"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def numba_cache_folder(py_file: Path) -> Path:
    """Where numba keeps the disk cache of the functions a Python file
    defines, found without importing numba (a warm build asks whether the
    cache is there): $NUMBA_CACHE_DIR's folder for the file's directory
    when that is set (numba's UserProvidedCacheLocator), else __pycache__
    beside the file. A folder numba would not use only costs a rebuild."""
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        where = os.path.dirname(os.path.abspath(py_file))
        return Path(cache_dir) / f"{os.path.basename(where)}_{hashlib.sha1(where.encode()).hexdigest()}"
    return Path(py_file).parent / "__pycache__"


def read_json(name: str) -> dict:
    """A JSON object cached under `name`, or {} when there is none (or it is unreadable)."""
    folder = user_cache_folder()
    try:
        data = json.loads((folder / name).read_text(encoding="utf-8")) if folder else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(name: str, data: dict) -> None:
    """Replace the cached object atomically; a cache that cannot be written is skipped."""
    folder = user_cache_folder()
    if folder is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, folder / name)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
