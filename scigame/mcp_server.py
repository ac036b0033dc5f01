"""`scigame mcp`: the episodes of a run plan, served to an external agent
over the Model Context Protocol (the `mcp` SDK's MCPServer).

The agent is a player like any other: the server runs the ordinary
evaluation (`runner.run_eval`, the same plan, run folder, protocol loop,
scoring and store as `scigame eval`), with a player whose every action comes
from the agent's tool calls (`McpPlayer`). So each action is checked by the
same rules, with the same messages, as an LLM player's (`llm.player.
parse_action`, then the protocol's format check and its breaks); the
experiments and the submission are the episode's transcript; a finished
episode is stored as the agent's (its name: `--player-name`, else
`mcp:<the client's name>`), and a second run of the same command resumes
where the first stopped. Episodes are served one at a time, in plan order.

Tools: `task` (the current episode's task, its observations and history),
`experiment`, `budget`, `submit`. A submitted predictor that does not
validate (an unknown op or variable, a wrong arity, a missing output) is
sent back with the validator's message and JSON path, at most
MAX_CORRECTIONS times in a row, like a malformed reply; after that it is
scored as it is (invalid).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from typing import Any, Optional

from mcp.server.mcpserver import Context, MCPServer

from .llm.player import parse_action, state_document
from .llm.prompts import PLAYER_SYSTEM, correction_message
from .players.base import MAX_CORRECTIONS, EpisodeState, Player, Unusable
from .predictor import PredictorInvalid, validate_predictor
from .records import Action, Usage
from .runner import EvalConfig, ResolvedRun, run_eval
from .store import Store

INSTRUCTIONS = (
    "scigame serves discovery games: in each episode a hidden law turns the inputs you choose into "
    "the outputs you observe. Call `task` to read the episode, `experiment` to observe (adaptive "
    "protocol), `budget` to see what is left, and `submit` to answer; then `task` again for the next "
    "episode. The rules of an action follow.\n\n" + PLAYER_SYSTEM)


class McpPlayer(Player):
    """A player whose actions arrive through the bridge (one per episode)."""

    def __init__(self, bridge: "Bridge", name: str):
        self.bridge, self.name = bridge, name
        self.unusable: list[Unusable] = []

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        return await self.bridge.await_action(self, state, None), Usage()

    async def reject(self, state: EpisodeState, action: Action, problem: str) -> tuple[Action, Usage]:
        return await self.bridge.await_action(self, state, problem), Usage()

    def take_unusable(self) -> list[Unusable]:
        taken, self.unusable = self.unusable, []
        return taken


@dataclass
class _Waiting:
    """The episode waiting for the agent's next action."""

    player: McpPlayer
    state: EpisodeState
    action: "asyncio.Future[Action]"
    refused_predictors: int = 0


class Bridge:
    """Between the tools' calls and the run: one tool call at a time hands
    an action to the waiting episode and waits for what comes of it."""

    def __init__(self, config: EvalConfig, player_name: Optional[str], resolved: Optional[ResolvedRun] = None):
        self.config, self.player_name, self.resolved = config, player_name, resolved
        self.run: Optional[asyncio.Task] = None
        self.waiting: Optional[_Waiting] = None
        self.event: Optional[asyncio.Future] = None  # what the current tool call waits for
        self.finished = ""  # set when the plan is played out (or the run failed)
        self.lock = asyncio.Lock()

    # -- the run's side ----------------------------------------------------
    async def await_action(self, player: McpPlayer, state: EpisodeState, problem: Optional[str]) -> Action:
        refused = self.waiting.refused_predictors if self.waiting and self.waiting.player is player else 0
        self.waiting = _Waiting(player, state, asyncio.get_running_loop().create_future(), refused)
        self._tell(("reject", problem) if problem is not None else ("turn", state))
        return await self.waiting.action

    def _tell(self, event: tuple) -> None:
        if self.event is not None and not self.event.done():
            self.event.set_result(event)

    def _progress(self, kind: str, done: int, total: int) -> None:
        if kind == "episode":
            self._tell(("stored", None))

    async def _play(self, name: str) -> None:
        def factory() -> Player:
            return McpPlayer(self, name)
        try:
            report = await run_eval(self.config, self._progress, player=(name, factory), resolved=self.resolved)
            self.finished = (f"every episode of the plan is finished: {report.played} played now, "
                             f"{report.skipped} earlier; run folder {report.folder}")
        except Exception as exc:  # noqa: BLE001 - the agent hears of it, the server stays up
            self.finished = f"the run stopped: {type(exc).__name__}: {exc}"
        self._tell(("done", self.finished))

    async def start(self, client_name: str) -> None:
        if self.run is None:
            name = self.player_name or f"mcp:{client_name or 'client'}"
            self.event = asyncio.get_running_loop().create_future()
            self.run = asyncio.create_task(self._play(name))
            await self.event  # the first episode's first turn, or the end

    async def next_event(self) -> tuple:
        self.event = asyncio.get_running_loop().create_future()
        return await self.event

    # -- the tools' side -----------------------------------------------------
    def view(self) -> dict:
        w = self.waiting
        if w is None or w.action.done():
            return {"finished": self.finished or "no episode is waiting"}
        doc = state_document(w.state)
        key = w.state.episode
        doc["episode"] = (f"{key.get('card')} {key.get('environment')} {key.get('setting')} {key.get('protocol')} "
                          f"rep {key.get('repetition')}")
        return doc

    async def send(self, data: dict) -> str:
        """Hand one action (as the LLM action format writes it) to the episode; what came of it."""
        w = self.waiting
        if w is None or w.action.done():
            return json.dumps({"error": self.finished or "no episode is waiting: call task"})
        raw = json.dumps(data)
        action, problem = parse_action(raw)
        if action is None:
            return self._unusable(w, raw, problem)
        problem = _predictor_problem(action, w.state) if w.refused_predictors < MAX_CORRECTIONS else ""
        if problem:
            w.refused_predictors += 1
            return self._unusable(w, raw, problem)
        event = asyncio.get_running_loop().create_future()
        self.event = event
        w.action.set_result(action)
        return await self._outcome(await event, w)

    @staticmethod
    def _unusable(w: _Waiting, raw: str, problem: str) -> str:
        w.player.unusable.append(Unusable(reply=raw, problem=problem, usage=Usage()))
        return json.dumps({"error": correction_message(problem)})

    async def _outcome(self, event: tuple, w: _Waiting) -> str:
        kind, value = event
        if kind == "reject":
            return json.dumps({"error": correction_message(value)})
        if kind == "turn":
            turn = value.turns[-1]
            return json.dumps({"oracle": turn.response.model_dump(exclude_none=True) if turn.response else None,
                               "protocol_breaks": turn.breaks, "experiments_left": value.steps_left,
                               "must_submit": value.must_submit})
        if kind == "stored":
            return json.dumps({"outcome": self._stored(w.state.episode), "next": "call task for the next episode"})
        return json.dumps({"finished": value})

    def _stored(self, key: dict) -> dict:
        from .records import EpisodeKey
        wanted = EpisodeKey.model_validate(key)
        with Store(self.config.out) as store:
            episode = next((e for e in store.episodes() if e.key == wanted), None)
        if episode is None or episode.outcome is None:
            return {"status": "unfinished", "error": episode.error if episode else "not stored"}
        o = episode.outcome
        return {"valid": o.valid, "reason": o.reason, "ps": o.ps, "weak_success": o.weak_success,
                "strict_success": o.strict_success, "failure_mode": o.failure_mode, "breaks": o.breaks}


def _predictor_problem(action: Action, state: EpisodeState) -> str:
    """The validator's message for a submitted predictor that does not validate, else ""."""
    if action.submission is None:
        return ""
    try:
        validate_predictor(action.submission.predictor, [i["name"] for i in state.task["inputs"]],
                           [o["name"] for o in state.task["outputs"]])
    except PredictorInvalid as exc:
        return f"the predictor is invalid: {exc}"
    return ""


def _client_name(ctx: Any) -> str:
    try:
        return str(ctx.session.client_params.client_info.name)[:80]
    except AttributeError:
        return ""


def build_server(config: EvalConfig, player_name: Optional[str] = None, resolved: Optional[ResolvedRun] = None):
    """The MCPServer with the four tools over one Bridge (`resolved`: the
    config's cards and window as the command found them)."""
    bridge = Bridge(replace(config, workers=1, concurrency=1, executor="local"), player_name, resolved)
    server = MCPServer("scigame", instructions=INSTRUCTIONS)

    async def ready(ctx: Context) -> None:
        await bridge.start(_client_name(ctx))

    @server.tool(structured_output=False)
    async def task(ctx: Context) -> str:
        """The current episode: its task (inputs, outputs, protocol rules), observations so far, the
        history of your actions and the oracle's answers, and the experiments left."""
        async with bridge.lock:
            await ready(ctx)
            if bridge.waiting is None or bridge.waiting.action.done():
                if not bridge.finished:
                    await bridge.next_event()
            return json.dumps(bridge.view())

    @server.tool(structured_output=False)
    async def budget(ctx: Context) -> str:
        """Experiments left in the current episode and whether you must submit now."""
        async with bridge.lock:
            await ready(ctx)
            view = bridge.view()
            return json.dumps({k: view[k] for k in ("experiments_left", "must_submit", "finished") if k in view})

    @server.tool(structured_output=False)
    async def experiment(ctx: Context, inputs: Any, outputs: Any, hypotheses: Any, predictions: Any,
                         notes: str = "") -> str:
        """Run one experiment: `inputs` {input: number}, the `outputs` to observe, your `hypotheses`
        [{statement, confidence}] (at least two, confidences summing to 1) and `predictions`, one
        {output: number} per hypothesis. Returns the observation or why it was refused."""
        async with bridge.lock:
            await ready(ctx)
            return await bridge.send({"hypotheses": hypotheses, "experiment": {
                "inputs": inputs, "outputs": outputs, "predictions": predictions}, "submission": None, "notes": notes})

    @server.tool(structured_output=False)
    async def submit(ctx: Context, predictor: Any, explanation: str, applicability: str,
                     hypotheses: Any = None, selected: int = 0, notes: str = "") -> str:
        """Submit the final answer: `predictor` {output: tree} (a tree is a number, {"var": input} or
        {"op": name, "args": [trees]}), a scientific `explanation`, the `applicability` conditions, and
        optionally your `hypotheses` with the `selected` one (default: one hypothesis, the explanation,
        confidence 1). Returns the scored outcome."""
        async with bridge.lock:
            await ready(ctx)
            if hypotheses is None:
                hypotheses = [{"statement": explanation[:500], "confidence": 1.0}]
            return await bridge.send({"hypotheses": hypotheses, "experiment": None, "notes": notes, "submission": {
                "selected": selected, "predictor": predictor, "explanation": explanation,
                "applicability": applicability}})

    return server
