"""Lint checks that need the laws evaluated: a law undefined somewhere on the
domain (E700), a counterfactual that cannot be told apart from the
original (E701), and measurement noise that hides the difference at the
card's Fixed budget (W320). They use the reference evaluator of the typed model.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .diagnostics import Reporter
from .model import CheckedCard
from .limits import MAX_DEPTH, tree_depth
from .trees import FoldError, expr_tree, law_tree
from .semantics import scaled_errors
from .sampling import SamplingError, constraint_mask, evaluation_set, fixed_design, from_unit, holds

#: Random probe points per card, on top of the evaluation set and the corners.
_PROBES = 2048


def _probe_points(card: CheckedCard) -> dict[str, np.ndarray]:
    """An explicit Fixed design's points first, the evaluation set, every
    corner of the domain box, and random points. (A generated design is
    drawn from the domain like the random probes; drawing it would import
    scipy's Sobol engine into every lint.)"""
    ev = evaluation_set(card, defined_only=False)
    design = fixed_design(card) if card.design_method is None else {}
    corner_values = []
    for s in card.inputs:
        corner_values.append(s.values if s.kind == "set" else
                             (float(math.ceil(s.lo)), float(math.floor(s.hi))) if s.kind == "integer"
                             else (s.lo, s.hi))
    corners = list(itertools.islice(itertools.product(*corner_values), 4096))
    rng = np.random.default_rng(12345)
    out = {}
    for i, s in enumerate(card.inputs):
        rnd = from_unit(s, rng.random(_PROBES))
        first = np.asarray(design.get(s.name, []), dtype=float) if design else np.empty(0)
        out[s.name] = np.concatenate([first, ev[s.name], [c[i] for c in corners], rnd]).astype(float)
    mask = constraint_mask(card, out)
    return {k: v[mask] for k, v in out.items()}


def tree_checks(card: CheckedCard, report: Reporter) -> None:
    """Build every law and constraint tree the compiled card will hold:
    folding must not overflow (E703), and inlining `let`s must not nest
    them deeper than the size policy allows (E104)."""
    targets = [(card.law_spans[(env.name, o.name)], f"law {o.name} ({env.name})",
                lambda env=env, o=o: law_tree(card, env, o.name))
               for env in (card.original, card.counterfactual) for o in card.outputs]
    targets += [(c.span, "this constraint", lambda c=c: (expr_tree(card, card.original, c.left),
                                                         expr_tree(card, card.original, c.right)))
                for c in card.constraints]
    seen: set = set()
    for span, what, build in targets:
        if span in seen:  # a law kept from the original: say it once
            continue
        seen.add(span)
        try:
            tree = build()
        except FoldError as exc:
            report.fold_overflow(span, what, str(exc))
            continue
        depth = tree_depth(tree)
        if depth > MAX_DEPTH:
            report.too_large(span, "inlined", MAX_DEPTH, depth, what=what)


def _most_restrictive(card: CheckedCard):
    """The span of the constraint that rejects the most random points."""
    rng = np.random.default_rng(7)
    pts = {s.name: from_unit(s, rng.random(4096)) for s in card.inputs}
    values = {s.name: pts[s.name] * s.unit.si_factor for s in card.inputs}
    values.update({n: p.value for n, p in card.original.params.items()})
    with np.errstate(all="ignore"):
        rates = [(float(np.mean(holds(c, values))), i) for i, c in enumerate(card.constraints)]
    return card.constraints[min(rates)[1]].span


def _point_text(card: CheckedCard, points, i: int) -> str:
    return ", ".join(f"{s.name}={points[s.name][i]:g}" for s in card.inputs)


def numeric_checks(card: CheckedCard, report: Reporter) -> None:
    """Report E700/E701 for a card that passed the static checks."""
    try:
        probes = _probe_points(card)
    except SamplingError as exc:
        report.constraints_exclude_domain(_most_restrictive(card), str(exc))
        return
    defined = True
    reported: set = set()
    for env in (card.original, card.counterfactual):
        values = env.evaluate(card, probes)
        declared = env.defined(card, probes)
        for out in card.outputs:
            v = values[out.name]
            holds_here = declared.get(out.name)
            if holds_here is not None and not holds_here.any():
                defined = False
                span = card.law_spans[(env.name, out.name)]
                if span not in reported:
                    reported.add(span)
                    report.nowhere_defined(env.where[out.name].span, out.name, env.name,
                                           env.where[out.name].text)
                continue
            # a law need not have a value where its `where` says it has none
            bad = np.flatnonzero(~np.isfinite(v) & (True if holds_here is None else holds_here))
            if len(bad):
                defined = False
                i = bad[0]
                span = card.law_spans[(env.name, out.name)]
                if span in reported:  # the same law in both worlds: say it once
                    continue
                reported.add(span)
                # a law kept from the original may be undefined because a `let` it uses was replaced
                related = [(m.span, f"`{m.target}` is replaced here") for m in card.mutations
                           if m.kind == "let" and env.name == "counterfactual"
                           and span == card.law_spans[("original", out.name)]]
                report.undefined_law(span, out.name, env.name, not np.isnan(v[i]), _point_text(card, probes, i), related,
                                     declared=holds_here is not None)
    if not defined:
        return
    _explicit_design_defined(card, report)
    try:
        ev = evaluation_set(card)
    except SamplingError as exc:  # both worlds have a value almost nowhere together
        report.constraints_exclude_domain(card.counterfactual_span, str(exc), where=True)
        return
    orig = card.original.evaluate(card, ev)
    cf = card.counterfactual.evaluate(card, ev)
    passing = []
    for truth, guess, played, law in ((cf, orig, "counterfactual", "original"),
                                      (orig, cf, "original", "counterfactual")):
        worst = max(_max_error(card, truth, guess))
        if worst <= 1.0:
            passing.append((law, played, worst))
    if passing:
        report.indistinguishable(card.counterfactual_span, card.counterfactual_label, passing,
                                 card.evaluation_size)
    elif any(o.noise_rel is not None for o in card.outputs):
        _noise_check(card, report)


def _explicit_design_defined(card: CheckedCard, report: Reporter) -> None:
    """E508: an explicit Fixed design point where a law has no value by its
    `where`, in either world (the oracle would refuse that experiment)."""
    if card.design_method is not None or not card.design_points or not card.design_point_spans:
        return
    points = {s.name: np.array([p[s.name] for p in card.design_points], dtype=float) for s in card.inputs}
    failing: dict[int, dict[str, list[str]]] = {}  # point -> output -> worlds
    for env in (card.original, card.counterfactual):
        for output, holds_here in env.defined(card, points).items():
            for i in np.flatnonzero(~holds_here):
                failing.setdefault(int(i), {}).setdefault(output, []).append(env.name)
    for i, outputs in sorted(failing.items()):
        output, worlds = next(iter(sorted(outputs.items())))
        report.bad_design(card.design_point_spans[i], "undefined", output, " and ".join(worlds))


#: The separation, in standard deviations of the noise, that the Fixed
#: observations must reach for the two worlds to be told apart (about a 1 in
#: 1000 chance of mistaking one for the other with the best possible test).
NOISE_SEPARATION = 3.0


def noise_separation(card: CheckedCard, points: dict[str, np.ndarray]) -> float:
    """How many noise standard deviations separate the two worlds' outputs
    at these points, together: sqrt(sum over points and noisy outputs of
    ((g_o - g_cf) / sd)^2), with sd = abs + rel·max(|g_o|, |g_cf|). The
    likelihood-ratio test between the two worlds has exactly this power
    (an exact output counts as infinitely separated where the worlds differ)."""
    orig = card.original.evaluate(card, points)
    cf = card.counterfactual.evaluate(card, points)
    total = 0.0
    for out in card.outputs:
        diff = np.abs(orig[out.name] - cf[out.name])
        if out.noise_rel is None:
            if np.any(diff > 0):
                return math.inf
            continue
        sd = out.noise_abs + out.noise_rel * np.maximum(np.abs(orig[out.name]), np.abs(cf[out.name]))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(diff > 0, diff / sd, 0.0)
        if not np.all(np.isfinite(z)):
            return math.inf
        total += float(np.sum(z * z))
    return math.sqrt(total)


def _noise_check(card: CheckedCard, report: Reporter) -> None:
    """W320: noisy outputs whose Fixed observations cannot separate the worlds."""
    try:
        design = fixed_design(card)
    except SamplingError:
        return
    budget = card.design_size
    points = {k: v[:budget] for k, v in design.items()}
    separation = noise_separation(card, points)
    if separation < NOISE_SEPARATION:
        noisy = next(o for o in card.outputs if o.noise_rel is not None)
        report.noise_hides_counterfactual(noisy.noise_span or noisy.span, min(budget, len(next(iter(points.values()), []))),
                                          separation, NOISE_SEPARATION)


def _max_error(card: CheckedCard, truth, guess):
    for out in card.outputs:
        g, h = truth[out.name], guess[out.name]
        yield float(np.max(scaled_errors(h, g, out.tol_abs, out.tol_rel)))
