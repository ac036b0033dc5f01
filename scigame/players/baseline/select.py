"""Model selection: held-out error, BIC, and the simplest law in tolerance.

Each candidate's score is a BIC with the tolerance as the noise scale:

    score = −½ Σ eᵢ² − ½ k ln n − L

where eᵢ are the leave-one-out errors in tolerance units (the law refitted
without point i and asked to predict it), k the fitted constants and L the
description length of the structure (nats: operators, exponents, the
output transform). Among laws whose held-out errors all stay within the
tolerance, the one with the least k ln n/2 + L wins outright: the simplest
law that predicts unseen points as well as the card asks. With
noise-free readings the in-sample residuals (up to one tolerance) count
EXACT_GAIN² − 1 times more (beyond the half resolution step of the
readings' rounding): exact data tell an exact law from a look-alike
that stays just inside the tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...predictor import PredictorInvalid, validate_predictor
from .fitting import ERROR_CAP, Law, exact_slack, scaled_errors
from .task import Output
from .trees import evaluate

#: Laws given held-out refits (the best by in-sample BIC).
HELD_OUT_TOP = 6
#: Nor a law whose in-sample score is this many nats behind the best's.
HELD_OUT_MARGIN = 30.0
#: Laws beyond the top given held-out refits too (_further).
HELD_OUT_EXTRA = 3
#: Held-out points per law at most.
HELD_OUT_POINTS = 12
#: With noise-free readings, a law whose held-out predictions all land
#: within the readings' slack (fitting.exact_slack) and one more resolution
#: step (the held-out reading is rounded, and so are those its refit stands
#: on) reproduces them: it is
#: the law, or its exact equal, not an approximation that stays inside the
#: tolerance; such a law gains EXACT_BONUS nats, more than any difference
#: of description length between the candidates (e^(−0.96·uv/c²) is 0.9
#: nats shorter than 1/(1 + uv/c²)); among exact laws the shorter still wins.
EXACT_BONUS = 10.0
#: With noise-free readings, how many times finer than the tolerance the
#: in-sample residuals are weighed: an exact reading that a law misses by
#: half a tolerance is evidence against it, and a law that fits the
#: readings exactly is preferred to a look-alike that stays just within.
EXACT_GAIN = 3.0


def _valid(law: Law, check_X: dict, X: dict, constrained: bool, refused: Optional[dict] = None,
           beyond: Optional[tuple[np.ndarray, int]] = None) -> bool:
    """Defined on the whole domain; on a card with constraints (which the
    player cannot evaluate), or where the world refused experiments (they
    show a constraint; `refused`: their inputs), defined at every observed
    point and at most of the domain (undefined check points become NaN);
    where it refused, also a law undefined at every refused point, however
    much of the domain that is: it predicts the refusals (asin(1.5·sin θ)
    past the critical angle). Where it refused nothing, on any card, also a
    law undefined only where the readings, beyond chance, are not
    (_readings_avoid; `beyond`: _beyond_readings, None where it refused)."""
    try:
        validate_predictor({"y": law.tree}, list(check_X), ["y"])
    except PredictorInvalid:
        return False
    chk = evaluate(law.tree, check_X)
    if chk is None and (constrained or refused or beyond is not None):
        from ...symbolic import evaluate_tree
        with np.errstate(all="ignore"):
            chk = np.where(np.isfinite(v := evaluate_tree(law.tree, check_X)), v, np.nan)
        avoided = beyond is not None and _readings_avoid(chk, *beyond)
        if constrained or refused:
            if np.mean(np.isnan(chk)) > 0.5 and not (refused and _predicts_refusals(law.tree, refused)) \
                    and not avoided:
                return False
        elif not avoided:
            return False
    obs = evaluate(law.tree, X) if X and len(next(iter(X.values()))) else np.zeros(0)
    if chk is None or obs is None or np.nanmax(np.abs(chk), initial=0) > 1e300:
        return False
    law.check, law.predict_obs = chk, obs
    return True


#: How unlikely, were the readings spread over the domain, their missing the
#: whole region where a law is undefined must be before that says the world
#: reads only where the law has a value (_readings_avoid).
AVOIDED = 0.05


def _beyond_readings(check_X: dict, X: dict) -> Optional[tuple[np.ndarray, int]]:
    """(the domain sample's points beyond the readings' range in some input,
    the number of distinct readings), or None when readings spread over the
    domain would have missed even all of them with probability above
    AVOIDED (then no law is undefined only where the readings, beyond
    chance, are not: _readings_avoid)."""
    n = len(next(iter(X.values()))) if X else 0
    if not n or not check_X:
        return None
    beyond = np.zeros(len(next(iter(check_X.values()))), bool)
    for name, values in X.items():
        x = np.asarray(check_X[name], dtype=float)
        beyond |= (x < np.min(values)) | (x > np.max(values))
    distinct = len(np.unique(np.column_stack([np.asarray(v, dtype=float) for v in X.values()]), axis=0))
    if (1.0 - float(np.mean(beyond))) ** distinct > AVOIDED:
        return None
    return beyond, distinct


def _readings_avoid(chk: np.ndarray, beyond: np.ndarray, distinct: int) -> bool:
    """Every domain point where the law is undefined (NaN in `chk`) lies
    beyond the readings' range in some input (`beyond`), and `distinct`
    readings spread over the domain would have missed that region with
    probability at most AVOIDED: the world reads only where the law has a
    value (a Fixed design drawn where the declared condition holds, snell's
    below the critical angle, shows no refusal), so nothing says the law
    must be defined there."""
    undefined = np.isnan(chk)
    return bool(undefined.any() and np.all(beyond[undefined])
                and (1.0 - float(np.mean(undefined))) ** distinct <= AVOIDED)


def _predicts_refusals(tree, refused: dict) -> bool:
    """The law is undefined at every point the world refused."""
    from ...symbolic import evaluate_tree
    with np.errstate(all="ignore"):
        v = np.asarray(evaluate_tree(tree, refused), dtype=float)
    return bool(v.size) and not np.any(np.isfinite(v))


def _held_out(law: Law, X: dict, y: np.ndarray, sw: np.ndarray) -> np.ndarray:
    n = len(y)
    e = scaled_errors(law.predict_obs, y, sw)
    held = np.arange(n) if n <= HELD_OUT_POINTS else np.unique(
        np.linspace(0, n - 1, HELD_OUT_POINTS).round().astype(int))
    if n < law.k + 2:
        return e * 1.5 + 1.0  # nothing left to test on: no better than untested
    for i in held:
        fn = law.refit(np.delete(np.arange(n), i))
        if fn is None:
            e[i] = ERROR_CAP
            continue
        try:
            with np.errstate(all="ignore"):
                p = fn({k: v[i:i + 1] for k, v in X.items()})
            p = float(np.asarray(p).ravel()[0])
        except (ValueError, TypeError, FloatingPointError, IndexError):
            p = math.nan
        e[i] = min(abs(p - y[i]) / sw[i], ERROR_CAP) if math.isfinite(p) else ERROR_CAP
    return e


def _beyond_rounding(law: Law, y: np.ndarray, sw: np.ndarray, output: Output) -> np.ndarray:
    """In-sample residuals in tolerance units (at most 1) beyond the half
    resolution step by which the readings are rounded."""
    r = np.abs(np.asarray(law.predict_obs, dtype=float) - y) - 0.5 * output.resolution
    return np.minimum(np.where(np.isfinite(r), np.maximum(r, 0.0), np.inf) / sw, 1.0)


def _exact(law: Law, slack) -> bool:
    """The law's held-out predictions all land within the slack of exact readings."""
    return slack is not None and law.held_out and bool(np.all(law.loo <= slack))


def _further(laws: list[Law], y: np.ndarray, sw: np.ndarray, slack) -> list[Law]:
    """The HELD_OUT_EXTRA laws beyond the held-out top that most deserve a held-out
    test: first those that meet every reading within the exact test's slack (or
    did before their constants were rounded: Law.unrounded), then
    the next by the proxy that fit every reading within the tolerance. The proxy
    inflates every law's in-sample errors alike, so an exact law of a longer
    description (or one whose shown constants are rounded, as relax writes them)
    can rank behind six short look-alikes, and without a held-out test it could
    never show that it is exact. Only with exact readings, and when no law of the
    top held out exact (a longer exact law would not beat it)."""
    exact = [f for f in laws if np.all(np.abs(f.predict_obs - y) / sw <= slack) or f.unrounded <= float(np.min(slack))]
    within = [f for f in laws if f.fit_max <= 1.0 and f not in exact]
    return (exact + within)[:HELD_OUT_EXTRA]


def rank(laws: list[Law], X: dict, y: np.ndarray, output: Output, check_X: dict,
         constrained: bool = False, refused: Optional[dict] = None) -> list[Law]:
    """Valid laws (_valid; `refused`: the inputs of the experiments the world
    refused), best first, with held-out errors and scores."""
    seen, kept = set(), []
    beyond = None if refused else _beyond_readings(check_X, X)  # refusals say where the world has no value
    for law in sorted(laws, key=lambda f: f.k):  # of equal trees, the one with the fewest constants
        key = repr(law.tree)
        if key not in seen and _valid(law, check_X, X, constrained, refused, beyond):
            seen.add(key)
            kept.append(law)
    n = len(y)
    if n == 0:
        for law in kept:
            law.score = -law.complexity - law.k
        return sorted(kept, key=lambda f: -f.score)
    sw = output.scale(y)
    penalty = {id(f): 0.5 * f.k * math.log(max(n, 2)) + f.complexity for f in kept}
    for law in kept:
        law.loo = scaled_errors(law.predict_obs, y, sw) * 1.5 + 0.5
    def proxy(f):  # in-sample errors, inflated as held-out ones would be
        return 0.5 * float(np.sum(np.minimum(f.loo, 30) ** 2)) + penalty[id(f)]
    kept.sort(key=proxy)
    slack = exact_slack(output, sw)  # None: readings too coarse (or noisy) to tell an exact law from a close one
    if slack is not None:
        slack = slack + output.resolution / sw  # held out, rounded readings on both sides of the refit
    line = proxy(kept[0]) + HELD_OUT_MARGIN if kept else math.inf
    def test(laws: list[Law]) -> None:
        for law in laws:
            # a law that misses its own data badly, or far behind the best, needs no held-out test
            if float(np.max(law.loo)) < 30 and proxy(law) <= line:
                law.loo = _held_out(law, X, y, sw)
                law.held_out = n >= law.k + 2
    test(kept[:HELD_OUT_TOP])
    if slack is not None and not any(_exact(f, slack) for f in kept[:HELD_OUT_TOP]):
        test(_further(kept[HELD_OUT_TOP:], y, sw, slack))  # an exact law beyond the top, when none in it is
    best_ms = min((float(np.mean(np.minimum(f.loo, 30) ** 2)) for f in kept), default=1.0)
    s2 = max(1.0, best_ms)  # nothing fits: temper the likelihoods
    gain = 0.0 if output.noisy else EXACT_GAIN ** 2 - 1.0
    for law in kept:
        within = bool(len(law.loo)) and float(np.max(law.loo)) <= 1.0
        exact = _exact(law, slack)
        inside = _beyond_rounding(law, y, sw, output) if gain else np.zeros(0)
        law.score = (-0.5 * (float(np.sum(np.minimum(law.loo, 30) ** 2)) + gain * float(np.sum(inside ** 2))) / s2
                     - penalty[id(law)] + (5.0 if within else 0.0) + (EXACT_BONUS if exact else 0.0))
    return sorted(kept, key=lambda f: (-f.score, f.k, f.text))


@dataclass
class Group:
    """Laws that predict the same within tolerance over the domain."""

    lead: Law
    weight: float


def group(laws: list[Law], output: Output) -> list[Group]:
    """Laws pooled by prediction (within half a tolerance over the domain),
    each group weighed by its best law's score alone. The search writes
    one approximation many ways (a power of 1 + x, an exponential, a
    shifted exponential ...); summing their weights would let that
    redundancy of the enumeration outvote an exact law."""
    if not laws:
        return []
    top = max(f.score for f in laws)
    groups: list[Group] = []
    for f in laws:
        w = math.exp(max(f.score - top, -700.0))
        for g in groups:
            if np.nanmax(np.abs(f.check - g.lead.check) / output.scale(g.lead.check), initial=0) <= 0.5:
                break  # a look-alike of a better law: counted once, at its best (see group)
        else:
            if len(groups) < 12:
                groups.append(Group(f, w))
    total = sum(g.weight for g in groups)
    for g in groups:
        g.weight /= total
    return sorted(groups, key=lambda g: -g.weight)
