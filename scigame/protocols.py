"""Playing one episode under a protocol, and judging its outcome.

    Prior-only  no observations; the player submits at once
    Fixed       the first B points of the card's design, observed up front
    Adaptive    the player proposes experiments one at a time; it reports at
                least two hypotheses with confidences (>= 0, summing to 1) and
                a prediction of every requested output under each; it may
                propose only while every confidence is below τ and must
                submit with a selected confidence >= τ

A turn that breaks a protocol rule is recorded and the episode goes on: the
final predictor still gets its PS, but the episode fails ESR. A turn that
breaks the action format is handed back to the player (`Player.reject`).
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from typing import Optional

from .card import CompiledCard
from .controls import Presentation
from .episode_context import SLOT_RELEASE
from .failure import classify_failure
from .oracle import Rejection
from .players.base import (MAX_CORRECTIONS, EpisodeState, Player, PlayerFactory, PlayerFault,
                           PlayerGaveUp)
from .records import (CONFIDENCE_SLACK, Action, Episode, EpisodeKey, OracleResponse,
                      Outcome, Turn, Usage)

#: Turns that ask for experiments where the protocol allows none, before giving up.
MAX_REFUSED = 3
#: Hard stop for an adaptive episode with no step cap (a runaway player).
UNBOUNDED_CAP = 1000

RULES = {
    "prior": ("You get no observations. Submit your final answer in your first action, from what "
              "you know and what the task description says."),
    "fixed": ("You are given {budget} observations, made at preset inputs, before your first "
              "action. You cannot request more. Submit your final answer in your first action."),
    "adaptive": ("Run experiments one at a time. Every action reports at least two hypotheses with "
                 "confidences that are >= 0 and sum to 1, and either proposes one experiment (inputs "
                 "within their domains, the outputs to observe, and your prediction of each output "
                 "under every hypothesis) or submits. You may propose only while every confidence is "
                 "below {threshold}; submit once the hypothesis you select has confidence >= "
                 "{threshold}.{cap}"),
}


def task_view(card: CompiledCard, env: str, setting: str, protocol: str, budget: int,
              max_steps: Optional[int]) -> dict:
    """The public view of the card plus the protocol's rules."""
    view = card.public_view(env, setting)
    view.pop("adaptive_threshold", None)
    view.pop("max_steps", None)
    cap = f" You may run at most {max_steps} experiments." if max_steps else ""
    view.update({
        "protocol": protocol,
        "threshold": card.data.threshold,
        "budget": budget if protocol == "fixed" else (max_steps or 0) if protocol == "adaptive" else 0,
        "max_steps": max_steps if protocol == "adaptive" else None,
        "rules": RULES[protocol].format(budget=budget, threshold=card.data.threshold, cap=cap),
    })
    return view


NOISE_RULE = (" Observations carry measurement noise where an output's `noise` says so: gaussian, "
              "with a standard deviation of abs + rel·|value| (in the output's unit); repeating an "
              "experiment gives a fresh reading.")


def action_problem(action: Action, card, protocol: str) -> Optional[str]:
    """Why an action breaks the action format (not a protocol rule), or None."""
    if not action.hypotheses:
        return "an action must report at least one hypothesis"
    total = sum(h.confidence for h in action.hypotheses)
    if abs(total - 1.0) > CONFIDENCE_SLACK:
        return f"the confidences sum to {total:.6g}, not 1"
    if action.submission is not None:
        s = action.submission
        if s.selected >= len(action.hypotheses):
            return f"`selected` is {s.selected}, but there are only {len(action.hypotheses)} hypotheses"
        if not isinstance(s.predictor, dict):
            return "the predictor must be an object mapping each output to a tree"
        return None
    ex = action.experiment
    unknown = [o for o in ex.outputs if o not in card.output_names]
    if not ex.outputs:
        return "an experiment must request at least one output"
    if unknown:
        return f"unknown output(s) requested: {', '.join(unknown)}"
    return None


def protocol_breaks(action: Action, state: EpisodeState) -> list[str]:
    """The protocol rules an (already well-formed) action breaks."""
    breaks = []
    top = max(h.confidence for h in action.hypotheses)
    tau = state.threshold
    if action.experiment is not None:
        ex = action.experiment
        if state.protocol != "adaptive":
            breaks.append(f"proposed an experiment under the {state.protocol} protocol")
            return breaks
        if state.must_submit:
            breaks.append("proposed an experiment after the step budget was spent")
        if len(action.hypotheses) < 2:
            breaks.append("reported fewer than two hypotheses while experimenting")
        if top >= tau:
            breaks.append(f"proposed an experiment with a confidence of {top:g} >= τ = {tau:g}")
        if len(ex.predictions) != len(action.hypotheses):
            breaks.append(f"gave predictions for {len(ex.predictions)} of {len(action.hypotheses)} hypotheses")
        for i, pred in enumerate(ex.predictions):
            missing = [o for o in ex.outputs if o not in pred]
            bad = [o for o in ex.outputs if o in pred and not math.isfinite(pred[o])]
            if missing:
                breaks.append(f"hypothesis {i} has no prediction for {', '.join(missing)}")
            if bad:
                breaks.append(f"hypothesis {i} predicts a non-finite value for {', '.join(bad)}")
    elif state.protocol == "adaptive":
        selected = action.hypotheses[action.submission.selected].confidence
        if selected < tau:
            breaks.append(f"submitted with a selected confidence of {selected:g} < τ = {tau:g}")
    return breaks


@dataclass
class _Play:
    """One episode in play: what the player is shown, the state it acts on,
    the record so far and the running counts."""

    shown: Presentation
    state: EpisodeState
    episode: Episode
    player: Player
    cap: Optional[int]  # the adaptive step cap (None: no cap, or not adaptive)
    usage: Usage = field(default_factory=Usage)
    breaks: list[str] = field(default_factory=list)
    experiments: int = 0
    refused: int = 0
    submission: Optional[Action] = None

    @property
    def protocol(self) -> str:
        return self.state.protocol

    @property
    def env(self) -> str:
        return self.episode.key.environment


def _setup(card: CompiledCard, key: EpisodeKey, factory: PlayerFactory, seed: int,
           max_steps: Optional[int]) -> _Play:
    """The task the player is shown, its initial state and the empty record."""
    setting, protocol = key.setting, key.protocol
    cap = max_steps if protocol == "adaptive" else None
    shown = Presentation(card, key.controls, seed)
    task = shown.view(task_view(card, key.environment, setting, protocol, key.budget, cap))
    if any(o["noise"] for o in task["outputs"]):
        task["rules"] += NOISE_RULE
    given = shown.preset(key.environment, key.budget) if protocol == "fixed" else []
    state = EpisodeState(task=task, setting=setting, protocol=protocol, threshold=card.data.threshold,
                         observations=list(given), turns=[], must_submit=protocol != "adaptive",
                         steps_left=cap, seed=seed, episode=key.model_dump())
    episode = Episode(key=key, collection=card.data.collection, seed=seed, task=task, given=given)
    return _Play(shown=shown, state=state, episode=episode, player=factory(), cap=cap)


async def play_episode(card: CompiledCard, key: EpisodeKey, factory: PlayerFactory, seed: int,
                       max_steps: Optional[int] = None, judge_with=None) -> Episode:
    """Play one isolated episode to its end and score it.

    Returns an Episode with status "unfinished" (and no outcome) when the
    player hit an infrastructure fault: a resume plays it again. The
    outcome is `await judge_with(*judge's arguments)` (an executor's process
    pool, scigame/executors.py), else `judge` in a thread.
    """
    play = _setup(card, key, factory, seed, max_steps)
    episode = play.episode
    started = time.perf_counter()
    try:
        await _play_turns(play)
    except PlayerFault as fault:
        spent = play.usage + fault.usage if fault.usage is not None else play.usage
        return episode.model_copy(update={"status": "unfinished", "error": str(fault), "spent": spent})
    except PlayerGaveUp as gave_up:
        episode.error = str(gave_up)
        if gave_up.usage is not None:
            play.usage = play.usage + gave_up.usage
    finally:
        await play.player.close()
    wall = time.perf_counter() - started
    steps = play.experiments if key.protocol == "adaptive" else len(episode.given)
    args = (play.shown, key.environment, play.submission, play.breaks, steps, wall, play.usage)
    release = SLOT_RELEASE.get()
    if release is not None:  # the endpoint is done with this episode: its slot may go to the next
        release()
    episode.outcome = await (judge_with(*args) if judge_with else asyncio.to_thread(judge, *args))
    episode.spent = play.usage
    return episode


async def _play_turns(play: _Play) -> None:
    """Turns until a submission (kept in `play.submission`); PlayerGaveUp
    when the player will not get there."""
    hard_cap = (play.cap or UNBOUNDED_CAP) + MAX_REFUSED + 1
    for index in range(hard_cap + 1):
        action, turn = await _usable_action(play, index)
        turn_breaks = protocol_breaks(action, play.state)
        play.breaks.extend(turn_breaks)
        if action.submission is not None:
            play.episode.turns.append(turn.model_copy(update={"breaks": turn_breaks}))
            play.submission = action
            return
        response = _answer(play, action)
        play.episode.turns.append(turn.model_copy(update={"breaks": turn_breaks, "response": response}))
        if play.refused >= MAX_REFUSED:
            raise PlayerGaveUp("kept proposing experiments where none are allowed")
        play.state.turns = play.episode.turns
    raise PlayerGaveUp(f"no submission after {hard_cap} turns")


async def _ask(play: _Play, index: int, ask) -> tuple[Action, Turn]:
    """One call of the player (`ask`), its unusable replies kept as turns
    marked malformed, its usage counted."""
    try:
        action, used = await ask
    finally:
        for bad in play.player.take_unusable():
            play.episode.turns.append(bad.turn(index))
            play.usage = play.usage + bad.usage
    play.usage = play.usage + used
    return action, Turn(index=index, action=action, usage=used)


async def _usable_action(play: _Play, index: int) -> tuple[Action, Turn]:
    """The player's next well-formed action, handing a malformed one back at
    most MAX_CORRECTIONS times (each kept as a malformed turn)."""
    action, turn = await _ask(play, index, play.player.act(play.state))
    for corrections in range(MAX_CORRECTIONS + 1):
        problem = action_problem(action, play.shown, play.protocol)
        if problem is None:
            return action, turn
        play.episode.turns.append(turn.model_copy(update={"malformed": problem}))
        if corrections == MAX_CORRECTIONS:
            break
        play.state.turns = play.episode.turns
        action, turn = await _ask(play, index, play.player.reject(play.state, action, problem))
    raise PlayerGaveUp(f"malformed action after {MAX_CORRECTIONS} corrections: {problem}")


def _answer(play: _Play, action: Action) -> OracleResponse:
    """The oracle's answer to a proposed experiment: an observation, the
    reasons it rejects the inputs, or a refusal where no experiments are
    allowed (counted in `play.refused`)."""
    state = play.state
    if play.protocol != "adaptive" or state.must_submit:
        play.refused += 1
        return OracleResponse(rejected=["no experiments are allowed now: submit your answer"])
    play.experiments += 1
    ex = action.experiment
    try:
        response = OracleResponse(observation=play.shown.observe(play.env, ex.inputs, ex.outputs,
                                                                 play.experiments - 1))
        state.observations.append(response.observation)
    except Rejection as rej:
        response = OracleResponse(rejected=rej.reasons)
    if play.cap is not None:
        state.steps_left = play.cap - play.experiments
        state.must_submit = state.steps_left <= 0
    return response


def judge(shown: Presentation, env: str, action: Optional[Action], breaks: list[str], steps: int,
          wall: float, usage: Usage) -> Outcome:
    """Score the submission (in the player's names, under the episode's
    controls) and decide success and failure mode."""
    protocol_ok = not breaks
    if action is None:
        return Outcome(submitted=False, valid=False, reason="no submission", ps=0.0, weak=False,
                       strict=False, protocol_ok=protocol_ok, breaks=breaks, weak_success=False,
                       strict_success=False, form_credit=0.0, failure_mode="no_usable_answer",
                       steps=steps, wall_time=wall, usage=usage)
    score, target, predictor = shown.score(action.submission.predictor, env)
    mode = classify_failure(target, env, predictor, score)
    if mode is None and not protocol_ok and score.weak:
        mode = "protocol_violation"  # a passing answer reached by breaking the protocol
    if not protocol_ok or score.strict is False:
        strict_success: Optional[bool] = False
    else:
        strict_success = score.strict  # True, or None when sympy could not decide
    return Outcome.of(score, protocol_ok=protocol_ok, breaks=breaks, weak_success=score.weak and protocol_ok,
                      strict_success=strict_success, failure_mode=mode, steps=steps, wall_time=wall, usage=usage)
