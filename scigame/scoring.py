"""Scoring a predictor on a card's hidden evaluation set.

    e   = |ĝ(x) − g(x)| / (a + λ·|g(x)|)       per point and output
    PS  = 1 / (1 + mean e)                     over all points and outputs
    weak   = valid and max e <= 1
    strict = weak and, for every output, the predictor is the law
             symbolically (scigame.symbolic.strict_match); None when sympy
             could not decide in time
    form_credit = per output 1 - normalised tree edit distance to the law
             (scigame.form_credit), 1 where strict; the mean over outputs

An invalid predictor is rejected whole: PS 0, weak and strict false.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from pydantic import BaseModel

from .compiler.semantics import scaled_errors  # noqa: F401 (the scaled error, defined once)
from .predictor import PredictorInvalid, evaluate_predictor, parse_predictor_json, validate_predictor


class OutputScore(BaseModel):
    max_error: float
    mean_error: float
    strict: Optional[bool] = None
    strict_reason: str = ""
    form_credit: float = 0.0


class Score(BaseModel):
    """The verdict on one predictor in one environment."""

    environment: str
    valid: bool
    reason: str = ""
    path: str = ""
    ps: float
    weak: bool
    strict: Optional[bool]
    strict_reason: str = ""
    points: int
    outputs: dict[str, OutputScore] = {}
    #: On the out-of-domain set (cards with `evaluation N ood F`); None without one.
    ps_ood: Optional[float] = None
    weak_ood: Optional[bool] = None
    form_credit: float = 0.0  # mean over outputs; 0 for an invalid predictor
    #: A system card's second score: the system simulated with the submitted law at the
    #: hidden inputs, against its observables (scigame/system_score.py); None for a static card.
    ps_system: Optional[float] = None
    weak_system: Optional[bool] = None


def prediction_score(errors: list[np.ndarray]) -> float:
    """PS = 1 / (1 + mean e) over every point of every output."""
    return float(1.0 / (1.0 + np.mean(np.concatenate(errors))))


def score_predictor(card, predictor, env: str, strict_timeout: Optional[float] = None) -> Score:
    """Validate, evaluate and score `predictor` (dict or JSON text) for a
    CompiledCard in environment `env`."""
    ev = card.evaluation
    n = len(next(iter(ev.inputs.values()))) if ev.inputs else 0
    try:
        if isinstance(predictor, (str, bytes)):
            predictor = parse_predictor_json(predictor)
        clean = validate_predictor(predictor, card.input_names, card.output_names)
        inputs = {k: np.asarray(v, dtype=float) for k, v in ev.inputs.items()}
        predicted = evaluate_predictor(clean, inputs)
    except PredictorInvalid as exc:
        return Score(environment=env, valid=False, reason=exc.reason, path=exc.path, ps=0.0,
                     weak=False, strict=False, strict_reason="the predictor is invalid", points=n)
    ood = _ood_score(card, clean, env)
    per_output: dict[str, OutputScore] = {}
    errors = []
    for o in card.data.outputs:
        truth = np.asarray(ev.outputs[env][o.name], dtype=float)
        e = scaled_errors(np.broadcast_to(predicted[o.name], truth.shape), truth, o.tol_abs, o.tol_rel)
        errors.append(e)
        per_output[o.name] = OutputScore(max_error=float(e.max()), mean_error=float(e.mean()))
    ps = prediction_score(errors)
    credit = _form_credits(card, clean, env, per_output)
    weak = all(s.max_error <= 1.0 for s in per_output.values())
    if not weak:
        for name, out in per_output.items():
            out.strict = False
            out.strict_reason = "not checked: the predictor is not weak" if out.max_error <= 1.0 else \
                f"not weak: the largest scaled error is {out.max_error:.3g} > 1"
        worst = max(per_output, key=lambda k: per_output[k].max_error)
        return Score(environment=env, valid=True, ps=ps, weak=False, strict=False,
                     strict_reason=f"not weak: the largest scaled error of {worst} is "
                                   f"{per_output[worst].max_error:.3g} > 1",
                     points=n, outputs=per_output, form_credit=credit, **ood)
    strict, reason = _strict(card, clean, env, per_output, strict_timeout)
    for out in per_output.values():
        if out.strict:
            out.form_credit = 1.0  # the law, whatever its written form
    credit = sum(o.form_credit for o in per_output.values()) / len(per_output)
    return Score(environment=env, valid=True, ps=ps, weak=True, strict=strict, strict_reason=reason,
                 points=n, outputs=per_output, form_credit=credit, **ood)


def _ood_score(card, predictor: dict, env: str) -> dict:
    """ps_ood and weak_ood on the card's out-of-domain set, by the same
    formulas as PS and weak (empty without one). A predictor undefined
    somewhere out of domain scores PS 0 and fails weak there."""
    ev = card.evaluation
    if ev.ood_inputs is None or ev.ood_outputs is None:
        return {}
    inputs = {k: np.asarray(v, dtype=float) for k, v in ev.ood_inputs.items()}
    try:
        predicted = evaluate_predictor(predictor, inputs)
    except PredictorInvalid:
        return {"ps_ood": 0.0, "weak_ood": False}
    errors = []
    for o in card.data.outputs:
        truth = np.asarray(ev.ood_outputs[env][o.name], dtype=float)
        errors.append(scaled_errors(np.broadcast_to(predicted[o.name], truth.shape), truth,
                                    o.tol_abs, o.tol_rel))
    return {"ps_ood": prediction_score(errors), "weak_ood": bool(all(e.max() <= 1.0 for e in errors))}




def _variables(card):
    from .symbolic import Variable
    return [Variable(s.name, s.domain.lo, s.domain.hi, s.domain.kind in ("integer",))
            for s in card.data.inputs]


def _form_credits(card, predictor: dict, env: str, per_output: dict[str, OutputScore]) -> float:
    """Each output's form credit against the world's law; their mean."""
    from .form_credit import form_credit

    variables = _variables(card)
    for o in card.data.outputs:
        reference = card.data.environments[env].laws[o.name]
        per_output[o.name].form_credit = form_credit(predictor[o.name], reference, variables)
    return sum(o.form_credit for o in per_output.values()) / len(per_output)


#: Strict verdicts already reached in this process, keyed by card, world,
#: output and the predictor tree's canonical JSON: repetitions that submit the
#: same tree do not pay for sympy again. Verdicts the clock decided (a
#: `strict_timeout` reached) are not kept: they depend on the machine's load.
_VERDICTS: dict[tuple, object] = {}


def _strict(card, predictor: dict, env: str, per_output: dict[str, OutputScore],
            timeout: Optional[float]) -> tuple[Optional[bool], str]:
    import json

    from .symbolic import strict_match

    variables = _variables(card)
    verdicts = []
    for o in card.data.outputs:
        reference = card.data.environments[env].laws[o.name]
        memo = (card.data.source_sha256, env, o.name, json.dumps(predictor[o.name], sort_keys=True))
        verdict = _VERDICTS.get(memo)
        if verdict is None:
            verdict = strict_match(predictor[o.name], reference, variables,
                                   rel_tol=max(o.tol_rel, 1e-9), timeout=timeout)
            if not verdict.timed_out and len(_VERDICTS) < 100_000:
                _VERDICTS[memo] = verdict
        per_output[o.name].strict = verdict.strict
        per_output[o.name].strict_reason = verdict.reason
        verdicts.append((o.name, verdict))
    if any(v.strict is False for _, v in verdicts):
        name, v = next((n, v) for n, v in verdicts if v.strict is False)
        return False, f"{name}: {v.reason}"
    if any(v.strict is None for _, v in verdicts):
        name, v = next((n, v) for n, v in verdicts if v.strict is None)
        return None, f"{name}: {v.reason}"
    return True, "; ".join(f"{n}: {v.reason}" for n, v in verdicts)
