"""A system card's law of named arguments as numbers: points of its
arguments, its SI tree's values there, and its tolerance. Below both the
integrator's emitter (system_emit.system_spec sets the tolerance) and the
compiled folder's parts (build_system.py) and lint (system_lint.py).

A law of named arguments declares no unit: its value is in the SI unit of
its dimension (`SystemSpec.law_unit`), and its tolerance is the finest
relative tolerance of the card's outputs, with an absolute part of
`LAW_ABS_FACTOR` times that times the median |law| over the hidden set
(so it matters only where the law comes near zero).
"""

from __future__ import annotations

import numpy as np

from .domain import from_unit

#: Law tolerance (see docs/language.md): the finest output rel tolerance, and this
#: fraction of it times the median |law| as the absolute part.
LAW_ABS_FACTOR = 1e-3


def law_points(card_or_args, size: int, seed: int) -> dict[str, np.ndarray]:
    """`size` points of the law's arguments, uniform (log-uniform on `log`
    domains) in their domains, declared units."""
    args = card_or_args
    rng = np.random.default_rng(seed)
    u = rng.random((size, len(args)))
    return {a.name: from_unit(_Domain(a), u[:, i]) for i, a in enumerate(args)}


class _Domain:
    """An argument (InputSpec or ArgumentModel) as sampling's input model."""

    def __init__(self, a) -> None:
        d = getattr(a, "domain", None)
        self.kind = d.kind if d is not None else a.kind
        self.lo = d.lo if d is not None else a.lo
        self.hi = d.hi if d is not None else a.hi
        self.values = tuple(d.values) if d is not None else a.values


def law_values(spec_args, law_si, points: dict[str, np.ndarray]) -> np.ndarray:
    """The SI law tree at points given in declared units."""
    values = {f"arg:{a.name}": np.asarray(points[a.name], dtype=float) * a.si_factor for a in spec_args}
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(evaluate_tree(law_si, values), dtype=float),
                               np.shape(next(iter(values.values())))).copy()


def evaluate_tree(tree, values: dict):
    """An SI tree on arrays (the predictor language's numpy meanings; NaN or
    inf where an op leaves its domain)."""
    from .predictor_ops import OP_TABLE
    if isinstance(tree, (int, float)):
        return float(tree)
    if "var" in tree:
        return values[tree["var"]]
    return OP_TABLE[tree["op"]].numpy(*(evaluate_tree(a, values) for a in tree["args"]))


def law_tolerance(card, args, law_si) -> tuple[float, float]:
    """(abs, rel) tolerance of the law (see the module docstring)."""
    rels = [o.tol_rel for o in card.outputs if o.tol_rel > 0]
    rel = min(rels) if rels else 0.01
    v = np.abs(law_values(args, law_si, law_points(args, card.evaluation_size, card.evaluation_seed)))
    v = v[np.isfinite(v) & (v > 0)]
    scale = float(np.median(v)) if len(v) else 1.0
    return LAW_ABS_FACTOR * rel * scale, rel
