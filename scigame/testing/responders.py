"""Responders that make the fake server behave like a model.

`scientist` answers player turns by running the built-in baseline player on
the state the player sent (between the STATE markers), and judge requests
with a grade that quotes the transcript. With it, `scigame eval --player
openai:fake-model --base-url ...` dry-runs a whole campaign for free:

    python -m scigame.testing.fake_openai --responder scientist

`coder` is the scientist with the Python tool (`--tools python`): before it
submits from observations, it calls `run_python` with code that fits a
power law to every output by least squares on logarithms (exponents
rounded to halves) and prints the fit; reading the result, it submits the
fitted law when that reproduces every observation within 0.1 %, and the
scientist's own answer otherwise.
"""

from __future__ import annotations

import asyncio
import hashlib
import json

from ..llm.prompts import STATE_CLOSE, STATE_OPEN, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN, extract_between
from ..records import Action, Observation, OracleResponse, Turn
from .fake_openai import Reply


def _last_user(request: dict, marker: str) -> str:
    """The latest user message that holds `marker` (a correction message
    comes after the state it corrects)."""
    for m in reversed(request.get("messages", [])):
        content = m.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if m.get("role") == "user" and marker in text:
            return text
    return ""


def state_from_document(doc: dict):
    """Rebuild the EpisodeState a player sent (see llm.player.state_document)."""
    from ..players.base import EpisodeState
    task = doc["task"]
    turns = []
    for entry in doc.get("history", []):
        action = Action.model_validate(entry["action"]) if "action" in entry else None
        response = OracleResponse.model_validate(entry["oracle"]) if "oracle" in entry else None
        turns.append(Turn(index=entry["turn"], action=action, response=response,
                          breaks=entry.get("protocol_breaks", []), malformed=entry.get("unusable")))
    seed = int.from_bytes(hashlib.sha256(json.dumps(task, sort_keys=True).encode()).digest()[:4], "big")
    return EpisodeState(task=task, setting=task["setting"], protocol=task["protocol"],
                        threshold=task["threshold"],
                        observations=[Observation.model_validate(o) for o in doc.get("observations", [])],
                        turns=turns, must_submit=doc.get("must_submit", False),
                        steps_left=doc.get("experiments_left"), seed=seed)


def _player_reply(doc: dict) -> Reply:
    from ..players.baseline import BaselinePlayer
    action, _ = asyncio.run(BaselinePlayer().act(state_from_document(doc)))
    content = action.model_dump(exclude={"raw"})
    for h in content["hypotheses"]:
        h.pop("predictor", None)  # not part of the LLM action format
    return Reply(content=json.dumps(content), prompt_tokens=800 + 40 * len(doc.get("observations", [])),
                 completion_tokens=300, cached_tokens=512)


def _judge_reply(transcript: str) -> Reply:
    explanation = next((line.split("Explanation:", 1)[1].strip() for line in transcript.splitlines()
                        if "Explanation:" in line), "")
    quote = explanation[:80]
    grade = {"score": 1 if quote else None, "quote": quote, "reason": "scripted grade"}
    verdict = {"effects": grade, "comparison": {**grade, "score": 0.5 if quote else None},
               "evidence": grade, "failure": None}
    return Reply(content=json.dumps(verdict), prompt_tokens=1200, completion_tokens=120)


def scientist(request: dict) -> Reply:
    """Plays the baseline for player turns; grades with quotes for judge turns."""
    state = extract_between(_last_user(request, STATE_OPEN), STATE_OPEN, STATE_CLOSE)
    if state is not None:
        return _player_reply(json.loads(state))
    transcript = extract_between(_last_user(request, TRANSCRIPT_OPEN), TRANSCRIPT_OPEN, TRANSCRIPT_CLOSE)
    if transcript is not None:
        return _judge_reply(transcript)
    return Reply(content='{"note": "fake-openai: not a scigame request"}')


#: The code `coder` sends: a power law per output, fitted to observations.json.
FIT_CODE = """\
import json
import numpy as np

obs = json.load(open("observations.json"))
names = list(obs[0]["inputs"])
fit, worst = {}, 0.0
for out in dict.fromkeys(k for o in obs for k in o["outputs"]):
    rows = [o for o in obs if out in o["outputs"]]
    X = np.array([[o["inputs"][n] for n in names] for o in rows], dtype=float)
    y = np.array([o["outputs"][out] for o in rows], dtype=float)
    if not (np.all(y > 0) or np.all(y < 0)):
        fit = None
        break
    use = [j for j in range(len(names)) if np.all(X[:, j] > 0) and np.ptp(np.log(X[:, j])) > 1e-9]
    A = np.column_stack([np.ones(len(y))] + [np.log(X[:, j]) for j in use])
    coef = np.linalg.lstsq(A, np.log(np.abs(y)), rcond=None)[0]
    powers = [(j, round(2 * c) / 2) for j, c in zip(use, coef[1:]) if round(2 * c) != 0]
    rest = np.log(np.abs(y)) - sum(p * np.log(X[:, j]) for j, p in powers)
    c = float(np.sign(y[0]) * np.exp(np.mean(rest)))
    predicted = c * np.prod([X[:, j] ** p for j, p in powers], axis=0) if powers else np.full(len(y), c)
    worst = max(worst, float(np.max(np.abs(predicted - y) / np.abs(y))))
    terms = [{"op": "pow", "args": [{"var": names[j]}, p]} for j, p in powers]
    fit[out] = {"op": "mul", "args": [c, *terms]} if terms else c
print(json.dumps({"predictor": fit, "max_relative_error": worst}))
"""


def _tool_results(request: dict) -> list[str]:
    """The `tool` messages after the latest state message."""
    found: list[str] = []
    for m in request.get("messages", []):
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str) and STATE_OPEN in content:
            found = []
        elif m.get("role") == "tool" and isinstance(content, str):
            found.append(content)
    return found


def _fitted(results: list[str]):
    """The predictor the fit printed, if it reproduces the observations within 0.1 %."""
    for line in reversed(results[-1].splitlines() if results else []):
        if line.startswith("{"):
            try:
                fit = json.loads(line)
            except json.JSONDecodeError:
                return None
            good = fit.get("predictor") and fit.get("max_relative_error", 1.0) <= 1e-3
            return fit["predictor"] if good else None
    return None


def coder(request: dict) -> Reply:
    """The scientist, fitting with `run_python` before it submits (see the module doc)."""
    state = extract_between(_last_user(request, STATE_OPEN), STATE_OPEN, STATE_CLOSE)
    if state is None or not request.get("tools"):
        return scientist(request)
    doc = json.loads(state)
    reply = _player_reply(doc)
    action = json.loads(reply.content)
    if action.get("submission") is None or not doc.get("observations"):
        return reply
    results = _tool_results(request)
    if not results:
        return Reply(tool_calls=[{"name": "run_python", "arguments": json.dumps({"code": FIT_CODE})}],
                     prompt_tokens=reply.prompt_tokens, completion_tokens=400, cached_tokens=reply.cached_tokens)
    predictor = _fitted(results)
    if predictor is not None:
        action["submission"]["predictor"] = predictor
    return Reply(content=json.dumps(action), prompt_tokens=reply.prompt_tokens + 200,
                 completion_tokens=reply.completion_tokens, cached_tokens=reply.cached_tokens)


RESPONDERS = {"scientist": scientist, "coder": coder}
