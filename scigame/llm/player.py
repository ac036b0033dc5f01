"""`openai:MODEL`: a player that asks an LLM for each action.

Each turn sends the rules (system message) and one user message holding the
whole situation as JSON: the task view with its protocol rules, every
observation so far, and the history of earlier actions and the oracle's
answers. The reply must be one JSON action; structured outputs against the
card's action schema are requested where the endpoint supports them. A reply
that is not a usable action is returned to the model with the reason, at
most MAX_CORRECTIONS times, before the episode ends without an answer (the
loop is `conversation.converse`). An endpoint fault becomes a PlayerFault:
the episode is left unfinished.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Optional

from ..compiler.predictor_schema import predictor_schema_for
from ..identity_memo import IdentityMemo
from ..players.base import EpisodeState, Player, PlayerFault, PlayerGaveUp, Unusable
from ..records import Action, Usage
from .client import ChatClient, EndpointFault
from .conversation import MAX_CORRECTIONS, converse, model_check
from .prompts import correction_message, player_system, state_text, tool_note
from .tools import PythonTool, ToolCaps


def action_schema(task: dict) -> dict:
    """JSON Schema of one action for this task (structured outputs). Built
    once per pair of name lists and shared: callers must not modify it."""
    law = (task.get("system") or {}).get("law")  # a system card: the predictor is the law, in its arguments
    submit = (tuple(a["name"] for a in law["arguments"]), (law["name"],)) if law else None
    return _action_schema(tuple(i["name"] for i in task["inputs"]), tuple(o["name"] for o in task["outputs"]), submit)


@lru_cache(maxsize=256)
def _action_schema(inputs: tuple[str, ...], outputs: tuple[str, ...], submit=None) -> dict:
    inputs, outputs = list(inputs), list(outputs)
    pred = predictor_schema_for(*(map(list, submit) if submit else (inputs, outputs)))
    defs = pred.pop("$defs")
    pred.pop("$schema", None)
    number_map = {"type": "object", "properties": {o: {"type": "number"} for o in outputs},
                  "required": outputs, "additionalProperties": False}
    return {
        "type": "object",
        "properties": {
            "hypotheses": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {"statement": {"type": "string"}, "confidence": {"type": "number"}},
                "required": ["statement", "confidence"], "additionalProperties": False}},
            "experiment": {"anyOf": [{"type": "null"}, {
                "type": "object",
                "properties": {
                    "inputs": {"type": "object", "properties": {i: {"type": "number"} for i in inputs},
                               "required": inputs, "additionalProperties": False},
                    "outputs": {"type": "array", "items": {"type": "string", "enum": outputs}, "minItems": 1},
                    "predictions": {"type": "array", "items": number_map},
                },
                "required": ["inputs", "outputs", "predictions"], "additionalProperties": False}]},
            "submission": {"anyOf": [{"type": "null"}, {
                "type": "object",
                "properties": {"selected": {"type": "integer", "minimum": 0}, "predictor": pred,
                               "explanation": {"type": "string"}, "applicability": {"type": "string"}},
                "required": ["selected", "predictor", "explanation", "applicability"],
                "additionalProperties": False}]},
            "notes": {"type": "string"},
        },
        "required": ["hypotheses", "experiment", "submission", "notes"],
        "additionalProperties": False,
        "$defs": defs,
    }


#: How much of a tool call's output later turns show again in their history.
HISTORY_OUTPUT = 4000


def _history_entry(t) -> dict[str, Any]:
    """One earlier turn as the player is shown it."""
    entry: dict[str, Any] = {"turn": t.index}
    if t.action is not None:
        entry["action"] = t.action.model_dump(exclude={"raw"}, exclude_none=True)
    if t.malformed:
        entry["unusable"] = t.malformed
    if t.response is not None:
        entry["oracle"] = t.response.model_dump(exclude_none=True)
    if t.breaks:
        entry["protocol_breaks"] = t.breaks
    if t.tool is not None:
        entry["tool_call"] = t.tool.model_dump(include={"name", "code", "error"})
        out = t.tool.output
        entry["tool_call"]["output"] = out if len(out) <= HISTORY_OUTPUT else (
            out[:HISTORY_OUTPUT] + f"\n[{len(out) - HISTORY_OUTPUT} more characters shown at the call]")
    return entry


def state_document(state: EpisodeState) -> dict[str, Any]:
    """The JSON the player is shown each turn."""
    return {
        "task": state.task,
        "observations": [o.model_dump() for o in state.observations],
        "history": [_history_entry(t) for t in state.turns],
        "must_submit": state.must_submit,
        "experiments_left": state.steps_left,
    }


#: Texts a StateWriter keeps: beyond them (a very long episode) it writes them again.
STATE_TEXTS_KEPT = 100_000


class StateWriter:
    """`json.dumps(state_document(state))` for one episode's successive
    states, each turn's and observation's JSON written once: an episode's
    earlier turns and observations are the same objects at every later turn
    (the protocol appends new ones and changes none), so re-serialising the
    whole history every call made a turn's CPU grow with the episode. Text
    is kept per object (held, so its identity stays its own); a new object
    is written when it first appears."""

    def __init__(self) -> None:
        self._written: IdentityMemo[str] = IdentityMemo(STATE_TEXTS_KEPT)

    def _text(self, obj: Any, write) -> str:
        return self._written.get(obj, lambda o: json.dumps(write(o)))

    def __call__(self, state: EpisodeState) -> str:
        task = self._text(state.task, lambda t: t)
        observations = ", ".join(self._text(o, _dump) for o in state.observations)
        history = ", ".join(self._text(t, _history_entry) for t in state.turns)
        # the keys and their order are state_document's (tests/test_llm_request.py compares the two)
        return (f'{{"task": {task}, "observations": [{observations}], "history": [{history}], '
                f'"must_submit": {json.dumps(state.must_submit)}, '
                f'"experiments_left": {json.dumps(state.steps_left)}}}')


def _dump(model) -> dict[str, Any]:
    return model.model_dump()


#: Reads a reply's JSON object as an action, keeping the reply text as `raw`.
parse_action = model_check(Action, "action", extra=lambda text: {"raw": text})


def _correction(problems: list[str]) -> str:
    return correction_message("; ".join(problems))


class OpenAIPlayer(Player):
    """One LLM player for one episode; with `tools`, one that may call
    `run_python` (scigame.llm.tools) on its way to each action."""

    def __init__(self, client: ChatClient, tools: Optional[ToolCaps] = None):
        self.client = client
        self.name = f"openai:{client.config.model}"
        self._last_messages: list[dict] = []
        self._unusable: list[Unusable] = []
        self.tool = PythonTool(tools) if tools is not None else None
        # the system message is player_system(task) (a system card's task says more) and this
        self.tool_note = "" if tools is None else tool_note(tools.calls, tools.cpu_seconds, tools.wall_seconds)
        self._state = StateWriter()

    def take_unusable(self) -> list[Unusable]:
        taken, self._unusable = self._unusable, []
        return taken

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        messages = [{"role": "system", "content": player_system(state.task) + self.tool_note},
                    {"role": "user", "content": state_text(self._state(state), state.must_submit)}]
        return await self._until_usable(messages, action_schema(state.task), state)

    async def reject(self, state: EpisodeState, action: Action, problem: str) -> tuple[Action, Usage]:
        messages = self._last_messages + [{"role": "assistant", "content": action.raw or action.model_dump_json()},
                                          {"role": "user", "content": correction_message(problem)}]
        return await self._until_usable(messages, action_schema(state.task), state)

    async def _until_usable(self, messages: list[dict], schema: dict, state: EpisodeState) -> tuple[Action, Usage]:
        """Ask until a reply parses as an action. Each unusable reply is kept
        (see take_unusable) with the usage of its call; the usable call's
        usage is returned."""
        def keep(reply: str, problem: str, usage: Usage) -> None:
            self._unusable.append(Unusable(reply=reply, problem=problem, usage=usage))

        def ran(calls: list, usage: Usage) -> None:  # one tool turn per call, the reply's usage on the first
            for i, call in enumerate(calls):
                self._unusable.append(Unusable(reply="", problem="", usage=usage if i == 0 else Usage(), tool=call))

        if self.tool is not None:
            self.tool.observations = state.observations
        try:
            exchange = await converse(self.client, messages, parse_action, schema=schema, schema_name="action",
                                      correct=_correction, on_unusable=keep, tools=self.tool, on_tool=ran)
        except EndpointFault as fault:
            # the calls before the fault reach the episode as malformed turns (take_unusable)
            raise PlayerFault(str(fault)) from fault
        if exchange.value is None:
            raise PlayerGaveUp(f"no usable action after {MAX_CORRECTIONS} corrections: {exchange.problem}")
        self._last_messages = exchange.messages
        return exchange.value, exchange.reply_usage

    async def close(self) -> None:
        pass  # the client is shared by the run and closed by it
