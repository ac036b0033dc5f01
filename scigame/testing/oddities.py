"""Odd model output for the fake server: numbers that JSON allows (or
Python's reader accepts) but a record cannot hold, and nesting that breaks
recursive readers. `Reply(oddity=...)` puts one into a scripted action."""

from __future__ import annotations

import json
from typing import Any

ODDITIES = ("nan", "infinity", "1e400", "bigint", "deep", "brackets")

_ODD_LITERALS = {"nan": "NaN", "infinity": "Infinity", "1e400": "1e400", "bigint": "1" + "0" * 399}
_ODD_MARK = "__fake_openai_oddity__"


def odd_content(content: str, oddity: str) -> str:
    """A JSON action with an oddity put in. "brackets" returns 5,000 nested
    brackets in an object; "deep" wraps the first submitted tree (or the
    first prediction) in 200 levels of `neg`; the number oddities replace the
    first prediction of an experiment, or multiply the first submitted tree
    by the literal (NaN, Infinity, 1e400, a 400-digit integer)."""
    if oddity == "brackets":
        return '{"hypotheses": ' + "[" * 5000 + "]" * 5000 + "}"
    action = json.loads(content)
    value: Any = _ODD_MARK
    if oddity == "deep":
        value = {"var": "x"}
        for _ in range(200):
            value = {"op": "neg", "args": [value]}
    submission = action.get("submission") if isinstance(action, dict) else None
    experiment = action.get("experiment") if isinstance(action, dict) else None
    if isinstance(submission, dict) and isinstance(submission.get("predictor"), dict) and submission["predictor"]:
        name = next(iter(submission["predictor"]))
        tree = submission["predictor"][name]
        submission["predictor"][name] = value if oddity == "deep" else {"op": "mul", "args": [value, tree]}
    elif isinstance(experiment, dict) and experiment.get("predictions"):
        first = experiment["predictions"][0]
        first[next(iter(first))] = value
    else:
        raise ValueError("odd_content needs an action with a predictor or a prediction")
    text = json.dumps(action)
    return text.replace(json.dumps(_ODD_MARK), _ODD_LITERALS.get(oddity, ""))
