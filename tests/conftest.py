"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CARDS = REPO / "cards"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def bundled_cards() -> list[Path]:
    return sorted(CARDS.rglob("*.sci"))
