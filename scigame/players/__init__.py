"""Players: `baseline` (built in), `replay:RUN_DIR`, and (with the LLM
issue) `openai:MODEL`. `make_player(spec)` turns a --player value into a
factory that creates one fresh player per episode."""

from __future__ import annotations

from .base import EpisodeState, Player, PlayerFactory, PlayerFault, PlayerGaveUp

__all__ = ["EpisodeState", "Player", "PlayerFactory", "PlayerFault", "PlayerGaveUp",
           "make_player", "PlayerSpecError"]


class PlayerSpecError(ValueError):
    """A --player value that names no player."""


def make_player(spec: str, **options) -> tuple[str, PlayerFactory]:
    """(stored player name, factory) for a --player value."""
    kind, _, arg = spec.partition(":")
    if kind == "baseline" and not arg:
        from .baseline import BaselinePlayer
        return "baseline", BaselinePlayer
    if kind == "replay":
        if not arg:
            raise PlayerSpecError("replay needs a run folder: --player replay:RUN_DIR")
        from .replay import ReplayLibrary
        library = ReplayLibrary(arg)
        return f"replay:{library.source_player}", library.factory
    raise PlayerSpecError(f"unknown player {spec!r}: use `baseline` or `replay:RUN_DIR`")
