"""Where lint probes a card's laws: the points numeric.py (a static card)
and system_lint.py (a system card) evaluate, and how one of them reads in
a message."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .model import CheckedCard
from .sampling import constraint_mask, evaluation_set, fixed_design, from_unit

#: Random probe points per card, on top of the evaluation set and the corners.
_PROBES = 2048
#: The same for a system card, whose every point is an integration.
_SYSTEM_PROBES = 256


def probe_points(card: CheckedCard) -> dict[str, np.ndarray]:
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
        rnd = from_unit(s, rng.random(_PROBES if card.system is None else _SYSTEM_PROBES))
        first = np.asarray(design.get(s.name, []), dtype=float) if design else np.empty(0)
        out[s.name] = np.concatenate([first, ev[s.name], [c[i] for c in corners], rnd]).astype(float)
    mask = constraint_mask(card, out)
    return {k: v[mask] for k, v in out.items()}


def point_text(card: CheckedCard, points, i: int) -> str:
    """Point `i` of `points` as a message reads it: `x=1, y=2`."""
    return ", ".join(f"{s.name}={points[s.name][i]:g}" for s in card.inputs)
