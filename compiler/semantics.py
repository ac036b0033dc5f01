"""Numeric meanings the compiler and the runtime share: how a constraint
compares its two sides, and the scaled error that a card's tolerances define.

Numpy only, so the runtime (`scigame.oracle`, `scigame.scoring`) imports it
without pint or Lark.
"""

from __future__ import annotations

import numpy as np

#: A constraint's comparison (`COMPARE` in grammar/sci.lark), as a numpy function.
COMPARISONS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


#: The largest scaled error recorded: an error past it (a prediction of 1e307
#: against a tolerance of 1e-3 overflows to inf) is recorded as this, so the
#: mean of up to 1e5 of them stays a finite number, and the verdict (> 1) is
#: the same.
MAX_SCALED_ERROR = 1e300


def scaled_errors(predicted, truth, tol_abs: float, tol_rel: float) -> np.ndarray:
    """e = |ĝ − g| / (a + λ|g|), elementwise, at most MAX_SCALED_ERROR."""
    with np.errstate(over="ignore"):
        e = np.abs(predicted - truth) / (tol_abs + tol_rel * np.abs(truth))
    return np.minimum(e, MAX_SCALED_ERROR)
