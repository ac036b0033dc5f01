"""The Python tool of an LLM player (`--tools python`).

The model is offered one function tool, `run_python`, whose code runs in
`scigame.sandbox` on the episode's own observations (observations.csv and
observations.json in its working folder). One `PythonTool` serves one
episode and keeps its caps: calls, CPU seconds and wall seconds in all
(`ToolCaps`, from `scigame eval --tool-calls/--tool-cpu/--tool-wall`). A
reply whose tool calls break the rules (an unknown tool, arguments that are
not {"code": text}, calls beyond the caps) runs nothing: each call is
answered with the reason and the reply counts as an unusable one (see
`conversation.converse`). Every call that ran is kept as a `ToolCall`.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from dataclasses import dataclass
from typing import Optional

from ..records import Observation, ToolCall
from ..sandbox import Limits, SandboxResult, run_code
from .conversation import ToolAnswer

RUN_PYTHON = "run_python"
#: The longest code a call may send.
MAX_CODE_CHARS = 64_000


@dataclass(frozen=True)
class ToolCaps:
    """What the tool may use in one episode, and in one call (`limits`)."""

    calls: int = 20
    cpu_seconds: float = 60.0
    wall_seconds: float = 120.0
    limits: Limits = Limits()


def tool_specs() -> list[dict]:
    """The function tool as OpenAI's `tools` describe it."""
    return [{"type": "function", "function": {
        "name": RUN_PYTHON,
        "description": ("Run Python 3 code in a sandbox (no network; numpy, scipy and sympy importable) "
                        "whose working folder holds observations.csv and observations.json, the "
                        "episode's observations so far. Returns what the code prints."),
        "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "Python source"}},
                       "required": ["code"], "additionalProperties": False}}}]


def observation_files(observations: list[Observation]) -> dict[str, bytes]:
    """observations.csv and observations.json of the observations so far."""
    inputs = list(dict.fromkeys(k for o in observations for k in o.inputs))
    outputs = list(dict.fromkeys(k for o in observations for k in o.outputs))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(inputs + outputs)
    for o in observations:
        writer.writerow([repr(o.inputs[k]) if k in o.inputs else "" for k in inputs]
                        + [repr(o.outputs[k]) if k in o.outputs else "" for k in outputs])
    listed = [{"inputs": o.inputs, "outputs": o.outputs} for o in observations]
    return {"observations.csv": buf.getvalue().encode(), "observations.json": json.dumps(listed).encode()}


def _code_of(call: dict) -> tuple[Optional[str], str, str]:
    """(code, call id, problem) of one tool call as the endpoint sent it."""
    call_id = call.get("id") if isinstance(call.get("id"), str) else ""
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = function.get("name")
    if name != RUN_PYTHON:
        shown = name[:60] if isinstance(name, str) else repr(name)[:60]
        return None, call_id, f"there is no tool `{shown}`: the only tool is {RUN_PYTHON}"
    raw = function.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except (json.JSONDecodeError, RecursionError):
        args = None
    if not isinstance(args, dict) or set(args) != {"code"} or not isinstance(args["code"], str):
        return None, call_id, f'the arguments of {RUN_PYTHON} must be one JSON object {{"code": Python source}}'
    if len(args["code"]) > MAX_CODE_CHARS:
        return None, call_id, f"the code of a {RUN_PYTHON} call may hold at most {MAX_CODE_CHARS} characters"
    return args["code"], call_id, ""


class PythonTool:
    """`run_python` for one episode (see the module doc). `observations` is
    read at every call: the player points it at its state's list."""

    def __init__(self, caps: ToolCaps = ToolCaps()):
        self.caps = caps
        self.specs = tool_specs()
        self.observations: list[Observation] = []
        self.calls = 0
        self.cpu = 0.0
        self.wall = 0.0

    def _refusal(self, wanted: int) -> str:
        caps = self.caps
        if self.calls + wanted > caps.calls:
            return (f"{RUN_PYTHON} may be called {caps.calls} times in an episode and {self.calls} calls were "
                    "made: reply with your action")
        if self.cpu >= caps.cpu_seconds - 0.01:
            return f"the episode's {caps.cpu_seconds:g} CPU seconds for {RUN_PYTHON} are spent: reply with your action"
        if self.wall >= caps.wall_seconds - 0.01:
            return f"the episode's {caps.wall_seconds:g} wall seconds for {RUN_PYTHON} are spent: reply with your action"
        return ""

    async def answer(self, tool_calls: list[dict]) -> ToolAnswer:
        """Run one reply's calls in order, or refuse them all (see the module doc)."""
        assistant = {"role": "assistant", "content": None, "tool_calls": [
            {"id": c.get("id", ""), "type": "function", "function": c.get("function")} for c in tool_calls]}
        parsed = [_code_of(c) for c in tool_calls]
        problem = next((p for _, _, p in parsed if p), "") or self._refusal(len(parsed))
        if problem:
            replies = [{"role": "tool", "tool_call_id": call_id, "content": f"error: {p or problem}"}
                       for _, call_id, p in parsed]
            return ToolAnswer([assistant, *replies], problem)
        replies, calls = [], []
        for code, call_id, _ in parsed:
            call = await self.run(code, call_id)
            calls.append(call)
            replies.append({"role": "tool", "tool_call_id": call_id, "content": self.message(call)})
        return ToolAnswer([assistant, *replies], "", calls)

    async def run(self, code: str, call_id: str = "") -> ToolCall:
        """One call in the sandbox within what the episode has left; counted."""
        caps = self.caps
        files = observation_files(self.observations)
        result: SandboxResult = await asyncio.to_thread(
            run_code, code, files, caps.limits, cpu_seconds=max(caps.cpu_seconds - self.cpu, 0.01),
            wall_seconds=max(caps.wall_seconds - self.wall, 0.01))
        self.calls += 1
        self.cpu += result.cpu_seconds
        self.wall += result.wall_seconds
        return ToolCall(name=RUN_PYTHON, call_id=call_id, code=code, output=result.output, error=result.error,
                        cpu_seconds=result.cpu_seconds, wall_seconds=result.wall_seconds)

    def message(self, call: ToolCall) -> str:
        """The `tool` message of a call: its output, how it ended, what is left."""
        caps = self.caps
        ended = f"error: {call.error}" if call.error else "the code ran to its end"
        left = (f"left in this episode: {caps.calls - self.calls} calls, "
                f"{max(caps.cpu_seconds - self.cpu, 0):.1f} CPU s, {max(caps.wall_seconds - self.wall, 0):.1f} wall s")
        output = call.output if not call.output or call.output.endswith("\n") else call.output + "\n"
        return f"{output}[{ended}; {call.cpu_seconds:.2f} CPU s; {left}]"
