"""The player interface: one small async surface every player implements.

A runner creates a fresh player per episode (players may keep state across
the turns of one episode, never across episodes) and calls `act` until the
player submits:

    player = factory()
    action, usage = await player.act(state)
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..records import Action, Observation, ToolCall, Turn, Usage

#: How often, in one turn, a reply is sent back with its problems before the
#: player is done: the runner's corrections of a malformed action (`reject`)
#: and an LLM conversation's corrections of an unusable reply
#: (`scigame.llm.conversation`) alike.
MAX_CORRECTIONS = 2


@dataclass
class EpisodeState:
    """Everything a player may know at its turn."""

    task: dict[str, Any]  # the public view plus protocol rules (see protocols.task_view)
    setting: str  # identification | discovery
    protocol: str  # prior | fixed | adaptive
    threshold: float  # τ: submit only with a selected confidence >= τ (adaptive)
    observations: list[Observation]  # preset (fixed) and gathered (adaptive) so far
    turns: list[Turn]  # every earlier turn, with the oracle's responses
    must_submit: bool  # prior/fixed always; adaptive once the step budget is spent
    steps_left: Optional[int]  # experiments still allowed (adaptive), None when unbounded
    seed: int  # for players that randomise: same seed, same episode
    episode: dict[str, Any] = field(default_factory=dict)  # key fields (for replay and logs)


class PlayerSpecError(ValueError):
    """A --player value that names no player (scigame.players.make_player, replay:RUN_DIR)."""


class PlayerFault(RuntimeError):
    """Infrastructure trouble (network, rate limits) that outlasted retries:
    the episode is left unfinished, not failed, so a resume plays it again.
    `usage` carries what the episode had already spent, if known."""

    def __init__(self, message: str, usage=None):
        super().__init__(message)
        self.usage = usage


class PlayerGaveUp(RuntimeError):
    """The player produced no usable action (after the allowed corrections).
    `usage` carries what the failed attempts cost."""

    def __init__(self, message: str, usage=None):
        super().__init__(message)
        self.usage = usage


@dataclass
class Unusable:
    """A reply a player got that held no usable action (an LLM's unparsable
    answer), kept on the record as a turn marked malformed; or, with `tool`
    set and no problem, a tool call the player made on its way to an action
    (`--tools python`), kept as a tool turn."""

    reply: str
    problem: str
    usage: Usage
    tool: Optional[ToolCall] = None

    def turn(self, index: int) -> Turn:
        """The record of it, as turn `index` of the episode."""
        return Turn(index=index, malformed=self.problem or None, reply=self.reply, usage=self.usage, tool=self.tool)


class Player(abc.ABC):
    """One player in one episode."""

    #: Stored with every episode; stable for a given configuration.
    name: str = "player"

    @abc.abstractmethod
    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        """The next action. Raise PlayerFault for infrastructure trouble,
        PlayerGaveUp when no usable action can be produced."""

    async def reject(self, state: EpisodeState, action: Action, problem: str) -> tuple[Action, Usage]:
        """Called when `action` breaks the action format (not a protocol
        rule); the default gives up. LLM players retry with the problem."""
        raise PlayerGaveUp(problem)

    def take_unusable(self) -> list[Unusable]:
        """Unusable replies since the last call (the runner records each as a
        malformed turn, with its usage); the default has none."""
        return []

    async def close(self) -> None:
        """Release resources (HTTP clients)."""


PlayerFactory = Callable[[], Player]
