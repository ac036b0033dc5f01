"""95% intervals for the report.

- Rates (weak and strict ESR, k successes of n episodes): the Wilson score
  interval (scipy's `binomtest(...).proportion_ci(method="wilson")`). It
  stays inside [0, 1] and is not degenerate at 0/n or n/n, which matters
  with the 3 to 30 episodes a cell usually has.
- Means (PS, SES, form credit): a percentile bootstrap over the cell's
  episodes, 2000 resamples, seeded (`SEED`, the same for every cell), so a
  report is reproducible to the digit. A cell of one episode has no
  interval; a cell whose values are all equal has the point as interval.

Two models' intervals *overlap* when neither lies wholly above the other;
the report then says that the difference is not significant at this size.
"""

from __future__ import annotations

from typing import Optional, Sequence

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20240601

Interval = Optional[tuple[float, float]]


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval of a rate, or None for n = 0."""
    if n <= 0:
        return None
    from scipy.stats import binomtest
    ci = binomtest(int(successes), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def bootstrap_mean(values: Sequence[float], confidence: float = CONFIDENCE, seed: int = SEED) -> Interval:
    """Percentile-bootstrap interval of the mean over the given episodes."""
    xs = [float(v) for v in values]
    if len(xs) < 2:
        return None
    if min(xs) == max(xs):
        return (xs[0], xs[0])
    import numpy as np
    from scipy.stats import bootstrap
    res = bootstrap((np.asarray(xs),), np.mean, confidence_level=confidence, n_resamples=RESAMPLES,
                    method="percentile", random_state=np.random.default_rng(seed), vectorized=True)
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def overlap(a: Interval, b: Interval) -> bool:
    """Whether two intervals overlap (None counts as overlapping anything:
    no interval, no evidence of a difference)."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]
