"""Failure modes that follow from the evidence alone (no judge needed).

    no_usable_answer        no submission, or an invalid predictor
    symbolic_not_recovered  weak pass, strict fail
    parameter_error         right form, constants off: refitting the
                            predictor's free constants makes it pass weak
    incorrect_relation      anything else that fails weak

The two judge-dependent modes (evidence misreading, explanation mismatch)
are assigned by the LLM judge.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

import numpy as np


def is_structural(value: float) -> bool:
    """Small integers and simple fractions (exponents, 2 in 2·π) are part of
    the form, not free constants."""
    if value == 0:
        return True
    if abs(value) > 16:
        return False
    frac = Fraction(value).limit_denominator(4)
    # relative: a tiny constant (G in SI, 6.7e-11) is near the fraction 0 but is no part of the form
    return frac != 0 and abs(float(frac) - value) <= 1e-12 * abs(value)


def _constants(tree, path=()):
    """(path, value) of every free numeric constant in a tree."""
    out = []
    stack = [(tree, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            for i, a in enumerate(node.get("args", [])):
                stack.append((a, p + (i,)))
        elif isinstance(node, (int, float)) and not isinstance(node, bool) and not is_structural(float(node)):
            out.append((p, float(node)))
    return out


def _leaf_order(tree, path=()):
    """The paths of a tree's number leaves in the order fold_tree reads them
    (children left to right)."""
    out, stack = [], [(tree, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            args = node.get("args", [])
            stack.extend((args[i], p + (i,)) for i in range(len(args) - 1, -1, -1))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            out.append(p)
    return out


def refits_to_weak(card, env: str, predictor: dict) -> bool:
    """Can new values of the predictor's free constants make it pass weak?
    Yes as soon as any values the least-squares refit tries do: the refit
    stops there (most of the time spent classifying a right form with
    wrong constants was the fit going on, at its evaluation limit, to lower
    errors that already passed)."""
    errors = refit_errors(card, env, predictor, stop_when_weak=True)
    return errors is not None and bool(np.max(np.abs(errors)) <= 1.0)


class _Weak(Exception):
    """Raised by a refit's residuals at values that pass weak (stop_when_weak)."""

    def __init__(self, errors: np.ndarray):
        self.errors = errors


def refit_errors(card, env: str, predictor: dict, stop_when_weak: bool = False) -> Optional[np.ndarray]:
    """The scaled errors on the hidden set after least squares refits the
    predictor's free constants; None when it has none (or more than 12) or
    the fit fails. With `stop_when_weak`, the errors at the first values
    tried that pass weak (every scaled error <= 1), where the fit stops."""
    import math

    from scipy.optimize import least_squares

    from .predictor import NumbersRefitted, PredictorInvalid, tree_program
    from .scoring import scaled_errors

    slots = [(out, p, v) for out, tree in predictor.items() for p, v in _constants(tree)]
    if not slots or len(slots) > 12:
        return None
    ev = card.evaluation
    inputs = {k: np.asarray(v, dtype=float) for k, v in ev.inputs.items()}
    truth = {o.name: np.asarray(ev.outputs[env][o.name], dtype=float) for o in card.data.outputs}
    tol = {o.name: (o.tol_abs, o.tol_rel) for o in card.data.outputs}
    x0 = np.array([v for _, _, v in slots])
    scale = np.where(x0 != 0, np.abs(x0), 1.0)
    # Each tree's fold recorded once (the predictor is validated); a refit
    # changes only its number steps, found by their leaves' reading order.
    programs = {out: tree_program(tree, str(out)) for out, tree in predictor.items()}
    numbers = {out: [i for i, step in enumerate(prog) if step[0] == 0] for out, prog in programs.items()}
    step_of = {(out, leaf): numbers[out][k] for out, tree in predictor.items()
               for k, leaf in enumerate(_leaf_order(tree))}
    where = [(out, step_of[(out, p)]) for out, p, _ in slots]

    def residuals(z):
        values = z * scale
        if not all(math.isfinite(float(v)) for v in values):  # a leaf fold_tree would refuse
            return np.full(sum(len(t) for t in truth.values()), 1e6)
        try:
            pred = refolded(values)
        except PredictorInvalid:
            return np.full(sum(len(t) for t in truth.values()), 1e6)
        errors = np.concatenate([scaled_errors(np.broadcast_to(pred[k], truth[k].shape), truth[k], *tol[k])
                                 for k in truth])
        if stop_when_weak and np.max(errors) <= 1.0:
            raise _Weak(errors)
        return errors

    try:
        # a Jacobian moves one constant at a time: the subtrees without it are not evaluated again
        refolded = NumbersRefitted(programs, inputs, where)
        fit = least_squares(residuals, x0 / scale, max_nfev=200 * len(slots), method="trf")
        return residuals(fit.x)
    except _Weak as weak:
        return weak.errors
    except (ValueError, FloatingPointError, OverflowError):
        return None


def classify_failure(card, env: str, predictor: dict, score) -> Optional[str]:
    """The failure mode of a scored submission, or None for a success (or a
    strict verdict sympy could not reach)."""
    if not score.valid:
        return "no_usable_answer"
    if score.weak:
        return "symbolic_not_recovered" if score.strict is False else None
    return "parameter_error" if refits_to_weak(card, env, predictor) else "incorrect_relation"
