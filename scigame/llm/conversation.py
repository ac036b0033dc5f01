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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Optional, Sequence, TypeVar, Union

from pydantic import BaseModel, ValidationError

from ..players.base import MAX_CORRECTIONS
from ..records import Usage
from .client import ChatClient, EndpointFault
from .prompts import reply_object

__all__ = ["MAX_CORRECTIONS", "TRUNCATED", "Exchange", "converse", "correction", "model_check",
           "validation_problem"]

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


def _problem_list(problems: Problems) -> list[str]:
    listed = [problems] if isinstance(problems, str) else list(problems)
    return listed or ["the reply could not be used"]


async def converse(client: ChatClient, messages: list[dict],
                   check: Callable[[str], tuple[Optional[T], Problems]], *, schema: Optional[dict] = None,
                   schema_name: str = "reply", correct: Callable[[list[str]], str] = correction,
                   max_corrections: int = MAX_CORRECTIONS,
                   on_unusable: Optional[Callable[[str, str, Usage], None]] = None) -> Exchange[T]:
    """Ask until `check` accepts a reply or `max_corrections` corrections
    were spent (see the module doc). `messages` is not modified."""
    total = Usage()
    for attempt in range(max_corrections + 1):
        try:
            completion = await client.complete(messages, schema=schema, schema_name=schema_name)
        except EndpointFault as fault:
            fault.usage = total + fault.usage
            raise
        if completion.finish_reason == "length":
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
        if on_unusable is not None:
            on_unusable(completion.text, "; ".join(problems), usage)
        if attempt < max_corrections:
            messages = messages + [{"role": "assistant", "content": completion.text},
                                   {"role": "user", "content": correct(problems)}]
    return Exchange(None, total, max_corrections, completion.text, messages, usage, problems)


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
