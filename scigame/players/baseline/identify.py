"""Identification: which member of the given family G(x; s) the data follow.

The members s = 0 and s = 1 (and, when the card allows intermediate s and
there are two observations or more, the weighted least-squares s, kept
only if it predicts distinguishably from both ends); confidences are the
likelihoods at the tolerance scale times a prior for the textbook member.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ...predictor import PredictorInvalid, validate_predictor
from .fitting import ERROR_CAP
from .task import Input, Output
from .trees import evaluate, substitute

#: Prior weight of the textbook (s = 0) member.
TEXTBOOK_PRIOR = 0.6


@dataclass
class Hyp:
    """One hypothesis as reported: statement, confidence, predictor."""

    statement: str
    confidence: float
    predictor: dict[str, Any]
    detail: dict[str, Any] = field(default_factory=dict)


def softmax(scores: list[float]) -> list[float]:
    top = max(scores)
    if not math.isfinite(top):
        return [1.0 / len(scores)] * len(scores)
    ws = [math.exp(max(s - top, -700.0)) if math.isfinite(s) else 0.0 for s in scores]
    total = sum(ws)
    return [w / total for w in ws]


def _member(cands: dict, inputs: list[Input], outputs: list[Output], s: float) -> Optional[dict]:
    pred = {}
    for o in outputs:
        c = cands.get(o.name)
        if not c or "tree" not in c:
            return None
        pred[o.name] = substitute(c["tree"], "s", s)
    try:
        return validate_predictor(pred, [i.name for i in inputs], [o.name for o in outputs])
    except PredictorInvalid:
        return None


def _loglik(pred: dict, outputs: list[Output], X: dict, Y: dict) -> float:
    total = 0.0
    for o in outputs:
        y = Y[o.name]
        ok = np.isfinite(y)
        if not np.any(ok):
            continue
        p = evaluate(pred[o.name], {k: v[ok] for k, v in X.items()})
        if p is None:
            return -math.inf
        total += -0.5 * float(np.sum(np.minimum(np.abs(p - y[ok]) / o.scale(y[ok]), ERROR_CAP) ** 2))
    return total


def _distinct(p: dict, others: list[dict], outputs: list[Output], check_X: dict) -> bool:
    chk = {o.name: evaluate(p[o.name], check_X) for o in outputs}
    if any(v is None for v in chk.values()):
        return False
    for q in others:
        cq = {o.name: evaluate(q[o.name], check_X) for o in outputs}
        if all(cq[o.name] is not None and np.max(np.abs(chk[o.name] - cq[o.name]) / o.scale(cq[o.name])) <= 0.5
               for o in outputs):
            return False
    return True


def identify(task: dict, inputs: list[Input], outputs: list[Output], X: dict, Y: dict,
             check_X: dict) -> list[Hyp]:
    cands = task.get("candidates") or {}
    members: list[tuple[float, dict, float]] = []  # (s, predictor, log prior)
    for s, prior in ((0.0, TEXTBOOK_PRIOR), (1.0, 1.0 - TEXTBOOK_PRIOR)):
        p = _member(cands, inputs, outputs, s)
        if p is not None:
            members.append((s, p, math.log(prior)))
    n = len(next(iter(Y.values()))) if Y else 0
    if task.get("interpolate") and n >= 2:
        s_hat = fit_s(cands, outputs, X, Y)
        if s_hat is not None and 1e-3 < s_hat < 1 - 1e-3:
            p = _member(cands, inputs, outputs, round(s_hat, 6))
            if p is not None and _distinct(p, [q for _, q, _ in members], outputs, check_X):
                members.append((round(s_hat, 6), p, math.log(0.2) - 0.5 * math.log(n)))
    if not members:
        return []
    scores = [lp + _loglik(p, outputs, X, Y) for _, p, lp in members]
    hyps = []
    for (s, p, _), c in zip(members, softmax(scores)):
        label = ("the textbook law (s = 0)" if s == 0 else "the alternative law (s = 1)" if s == 1
                 else f"a blend with s = {s:.4g}")
        hyps.append(Hyp(f"The data follow {label} of the candidate family.", c, p, {"s": s}))
    return hyps


def fit_s(cands: dict, outputs: list[Output], X: dict, Y: dict) -> Optional[float]:
    """Least-squares s for G = (1−s)g + s·g′ (linear in s), clipped to [0, 1]."""
    num = den = 0.0
    for o in outputs:
        tree = cands.get(o.name, {}).get("tree")
        y = Y[o.name]
        ok = np.isfinite(y)
        if tree is None or not np.any(ok):
            continue
        Xo = {k: v[ok] for k, v in X.items()}
        g0 = evaluate(substitute(tree, "s", 0.0), Xo)
        g1 = evaluate(substitute(tree, "s", 1.0), Xo)
        if g0 is None or g1 is None:
            return None
        w = 1.0 / o.scale(y[ok]) ** 2
        d = g1 - g0
        num += float(np.sum(w * (y[ok] - g0) * d))
        den += float(np.sum(w * d * d))
    if den <= 0 or not math.isfinite(num / den):
        return None
    return float(min(max(num / den, 0.0), 1.0))
