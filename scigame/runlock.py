"""One `scigame eval` per run folder at a time.

The first eval takes an exclusive lock on `RUN/.lock` (fcntl.flock, so the
lock ends with the process however it ends: exit, crash or SIGKILL) and
writes its process id there; a second eval of the same folder stops before
it compiles or plays anything, naming the holder. No episode is played twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Iterator

from .errors import UserFacingError

LOCK_NAME = ".lock"


class RunFolderBusy(UserFacingError):
    """Another process holds the run folder's lock."""


@contextlib.contextmanager
def hold_run_lock(folder: Path) -> Iterator[None]:
    """Hold the run folder's lock for the duration of the block."""
    path = Path(folder) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunFolderBusy(f"{folder} is in use by another scigame eval (pid {holder}); wait for it "
                                "to finish or stop it, or use another --out folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock
