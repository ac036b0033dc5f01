"""Experiments a scientist would run in the Adaptive protocol.

1. A base point at mid-domain, then one input at a time moved to a low and
   a high value with the others held at the base (the controlled
   comparisons of the explanation); their readings give the output's
   log–log slope in each positive input below and above the base (one
   slope for a power of that input, a drifting one for a sum, a shift or
   a saturation in it: `slopes`).
2. Separability and symmetry: for pairs of inputs, the point with both
   moved, which tells whether their effects multiply (f(a′,b′)·f(a,b) =
   f(a′,b)·f(a,b′)) or add, and gives the slope in a at a second base
   point, b high, beside the one at the base (`interactions`: equal
   slopes, the power of a does not depend on b); for two inputs of the
   same dimension, the point with their values swapped.
3. Then the point, among seeded random candidates of the domain, where
   the leading hypothesis and its credible rivals disagree decisively,
   with a bonus for distance from the points already measured; candidates
   nearer to a refused experiment than to a measured one are skipped (the
   oracle's constraint is a region the player learns from refusals).
"""

from __future__ import annotations

import itertools
import math
from typing import Optional

import numpy as np

from .identify import Hyp
from .task import Input, Output, Sampler
from .trees import evaluate

#: Random candidates searched for the most telling experiment.
CANDIDATE_POINTS = 512
#: Positions (in [0, 1] of the domain) of the base point and the low and high values.
BASE, LOW, HIGH = 0.5, 0.15, 0.85
#: A disagreement of this many tolerances settles a rival (its likelihood
#: falls by e^(-DECISIVE²/2)); more is worth no more.
DECISIVE = 5.0
#: Rivals less credible than this do not steer the design.
RIVAL_FLOOR = 1e-3
#: Pairs tested for separability at most.
MAX_PAIRS = 6


def _point(inputs: list[Input], u: dict[str, float]) -> dict[str, float]:
    return {i.name: i.tidy(float(i.from_unit(np.array([u.get(i.name, BASE)]))[0])) for i in inputs}


def _pairs(inputs: list[Input]) -> list[tuple[Input, Input]]:
    varying = [i for i in inputs if i.varies]
    return list(itertools.combinations(varying, 2))[:MAX_PAIRS]


def planned(inputs: list[Input], allowed=None) -> list[tuple[dict[str, float], str]]:
    """The controlled design: base, one at a time, pairs, swaps (those the
    task's stated constraints, when readable, allow)."""
    plan = [(_point(inputs, {}), "base point at mid-domain")]
    for i in inputs:
        if i.varies:
            plan.append((_point(inputs, {i.name: LOW}), f"vary {i.name} alone (low)"))
            plan.append((_point(inputs, {i.name: HIGH}), f"vary {i.name} alone (high)"))
    for a, b in _pairs(inputs):
        plan.append((_point(inputs, {a.name: HIGH, b.name: HIGH}), f"separability of {a.name} and {b.name}"))
        if a.dim is not None and b.dim is not None and np.allclose(a.dim, b.dim) and a.unit == b.unit:
            swap = _point(inputs, {a.name: LOW, b.name: HIGH})
            swap[a.name], swap[b.name] = swap[b.name], swap[a.name]
            if a.lo <= swap[a.name] <= a.hi and b.lo <= swap[b.name] <= b.hi:
                plan.append((swap, f"symmetry of {a.name} and {b.name}"))
    seen, out = set(), []
    for pt, why in plan:
        key = tuple(sorted(pt.items()))
        if key not in seen and (allowed is None or bool(allowed({k: np.array([v]) for k, v in pt.items()})[0])):
            seen.add(key)
            out.append((pt, why))
    return out


def plan_size(n: int, budget: Optional[int]) -> int:
    """How much of a controlled design of n points to run: at most half the budget."""
    return n if budget is None else max(min(n, budget // 2), min(4, budget))


def _reading(table: dict, inputs: list[Input], u: dict[str, float], o: Output) -> float:
    row = table.get(tuple(sorted(_point(inputs, u).items())))
    try:
        return float(row.get(o.name, math.nan)) if row is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def slopes(inputs: list[Input], outputs: list[Output],
           observations: list) -> list[tuple[str, str, float, float, float]]:
    """The log–log slopes d ln y / d ln x of each output in each positive
    input, from the one-at-a-time design: below the base (low to base) and
    above it (base to high), with the others held at the base; and the
    largest difference of the two that the tolerances of the three readings
    allow. A power of x has one slope on both sides; a sum, a shift or a
    saturation in x makes it drift. (output, input, below, above, allowed)
    for every pair whose readings are there and of one sign."""
    table = {tuple(sorted(ob.inputs.items())): ob.outputs for ob in observations}
    out = []
    for i in inputs:
        if not i.varies or not i.positive:
            continue
        x = [_point(inputs, u)[i.name] for u in ({i.name: LOW}, {}, {i.name: HIGH})]
        if not (0 < x[0] < x[1] < x[2]):
            continue
        for o in outputs:
            y = np.array([_reading(table, inputs, u, o) for u in ({i.name: LOW}, {}, {i.name: HIGH})])
            if not np.all(np.isfinite(y)) or not (np.all(y > 0) or np.all(y < 0)):
                continue
            rel = o.scale(y) / np.abs(y)  # each reading's tolerance, relative: the error of its log
            dl, du = math.log(x[1] / x[0]), math.log(x[2] / x[1])
            below, above = math.log(y[1] / y[0]) / dl, math.log(y[2] / y[1]) / du
            allowed = (rel[0] + rel[1]) / dl + (rel[1] + rel[2]) / du
            out.append((o.name, i.name, below, above, allowed))
    return out


def _square(a: Input, b: Input) -> tuple[dict[str, float], ...]:
    """The base point, a high, b high and both high (as positions for _point):
    the four points of a pair's separability test."""
    return {}, {a.name: HIGH}, {b.name: HIGH}, {a.name: HIGH, b.name: HIGH}


def interactions(inputs: list[Input], outputs: list[Output],
                 observations: list) -> list[tuple[str, str, str, float, float, float]]:
    """The log–log slope of each output in input a above the base point,
    measured at two base points: with b at the base (the one-at-a-time
    design) and with b high (the separability point). Equal slopes: a's
    exponent does not depend on b; different ones: a and b interact.
    (output, a, b, slope with b at the base, slope with b high, the largest
    difference the four readings' tolerances allow) for every pair of
    positive inputs whose readings are there and of one sign."""
    table = {tuple(sorted(ob.inputs.items())): ob.outputs for ob in observations}
    out = []
    for a, b in _pairs(inputs):
        if not (a.positive and b.positive):
            continue
        us = _square(a, b)
        x0, x1 = _point(inputs, {})[a.name], _point(inputs, {a.name: HIGH})[a.name]
        if not 0 < x0 < x1:
            continue
        for o in outputs:
            y = np.array([_reading(table, inputs, u, o) for u in us])
            if not np.all(np.isfinite(y)) or not (np.all(y > 0) or np.all(y < 0)):
                continue
            rel = o.scale(y) / np.abs(y)
            d = math.log(x1 / x0)
            out.append((o.name, a.name, b.name, math.log(y[1] / y[0]) / d, math.log(y[3] / y[2]) / d,
                        float(np.sum(rel)) / d))
    return out


def findings(inputs: list[Input], outputs: list[Output], observations: list) -> list[str]:
    """What the controlled design showed: the scaling in each input (one
    log–log slope or a drifting one), each pair's slopes at two base points
    (interactions), separable pairs."""
    table = {tuple(sorted(ob.inputs.items())): ob.outputs for ob in observations}
    out = []
    for o, name, below, above, allowed in slopes(inputs, outputs, observations):
        if abs(above - below) <= allowed:
            out.append(f"{o} scales as a power of {name}: one log–log slope, {0.5 * (below + above):.3g}, "
                       f"on both sides of the base point")
        else:
            out.append(f"the log–log slope of {o} in {name} drifts from {below:.3g} to {above:.3g}: "
                       f"not a power of {name} alone (a sum, a shift or a saturation in {name})")
    for o, a, b, at_base, b_high, allowed in interactions(inputs, outputs, observations):
        verdict = f"the power of {a} does not depend on {b}" if abs(b_high - at_base) <= allowed else \
            f"{a} and {b} interact"
        out.append(f"the log–log slope of {o} in {a} is {at_base:.3g} with {b} at the base point and "
                   f"{b_high:.3g} with {b} high: {verdict}")
    for a, b in _pairs(inputs):
        keys = [_point(inputs, u) for u in _square(a, b)]
        rows = [table.get(tuple(sorted(k.items()))) for k in keys]
        if any(r is None for r in rows):
            continue
        for o in outputs:
            f0, fa, fb, fab = (float(r.get(o.name, math.nan)) for r in rows)
            tol = float(o.scale(np.array([fab]))[0]) * 2
            if abs(fa * fb - f0 * fab) <= tol * max(abs(f0), 1e-300) and f0 != 0:
                out.append(f"{o.name} is multiplicatively separable in {a.name} and {b.name}")
            elif abs(fa + fb - f0 - fab) <= tol:
                out.append(f"{o.name} is additively separable in {a.name} and {b.name}")
    return out


def _feasible(U: np.ndarray, inputs: list[Input], known: list[dict], rejected: list[dict]) -> np.ndarray:
    """Candidates the oracle will likely accept: nearer (in domain units) to
    a measured point than to a refused one. Refusals mark a region (a
    constraint the player cannot read), not single points."""
    def unit(points):
        return np.array([[float(inp.to_unit(np.array([float(p.get(inp.name, 0.0))]))[0]) for inp in inputs]
                         for p in points])

    def nearest(points):
        return np.min(np.linalg.norm(U[:, None, :] - unit(points)[None, :, :], axis=2), axis=1)
    if not rejected:
        return np.ones(len(U), bool)
    to_rejected = nearest(rejected)
    if not known:
        return to_rejected >= 0.02
    return (to_rejected >= 0.02) & (nearest(known) < to_rejected)


def choose(inputs: list[Input], outputs: list[Output], hyps: list[Hyp], sampler: Sampler,
           known: list[dict], rejected: list[dict], seed: int,
           turn: int) -> tuple[dict[str, float], str, float]:
    """The candidate point where the leading hypothesis and its rivals
    disagree most (in tolerances up to DECISIVE, weighed by each rival's
    confidence; rivals of confidence ≥ RIVAL_FLOOR), away
    from the points measured and from the region the oracle refuses; and
    that disagreement (below 1: no experiment left tells them apart)."""
    d = len(inputs)
    rng = np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, len(known), turn]))
    C = sampler.from_unit(rng.random((CANDIDATE_POINTS, d)))
    for inp in inputs:
        C[inp.name] = np.array([inp.tidy(v) for v in C[inp.name]])
    ranked = sorted(range(len(hyps)), key=lambda i: -hyps[i].confidence)
    lead = ranked[0]
    score = np.zeros(CANDIDATE_POINTS)  # the largest disagreement with a rival
    value = np.zeros(CANDIDATE_POINTS)  # what the point is worth: decisive tests of credible rivals
    rival = np.full(CANDIDATE_POINTS, ranked[1] if len(ranked) > 1 else lead)
    for b in [r for r in ranked[1:] if hyps[r].confidence >= RIVAL_FLOOR]:
        diff = np.zeros(CANDIDATE_POINTS)
        for o in outputs:
            pa, pb = evaluate(hyps[lead].predictor[o.name], C), evaluate(hyps[b].predictor[o.name], C)
            if pa is not None and pb is not None:
                diff += np.abs(pa - pb) / np.maximum(o.scale(pa), o.scale(pb))
        rival = np.where(diff * hyps[b].confidence > value, b, rival)
        value += hyps[b].confidence * np.minimum(diff, DECISIVE)
        score = np.maximum(score, diff)
    U = np.column_stack([inp.to_unit(C[inp.name]) for inp in inputs])
    others = known + rejected
    if others:
        K = np.array([[float(inp.to_unit(np.array([float(p.get(inp.name, 0.0))]))[0]) for inp in inputs]
                      for p in others])
        dist = np.min(np.linalg.norm(U[:, None, :] - K[None, :, :], axis=2), axis=1)
    else:
        dist = np.ones(CANDIDATE_POINTS)
    ok = _feasible(U, inputs, known, rejected)
    if sampler.allowed is not None:
        ok &= sampler.allowed(C)
    total = np.where(ok, value / max(sum(h.confidence for h in hyps) - hyps[lead].confidence, 1e-12)
                     + 0.5 * dist, -np.inf)
    if not np.any(ok):
        total = dist
    best = int(np.argmax(total))
    spread = float(np.max(np.where(ok, score, 0.0))) if np.any(ok) else math.inf
    return ({inp.name: float(C[inp.name][best]) for inp in inputs},
            f"hypotheses {lead + 1} and {int(rival[best]) + 1} differ here by {score[best]:.3g} tolerances", spread)
