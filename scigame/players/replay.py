"""Replay: plays back the actions stored in another run (for tests and audits).

For each episode it finds the stored episode with the same card, world,
setting, protocol, budget and repetition, and returns that episode's
well-formed actions in order. If the recorded player produced a malformed
action that was then corrected, only the correction is replayed. Replayed
with `--tools python`, the tool calls the recorded player made before each
action are run again in the sandbox, on the replay's own observations, and
kept as tool turns (the same code on the same observations gives the same
output: the replay reproduces them).
"""

from __future__ import annotations

from pathlib import Path

from ..records import Action, Episode, EpisodeKey, Usage
from ..store import DB_NAME, Store
from .base import EpisodeState, Player, PlayerGaveUp, PlayerSpecError, Unusable


class ReplayLibrary:
    """The stored episodes of one run folder, by key (without the player)."""

    def __init__(self, folder: str, tools=None):
        self.tools = tools  # the ToolCaps of a replay with --tools python, else None
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
        self.actions: list[tuple[list, Action]] | None = None
        self._ran: list[Unusable] = []
        self.tool = None
        if library.tools is not None:
            from ..llm.tools import PythonTool
            self.tool = PythonTool(library.tools)

    def _load(self, state: EpisodeState) -> list[tuple[list, Action]]:
        """Each well-formed action with the tool calls made before it."""
        key = EpisodeKey.model_validate(state.episode)
        episode = self.library.by_key.get(key.replay_key())
        if episode is None:
            other = "python" if key.tools == "none" else "none"
            hint = (f" (the stored episode was played with --tools {other}: replay it with --tools {other})"
                    if key.model_copy(update={"tools": other}).replay_key() in self.library.by_key else "")
            raise PlayerGaveUp("replay: no stored episode for this key" + hint)
        out, calls = [], []
        for t in episode.turns:
            if t.tool is not None:
                calls.append(t.tool)
            elif t.action is not None and t.malformed is None:
                out.append((calls, t.action))
                calls = []
        return out

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        if self.actions is None:
            self.actions = self._load(state)
        if not self.actions:
            raise PlayerGaveUp("replay: the stored transcript has no more actions")
        calls, action = self.actions.pop(0)
        if self.tool is not None:
            self.tool.observations = state.observations
            for stored in calls:
                call = await self.tool.run(stored.code, stored.call_id)
                self._ran.append(Unusable(reply="", problem="", usage=Usage(), tool=call))
        return action, Usage()

    def take_unusable(self) -> list[Unusable]:
        taken, self._ran = self._ran, []
        return taken
