"""Scoring a law submitted for a system card.

A system card's predictor is its law: one tree, in the law's arguments
(declared units), giving the law's value in its SI unit. It is scored twice:

- on the law itself, over the hidden set of the arguments' domains, by the
  formulas of every card (PS, weak, strict; `LawView` makes the law look like
  a static card's output to `scoring.score_predictor`);
- by the observables it implies: the system integrated with the submitted law
  (by the same compiled DOP853 integrator as the card's own kernels,
  compiler/system_emit.py) at the first `SYSTEM_POINTS` hidden inputs,
  against the card's exact outputs there: `ps_system` and `weak_system` by
  the same formulas. Hidden inputs where the card's own system cannot be
  integrated are left out; where the submitted law's system cannot be, the
  error counts as `FAILED_ERROR` in PS and fails weak.
"""

from __future__ import annotations

from functools import cached_property
from typing import Optional

import numpy as np

from .compiler.artifact import EvaluationSet
from .compiler.semantics import scaled_errors

#: Hidden inputs at which a submitted law's system is simulated.
SYSTEM_POINTS = 64
#: The scaled error of a point where the submitted law's system cannot be integrated.
FAILED_ERROR = 1e3


class LawView:
    """A system card as the scorer sees it: the law's arguments are the
    inputs, the law is the one output, the law's hidden set is the
    evaluation set (compiler/build_system.law_view_data)."""

    def __init__(self, card) -> None:
        from .compiler.build_system import law_view_data
        self.card = card
        self.data = law_view_data(card.data)
        law = card.evaluation.law
        self.evaluation = EvaluationSet(inputs=law.inputs, outputs=law.outputs)
        self.input_names = [a.name for a in self.data.inputs]
        self.output_names = [self.data.system.law]

    @property
    def scored(self) -> "LawView":
        return self

    def score(self, predictor, env: str, strict_timeout: Optional[float] = None):
        from .predictor import PredictorInvalid, parse_predictor_json, validate_predictor
        from .scoring import score_predictor
        score = score_predictor(self, predictor, env, strict_timeout=strict_timeout)
        if not score.valid:
            return score
        try:
            if isinstance(predictor, (str, bytes)):
                predictor = parse_predictor_json(predictor)
            clean = validate_predictor(predictor, self.input_names, self.output_names)
        except PredictorInvalid:
            return score
        ps, weak = system_score(self.card, clean[self.data.system.law], env)
        return score.model_copy(update={"ps_system": ps, "weak_system": weak})


def submitted_law_si(spec, tree):
    """A predictor's tree (arguments in declared units, value in the law's
    unit) as an SI tree over `arg:NAME`."""
    factors = {a.name: a.si_factor for a in spec.arguments}

    def walk(t):
        if isinstance(t, dict) and "var" in t:
            f = factors[t["var"]]
            v = {"var": f"arg:{t['var']}"}
            return v if f == 1.0 else {"op": "div", "args": [v, f]}
        if isinstance(t, dict) and "op" in t:
            return {"op": t["op"], "args": [walk(a) for a in t["args"]]}
        return float(t)

    return walk(tree)


def simulate_with_law(card, law_tree, env: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The system of world `env` integrated with another law (a predictor's
    tree) at inputs in declared units: outputs in declared units, NaN where
    it cannot be integrated. The integrator module is cached by its text."""
    from .compiler.system_emit import numba_module_source
    from .compiler.system_run import load_source, run
    spec = card.data.system
    world = spec.worlds[env].model_copy(update={"law": submitted_law_si(spec, law_tree)})
    source = numba_module_source(spec, [(s.name, s.si_factor) for s in card.data.inputs],
                                 [(o.name, o.si_factor) for o in card.data.outputs], {"law": world})
    module = load_source(source)
    xs = [np.asarray(inputs[s.name], dtype=float) for s in card.data.inputs]
    ys = run(module, "law", xs, len(card.data.outputs))
    return dict(zip([o.name for o in card.data.outputs], ys))


def system_score(card, law_tree, env: str) -> tuple[Optional[float], Optional[bool]]:
    """(ps_system, weak_system) of a valid law (see the module docstring)."""
    ev = card.evaluation
    n = min(SYSTEM_POINTS, len(next(iter(ev.inputs.values()))))
    truth = {o.name: np.asarray(ev.outputs[env][o.name][:n], dtype=float) for o in card.data.outputs}
    keep = np.all([np.isfinite(v) for v in truth.values()], axis=0)
    if not keep.any():
        return None, None
    inputs = {k: np.asarray(v[:n], dtype=float)[keep] for k, v in ev.inputs.items()}
    with np.errstate(all="ignore"):
        got = simulate_with_law(card, law_tree, env, inputs)
    errors = []
    for o in card.data.outputs:
        e = scaled_errors(got[o.name], truth[o.name][keep], o.tol_abs, o.tol_rel)
        errors.append(np.where(np.isfinite(e), e, np.inf))
    e = np.concatenate(errors)
    ps = float(1.0 / (1.0 + np.mean(np.minimum(e, FAILED_ERROR))))
    return ps, bool(np.all(e <= 1.0))


class SystemCardMixin:
    """What a CompiledCard of a system card adds (see scigame/card.py)."""

    @cached_property
    def scored(self):
        """What a predictor is scored on: the card itself, or a system card's `LawView`."""
        return LawView(self) if self.data.system is not None else self
