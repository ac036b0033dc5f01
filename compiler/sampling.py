"""Input points drawn from a card's domain: the Fixed design and the hidden
evaluation set. Deterministic for a given seed; every point respects its
input's domain, integer and discrete rules and every constraint.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Callable, Optional

import numpy as np

from .model import CheckedCard, ConstraintModel, InputModel, evaluate
from .limits import widened_bounds
from .semantics import COMPARISONS


class SamplingError(ValueError):
    """The constraints (and the laws' `where`) leave (almost) nothing of the domain."""


def from_unit(spec: InputModel, u: np.ndarray) -> np.ndarray:
    """Map uniform numbers in [0, 1) to an input's domain (declared units)."""
    if spec.kind == "range":
        return spec.lo + u * (spec.hi - spec.lo)
    if spec.kind == "log":
        return np.exp(math.log(spec.lo) + u * (math.log(spec.hi) - math.log(spec.lo)))
    if spec.kind == "integer":
        lo, hi = math.ceil(spec.lo), math.floor(spec.hi)
        return np.minimum(lo + np.floor(u * (hi - lo + 1)), hi).astype(float)
    values = np.asarray(spec.values, dtype=float)
    return values[np.minimum((u * len(values)).astype(int), len(values) - 1)]


def constraint_mask(card: CheckedCard, points: dict[str, np.ndarray]) -> np.ndarray:
    """True where every constraint of the card holds (points in declared units)."""
    n = len(next(iter(points.values()))) if points else 0
    ok = np.ones(n, dtype=bool)
    if not card.constraints:
        return ok
    values: dict[str, object] = {s.name: np.asarray(points[s.name], float) * s.unit.si_factor
                                 for s in card.inputs}
    values.update({name: p.value for name, p in card.original.params.items()})
    with np.errstate(all="ignore"):
        for c in card.constraints:
            ok &= holds(c, values)
    return ok


def holds(c: ConstraintModel, values) -> np.ndarray:
    left, right = evaluate(c.left, values), evaluate(c.right, values)
    return COMPARISONS[c.op](left, right)


def _draw(card: CheckedCard, size: int, unit_sampler: Callable[[int], np.ndarray],
          what: str, accept: Optional[Callable[[dict], np.ndarray]] = None) -> dict[str, np.ndarray]:
    """Draw batches of unit-cube points until `size` satisfy the constraints
    (and `accept`, a further mask over a batch, when given)."""
    names = [s.name for s in card.inputs]
    kept = {n: [] for n in names}
    have, drawn = 0, 0
    while have < size:
        batch = max(2 * (size - have), 64)
        if drawn > 1000 * size + 10000:
            raise SamplingError(f"only {have} of {drawn} random points of the domain satisfy the "
                                f"constraints (drawing the {what})")
        u = unit_sampler(batch)
        drawn += batch
        pts = {s.name: from_unit(s, u[:, i]) for i, s in enumerate(card.inputs)}
        mask = constraint_mask(card, pts)
        if accept is not None:
            mask &= accept(pts)
        take = np.flatnonzero(mask)[: size - have]
        for n in names:
            kept[n].append(pts[n][take])
        have += len(take)
    return {n: np.concatenate(kept[n]) for n in names}


def both_defined(card: CheckedCard) -> Optional[Callable[[dict], np.ndarray]]:
    """A mask of the points where every law of both worlds has a value by
    its `where` (None when no law declares one)."""
    if not (card.original.where or card.counterfactual.where):
        return None

    def mask(points: dict[str, np.ndarray]) -> np.ndarray:
        ok = np.ones(len(next(iter(points.values()))), dtype=bool)
        for env in (card.original, card.counterfactual):
            for holds_here in env.defined(card, points).values():
                ok &= holds_here
        return ok
    return mask


def evaluation_set(card: CheckedCard, defined_only: bool = True) -> dict[str, np.ndarray]:
    """The hidden evaluation set: `evaluation N seed S` uniform random points
    (log-uniform on `log` domains), where both worlds' laws have a value
    (unless `defined_only` is False: lint probes the laws everywhere)."""
    rng = np.random.default_rng(card.evaluation_seed)
    return _draw(card, card.evaluation_size, lambda n: rng.random((n, len(card.inputs))),
                 "evaluation set", accept=both_defined(card) if defined_only else None)


def widened(spec: InputModel, factor: float) -> InputModel:
    """An input's domain widened `factor` times about its centre: linearly for
    `range` and `integer` inputs, in the logarithm for `log` inputs. A domain
    that lies in x >= 0 stays there (a mass, a length or a count does not turn
    negative out of domain); a discrete set is kept as it is."""
    if spec.kind == "set":
        return spec
    lo, hi = widened_bounds(spec.kind, spec.lo, spec.hi, factor)  # lint has refused an overflowing factor
    if spec.kind == "log":
        return dataclasses.replace(spec, lo=lo, hi=hi)
    if spec.lo >= 0:
        lo = max(lo, 0.0)
    return dataclasses.replace(spec, lo=lo, hi=hi)


def ood_set(card: CheckedCard) -> Optional[dict[str, np.ndarray]]:
    """The out-of-domain evaluation set of `evaluation N ... ood F`: N points
    drawn like the evaluation set from the domain widened by F (see
    `widened`), keeping only points where both worlds' laws are defined and
    finite, and where every constraint holds. None without `ood`."""
    if card.evaluation_ood is None:
        return None
    wide = dataclasses.replace(card, inputs=tuple(widened(s, card.evaluation_ood) for s in card.inputs))
    rng = np.random.default_rng([card.evaluation_seed, 1])

    declared = both_defined(card)

    def defined(points: dict[str, np.ndarray]) -> np.ndarray:
        ok = np.ones(len(next(iter(points.values()))), dtype=bool) if declared is None else declared(points)
        for env in (card.original, card.counterfactual):
            for values in env.evaluate(card, points).values():
                ok &= np.isfinite(np.broadcast_to(values, ok.shape))
        return ok

    return _draw(wide, card.evaluation_size, lambda n: rng.random((n, len(card.inputs))),
                 "out-of-domain evaluation set", accept=defined)


#: Random and Sobol designs are sequences: the compiled card keeps at least
#: this many points so that a run may ask for a larger budget than the card's.
DESIGN_SEQUENCE = 64


def fixed_design(card: CheckedCard) -> dict[str, np.ndarray]:
    """The Fixed protocol's preset design, in sequence order (a budget B
    takes the first B points). Random and Sobol designs are extended to
    DESIGN_SEQUENCE points; grid and explicit designs are what the card says."""
    if card.design_method is None:
        return {s.name: np.array([p[s.name] for p in card.design_points], dtype=float)
                for s in card.inputs}
    d, seed = len(card.inputs), card.design_seed
    size = card.design_size if card.design_method == "grid" else max(card.design_size, DESIGN_SEQUENCE)
    if card.design_method == "random":
        rng = np.random.default_rng(seed)
        return _draw(card, size, lambda n: rng.random((n, d)), "fixed design", accept=both_defined(card))
    if card.design_method == "sobol":
        from scipy.stats import qmc
        engine = qmc.Sobol(d, scramble=True, seed=seed)

        def sobol(n):
            with warnings.catch_warnings():  # balance warnings for n not a power of 2
                warnings.simplefilter("ignore")
                return engine.random(n)
        return _draw(card, size, sobol, "fixed design", accept=both_defined(card))
    size = card.design_size
    # grid: k levels per input at cell centres, then `size` points spread
    # evenly over the grid's lexicographic order
    k = max(1, math.ceil(size ** (1.0 / d)))
    levels = (np.arange(k) + 0.5) / k
    mesh = np.stack(np.meshgrid(*([levels] * d), indexing="ij"), -1).reshape(-1, d)
    pts = {s.name: from_unit(s, mesh[:, i]) for i, s in enumerate(card.inputs)}
    mask = constraint_mask(card, pts)
    defined = both_defined(card)
    if defined is not None:
        mask &= defined(pts)
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        raise SamplingError("the constraints exclude every point of the grid design")
    pick = idx[np.unique(np.linspace(0, len(idx) - 1, min(size, len(idx))).round().astype(int))]
    return {n: v[pick] for n, v in pts.items()}
