"""A player for tests of where episodes run (worker processes, Ray tasks).

It is defined at module level, so that a pool or a Ray worker can import
it, and it says on the record which process played each episode.
"""

from __future__ import annotations

import os
import time

from ..players.base import EpisodeState, Player
from ..records import Action, Hypothesis, Submission, Usage


class WhereaboutsPlayer(Player):
    """Submits `output = 0` for every output at once, with one hypothesis
    of confidence 1; its notes say `pid <process id>`. Each episode is
    billed `COST_USD` dollars, so `--max-cost` has something to count.
    `functools.partial(WhereaboutsPlayer, delay=s)` is a factory whose
    players block for `s` seconds first."""

    name = "whereabouts"
    COST_USD = 1.0

    def __init__(self, delay: float = 0.0):
        self.delay = delay  # seconds of blocking work per episode, like a CPU-bound player

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        if self.delay:
            time.sleep(self.delay)
        predictor = {o["name"]: 0.0 for o in state.task["outputs"]}
        action = Action(hypotheses=[Hypothesis(statement="every output is 0", confidence=1.0)],
                        submission=Submission(selected=0, predictor=predictor, explanation="a guess",
                                              applicability="nowhere in particular"),
                        notes=f"pid {os.getpid()}")
        return action, Usage(calls=1, cost_usd=self.COST_USD)
