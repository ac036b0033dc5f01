"""Replay: plays back the actions stored in another run (for tests and audits).

For each episode it finds the stored episode with the same card, world,
setting, protocol, budget and repetition, and returns that episode's
well-formed actions in order. If the recorded player produced a malformed
action that was then corrected, only the correction is replayed.
"""

from __future__ import annotations

from pathlib import Path

from ..records import Action, Episode, EpisodeKey, Usage
from ..store import DB_NAME, Store
from .base import EpisodeState, Player, PlayerGaveUp, PlayerSpecError


class ReplayLibrary:
    """The stored episodes of one run folder, by key (without the player)."""

    def __init__(self, folder: str):
        path = Path(folder)
        if not (path / DB_NAME).exists():
            raise PlayerSpecError(f"replay: {folder} holds no {DB_NAME}")
        with Store(path) as store:
            episodes = [e for e in store.episodes() if e.status == "finished"]
        players = sorted({e.key.player for e in episodes})
        if len(players) > 1:
            raise PlayerSpecError(f"replay: {folder} holds episodes of several players: {', '.join(players)}")
        self.source_player = players[0] if players else "none"
        self.by_key: dict[tuple, Episode] = {}
        for e in episodes:
            self.by_key[e.key.replay_key()] = e

    def factory(self) -> "ReplayPlayer":
        return ReplayPlayer(self)


class ReplayPlayer(Player):
    name = "replay"

    def __init__(self, library: ReplayLibrary):
        self.library = library
        self.actions: list[Action] | None = None

    def _load(self, state: EpisodeState) -> list[Action]:
        episode = self.library.by_key.get(EpisodeKey.model_validate(state.episode).replay_key())
        if episode is None:
            raise PlayerGaveUp("replay: no stored episode for this key")
        return [t.action for t in episode.turns if t.action is not None and t.malformed is None]

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        if self.actions is None:
            self.actions = self._load(state)
        if not self.actions:
            raise PlayerGaveUp("replay: the stored transcript has no more actions")
        return self.actions.pop(0), Usage()
