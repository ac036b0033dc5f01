"""An input's domain seen from the unit cube: the one mapping every draw
uses (sampling.py's sets and designs, lint's probes, a system law's
points). A leaf: it imports no other module of the compiler."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .model import InputModel


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
