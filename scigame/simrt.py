"""The runtime surface of generated simulators.

A generated simulator module imports these names and nothing else. The
list is the compiler's `RUNTIME_NAMES`, derived from the card-function
table (compiler/functions.py); `exported` is that contract, and
tests/test_functions.py checks that every name in it is defined here.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .compiler.functions import RUNTIME_NAMES

exported = list(RUNTIME_NAMES)
__all__ = exported

#: From this many points on, a kernel call uses the parallel twin: below it,
#: starting threads costs more than it saves (and the episodes' small calls
#: stay single-threaded inside worker processes).
PARALLEL_MIN_POINTS = 32768


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
