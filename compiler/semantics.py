"""Numeric meanings the compiler and the runtime share: how a constraint
compares its two sides, and the scaled error that a card's tolerances define.

Numpy only, so the runtime (`scigame.oracle`, `scigame.scoring`) imports it
without pint or Lark.
"""

from __future__ import annotations

import numpy as np

#: A constraint's comparison (`COMPARE` in grammar/sci.lark), as a numpy function.
COMPARISONS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def scaled_errors(predicted, truth, tol_abs: float, tol_rel: float) -> np.ndarray:
    """e = |ĝ − g| / (a + λ|g|), elementwise."""
    return np.abs(predicted - truth) / (tol_abs + tol_rel * np.abs(truth))
