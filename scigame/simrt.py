"""The runtime surface of generated simulators.

A generated simulator module imports these names and nothing else; this
list is the whole contract between the code generator and the runtime.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

exported = ["njit", "math", "np", "step", "sign"]


@njit(cache=True, error_model="numpy")
def step(x):
    """1 for x > 0, else 0 (NaN stays NaN)."""
    if x != x:
        return x
    return 1.0 if x > 0.0 else 0.0


@njit(cache=True, error_model="numpy")
def sign(x):
    """-1, 0 or 1 (NaN stays NaN)."""
    if x != x:
        return x
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0
