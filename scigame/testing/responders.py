"""Responders that make the fake server behave like a model.

`scientist` answers player turns by running the built-in baseline player on
the state the player sent (between the STATE markers), and judge requests
with a grade that quotes the transcript. With it, `scigame eval --player
openai:fake-model --base-url ...` dry-runs a whole campaign for free:

    python -m scigame.testing.fake_openai --responder scientist
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


RESPONDERS = {"scientist": scientist}
