"""`openai:MODEL`: a player that asks an LLM for each action.

Each turn sends the rules (system message) and one user message holding the
whole situation as JSON: the task view with its protocol rules, every
observation so far, and the history of earlier actions and the oracle's
answers. The reply must be one JSON action; structured outputs against the
card's action schema are requested where the endpoint supports them. A reply
that is not a usable action is returned to the model with the reason, at
most MAX_CORRECTIONS times, before the episode ends without an answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from pydantic import ValidationError

from ..compiler.predictor_schema import predictor_schema_for
from ..players.base import EpisodeState, Player, PlayerGaveUp, Unusable
from ..records import Action, Usage
from .client import ChatClient, Completion
from .prompts import PLAYER_SYSTEM, correction_message, reply_object, state_message

MAX_CORRECTIONS = 2


def action_schema(task: dict) -> dict:
    """JSON Schema of one action for this task (structured outputs). Built
    once per pair of name lists and shared: callers must not modify it."""
    return _action_schema(tuple(i["name"] for i in task["inputs"]), tuple(o["name"] for o in task["outputs"]))


@lru_cache(maxsize=256)
def _action_schema(inputs: tuple[str, ...], outputs: tuple[str, ...]) -> dict:
    inputs, outputs = list(inputs), list(outputs)
    pred = predictor_schema_for(inputs, outputs)
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


def state_document(state: EpisodeState) -> dict[str, Any]:
    """The JSON the player is shown each turn."""
    history = []
    for t in state.turns:
        entry: dict[str, Any] = {"turn": t.index}
        if t.action is not None:
            entry["action"] = t.action.model_dump(exclude={"raw"}, exclude_none=True)
        if t.malformed:
            entry["unusable"] = t.malformed
        if t.response is not None:
            entry["oracle"] = t.response.model_dump(exclude_none=True)
        if t.breaks:
            entry["protocol_breaks"] = t.breaks
        history.append(entry)
    return {
        "task": state.task,
        "observations": [o.model_dump() for o in state.observations],
        "history": history,
        "must_submit": state.must_submit,
        "experiments_left": state.steps_left,
    }


def parse_action(text: str, finish_reason: str) -> tuple[Optional[Action], str]:
    """(action, "") or (None, why the reply is unusable)."""
    if finish_reason == "length":
        return None, "the reply was cut off before it ended (finish_reason \"length\"); be shorter"
    data, problem = reply_object(text)
    if data is None:
        return None, problem
    try:
        return Action.model_validate({**data, "raw": text}), ""
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'action'}: {e['msg']}"
                             for e in exc.errors()[:5])
        return None, f"the action does not match the format: {problems}"


class OpenAIPlayer(Player):
    """One LLM player for one episode."""

    def __init__(self, client: ChatClient):
        self.client = client
        self.name = f"openai:{client.config.model}"
        self._last_messages: list[dict] = []
        self._unusable: list[Unusable] = []

    def take_unusable(self) -> list[Unusable]:
        taken, self._unusable = self._unusable, []
        return taken

    async def _ask(self, messages: list[dict], schema: dict) -> tuple[Completion, Usage]:
        completion = await self.client.complete(messages, schema=schema, schema_name="action")
        return completion, completion.usage

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        messages = [{"role": "system", "content": PLAYER_SYSTEM},
                    {"role": "user", "content": state_message(state_document(state))}]
        return await self._until_usable(messages, action_schema(state.task))

    async def reject(self, state: EpisodeState, action: Action, problem: str) -> tuple[Action, Usage]:
        messages = self._last_messages + [{"role": "assistant", "content": action.raw or action.model_dump_json()},
                                          {"role": "user", "content": correction_message(problem)}]
        return await self._until_usable(messages, action_schema(state.task))

    async def _until_usable(self, messages: list[dict], schema: dict) -> tuple[Action, Usage]:
        """Ask until a reply parses as an action. Each unusable reply is kept
        (see take_unusable) with the usage of its call; the usable call's
        usage is returned."""
        for attempt in range(MAX_CORRECTIONS + 1):
            completion, usage = await self._ask(messages, schema)
            action, problem = parse_action(completion.text, completion.finish_reason)
            if action is not None:
                self._last_messages = messages
                return action, usage
            self._unusable.append(Unusable(reply=completion.text, problem=problem,
                                           usage=usage + Usage(corrections=int(attempt < MAX_CORRECTIONS))))
            messages = messages + [{"role": "assistant", "content": completion.text},
                                   {"role": "user", "content": correction_message(problem)}]
        raise PlayerGaveUp(f"no usable action after {MAX_CORRECTIONS} corrections: {problem}")

    async def close(self) -> None:
        pass  # the client is shared by the run and closed by it
