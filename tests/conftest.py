"""Shared test fixtures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CARDS = REPO / "cards"

# The tests' own user cache (compiler/usercache.py), for this session and the CLI processes it
# starts: what they cache neither reads nor changes the developer's.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="scigame-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)  # removed with the session


@pytest.fixture(autouse=True)
def _no_remembered_endpoints():
    """Every test starts with no endpoint remembered to take structured
    outputs (scigame/llm/client.py, STRUCTURED_MEMO): a fake server's port
    is reused by a later test's, which may refuse them."""
    from scigame.compiler.usercache import user_cache_folder
    from scigame.llm.client import STRUCTURED_MEMO

    folder = user_cache_folder()
    if folder is not None:
        (folder / STRUCTURED_MEMO).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def bundled_cards() -> list[Path]:
    return sorted(CARDS.rglob("*.sci"))
