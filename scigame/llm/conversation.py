"""One bounded conversation with an LLM: ask, parse, validate, correct.

The player, the judge, `scigame curate` and `scigame review` all need the
same exchange: send the messages, read the reply, check it, and when it is
unusable send it back with the reasons, at most MAX_CORRECTIONS times (the
bound of `scigame.players.base`, which the runner's own corrections share).
`converse` is that loop, written once:

    exchange = await converse(client, messages, check=parse_review,
                              schema=review_schema(), schema_name="review")
    if exchange.value is None: ...  # no usable reply; exchange.problems says why

- `check(text)` returns `(value, "")` for a usable reply or `(None, problem)`
  (a string or a list of strings). `model_check(Model)` builds one from a
  pydantic model; a reply cut off at the token limit (finish_reason
  "length") is unusable before `check` sees it.
- Spend is never lost: every call's usage is summed into the result, the
  unusable replies included, and a correction counts once in
  `Usage.corrections` on the call it corrects. An `EndpointFault` raised
  mid-conversation carries everything the conversation had spent so far.
- `on_unusable(reply, problem, usage)` hears of each unusable reply as it
  arrives (the player keeps them as turns marked malformed), with that
  call's usage.
- `tools` (a `Toolbox`, e.g. `scigame.llm.tools.PythonTool`) offers function
  tools: a reply that calls them is answered with `tool` messages and the
  conversation goes on without spending a correction (the toolbox bounds
  how often); a call that breaks its rules (unknown tool, malformed
  arguments, too many calls) is an unusable reply like any other, its tool
  messages saying why. `on_tool(calls, usage)` hears of each answered reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Generic, Optional, Protocol, Sequence, TypeVar, Union

from pydantic import BaseModel, ValidationError

from ..players.base import MAX_CORRECTIONS
from ..records import Usage
from .client import ChatClient, EndpointFault
from .prompts import reply_object

__all__ = ["MAX_CORRECTIONS", "TRUNCATED", "Exchange", "ToolAnswer", "Toolbox", "converse", "correction",
           "model_check", "validation_problem"]

TRUNCATED = "the reply was cut off before it ended (finish_reason \"length\"); be shorter"

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Problems = Union[str, Sequence[str]]


def correction(problems: Sequence[str], what: str = "reply") -> str:
    """The default correction: the reasons, and a request for the JSON alone."""
    return f"That {what} could not be used: {'; '.join(problems)}. Reply again with the JSON object only."


@dataclass
class Exchange(Generic[T]):
    """What a conversation came to."""

    value: Optional[T]  # the checked value; None when no usable reply came
    usage: Usage  # every call of the conversation, unusable replies included
    corrections: int  # correction messages sent
    reply: str  # the last reply's text
    messages: list[dict]  # the messages the last reply answered
    reply_usage: Usage  # the last call's usage alone
    problems: list[str] = field(default_factory=list)  # why the last reply was unusable

    @property
    def problem(self) -> str:
        return "; ".join(self.problems)


@dataclass
class ToolAnswer:
    """A toolbox's answer to one reply's tool calls: the messages that carry
    it (the assistant's message, then one `tool` message per call), why the
    calls broke the rules ("" when they were run) and what was run."""

    messages: list[dict]
    problem: str = ""
    calls: list = field(default_factory=list)


class Toolbox(Protocol):
    #: The function tools offered with every request (OpenAI's `tools`).
    specs: list[dict]

    def answer(self, tool_calls: list[dict]) -> Awaitable[ToolAnswer]:
        """Run (or refuse) one reply's tool calls."""


def _problem_list(problems: Problems) -> list[str]:
    listed = [problems] if isinstance(problems, str) else list(problems)
    return listed or ["the reply could not be used"]


async def converse(client: ChatClient, messages: list[dict],
                   check: Callable[[str], tuple[Optional[T], Problems]], *, schema: Optional[dict] = None,
                   schema_name: str = "reply", correct: Callable[[list[str]], str] = correction,
                   max_corrections: int = MAX_CORRECTIONS,
                   on_unusable: Optional[Callable[[str, str, Usage], None]] = None,
                   tools: Optional[Toolbox] = None,
                   on_tool: Optional[Callable[[list, Usage], None]] = None) -> Exchange[T]:
    """Ask until `check` accepts a reply or `max_corrections` corrections
    were spent (see the module doc). `messages` is not modified."""
    total = Usage()
    attempt = 0
    while attempt <= max_corrections:
        try:
            completion = await client.complete(messages, schema=schema, schema_name=schema_name,
                                               **({"tools": tools.specs} if tools is not None else {}))
        except EndpointFault as fault:
            fault.usage = total + fault.usage
            raise
        answered: Optional[ToolAnswer] = None
        if tools is not None and completion.tool_calls:
            answered = await tools.answer(completion.tool_calls)
            if not answered.problem:  # run: the model reads the results and goes on
                total = total + completion.usage
                if on_tool is not None:
                    on_tool(answered.calls, completion.usage)
                messages = messages + answered.messages
                continue
            value, problems = None, [answered.problem]
        elif completion.finish_reason == "length":
            value, problems = None, [TRUNCATED]
        else:
            value, found = check(completion.text)
            problems = [] if value is not None else _problem_list(found)
        usage = completion.usage
        if value is not None:
            return Exchange(value, total + usage, attempt, completion.text, messages, usage)
        if attempt < max_corrections:
            usage = usage + Usage(corrections=1)
        total = total + usage
        reply = completion.text if answered is None else _calls_text(completion.tool_calls)
        if on_unusable is not None:
            on_unusable(reply, "; ".join(problems), usage)
        if attempt < max_corrections:
            said = answered.messages if answered is not None else [{"role": "assistant", "content": completion.text}]
            messages = messages + said + [{"role": "user", "content": correct(problems)}]
        attempt += 1
    return Exchange(None, total, max_corrections, reply, messages, usage, problems)


def _calls_text(tool_calls: list[Any]) -> str:
    """A reply's tool calls as the text kept on the record."""
    return json.dumps(tool_calls, ensure_ascii=False)[:100_000]


def validation_problem(exc: ValidationError, what: str, limit: int = 5) -> str:
    """A pydantic error as one line for the model: where and what, up to `limit` places."""
    places = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or what}: {e['msg']}"
                       for e in exc.errors()[:limit])
    return f"the {what} does not match the format: {places}"


def model_check(model: type[M], what: str = "reply",
                extra: Optional[Callable[[str], dict]] = None) -> Callable[[str], tuple[Optional[M], str]]:
    """A `check` that reads the reply's JSON object into `model`; `extra`
    adds fields taken from the reply text (e.g. the raw reply)."""
    def check(text: str) -> tuple[Optional[M], str]:
        data, problem = reply_object(text)
        if data is None:
            return None, problem
        if extra is not None:
            data = {**data, **extra(text)}
        try:
            return model.model_validate(data), ""
        except ValidationError as exc:
            return None, validation_problem(exc, what)
    return check
