"""95% intervals and paired comparisons for the report, with the card as
the unit of evidence.

A cell's episodes are not independent draws: a card is played R times,
and a deterministic player (the baseline) gives the same outcome every
time. Repetitions of one card therefore add no evidence about the player
beyond that card, and the sample size of a cell is its number of cards.

- Rates (weak and strict ESR): the Wilson score interval with n = the
  cell's cards and the rate as the mean of the per-card rates (each card's
  share of successful repetitions). When every card's repetitions agree
  this is exactly Wilson on k successful cards of n; when they disagree it
  is conservative. It stays inside [0, 1] and is not degenerate at 0 or 1.
- Means (PS, SES, form credit): a two-stage (cluster) percentile bootstrap:
  each resample draws n cards with replacement, then, inside each drawn
  card, its repetitions with replacement; the statistic is the mean of the
  per-card means. `RESAMPLES` resamples from a fixed `SEED`, so a report
  is reproducible to the digit. A cell of one card has no interval.
- Two runs in a cell are compared on the cards both played (paired by
  card): the difference of per-card means, with the same two-stage
  bootstrap for its interval, and the Wilcoxon signed-rank test over the
  shared cards (two-sided, cards with no difference dropped; p from the
  permutation distribution of the signed ranks, exact up to 13 differing
  cards, else `PERMUTATIONS` seeded sign flips) for "apart". Over the cells of one comparison the
  p-values are adjusted by Holm's step-down method, and a cell is called
  *apart* only where the adjusted p is below `ALPHA`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Optional, Sequence

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE
RESAMPLES = 2000
PERMUTATIONS = 10000
SEED = 20240601
TEST = ("Wilcoxon signed-rank test over the shared cards (two-sided, cards without a difference dropped, "
        "p from the permutation distribution of the signed ranks)")
ADJUSTMENT = "Holm's step-down adjustment over the cells of each comparison"

Interval = Optional[tuple[float, float]]
#: A cell's values grouped by card: card name -> the values of its repetitions.
ByCard = dict[str, list[float]]


def wilson(successes: float, n: int, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval of `successes` of `n` (successes may be
    fractional: a sum of per-card rates), or None for n = 0."""
    if n <= 0:
        return None
    from scipy.stats import norm
    z = float(norm.ppf(0.5 + confidence / 2))
    p = min(max(successes / n, 0.0), 1.0)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def by_card(rows: Sequence[dict], value) -> ByCard:
    """`value(row)` of each row, grouped by the row's card (None values left out)."""
    out: ByCard = defaultdict(list)
    for r in rows:
        v = value(r)
        if v is not None:
            out[r["card"]].append(float(v))
    return dict(out)


def card_means(cards: ByCard) -> dict[str, float]:
    return {c: sum(vs) / len(vs) for c, vs in cards.items() if vs}


def identical(cards: ByCard) -> int:
    """How many cards had every repetition give the same value."""
    return sum(1 for vs in cards.values() if vs and min(vs) == max(vs))


def card_rate_interval(cards: ByCard, confidence: float = CONFIDENCE) -> Interval:
    """Wilson over cards: the mean per-card rate as the share, n the cards."""
    means = card_means(cards)
    return wilson(sum(means.values()), len(means), confidence)


def _nested_means(cards: list[list[float]], picks, rng):
    """Per resample and drawn card, the mean of that card's repetitions
    drawn again with replacement (an array resamples × drawn cards)."""
    import numpy as np
    width = max(len(vs) for vs in cards)
    values = np.array([vs + [0.0] * (width - len(vs)) for vs in cards])
    counts = np.array([len(vs) for vs in cards])
    n_drawn = counts[picks]  # resamples × drawn
    reps = np.floor(rng.random(picks.shape + (width,)) * n_drawn[..., None]).astype(int)
    mask = np.arange(width) < n_drawn[..., None]
    drawn = values[picks[..., None], reps] * mask
    return drawn.sum(axis=-1) / n_drawn


def _percentile(stats, confidence: float) -> tuple[float, float]:
    import numpy as np
    lo, hi = np.quantile(stats, [(1 - confidence) / 2, (1 + confidence) / 2])
    return (float(lo), float(hi))


def cluster_bootstrap(cards: ByCard, confidence: float = CONFIDENCE, seed: int = SEED) -> Interval:
    """Two-stage percentile bootstrap of the mean of per-card means."""
    import numpy as np
    groups = [vs for _, vs in sorted(cards.items()) if vs]
    if len(groups) < 2:
        return None
    flat = [v for vs in groups for v in vs]
    if min(flat) == max(flat):
        return (flat[0], flat[0])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(groups), size=(RESAMPLES, len(groups)))
    return _percentile(_nested_means(groups, picks, rng).mean(axis=1), confidence)


@dataclass
class Paired:
    """Two runs compared in one cell on the cards both played."""

    cards: int  # shared cards
    a: float  # mean of A's per-card means over the shared cards
    b: float
    difference: float  # a - b
    interval: Interval  # of the difference, two-stage bootstrap over the shared cards
    differing: int  # shared cards whose per-card means differ
    p: float  # the Wilcoxon signed-rank test's two-sided p (1 when no card differs)
    p_adjusted: float = 1.0  # after Holm over the comparison's cells
    apart: bool = False


def paired(a: ByCard, b: ByCard, confidence: float = CONFIDENCE, seed: int = SEED) -> Paired | None:
    """A against B on their shared cards, or None when they share none."""
    import numpy as np
    shared = sorted(set(a) & set(b))
    if not shared:
        return None
    ma, mb = card_means({c: a[c] for c in shared}), card_means({c: b[c] for c in shared})
    d = [ma[c] - mb[c] for c in shared]
    differing = sum(1 for x in d if x != 0)
    p = 1.0
    if differing:
        from scipy.stats import PermutationMethod, wilcoxon
        # the signed ranks' permutation distribution: exact for up to 13 differing cards, else
        # PERMUTATIONS seeded sign flips; right with the ties 0/1 rates make (a normal approximation is not)
        method = PermutationMethod(n_resamples=PERMUTATIONS, random_state=np.random.default_rng(seed))
        p = float(wilcoxon(d, zero_method="wilcox", alternative="two-sided", method=method).pvalue)
    interval = None
    if len(shared) >= 2:
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, len(shared), size=(RESAMPLES, len(shared)))
        diff = (_nested_means([a[c] for c in shared], picks, rng)
                - _nested_means([b[c] for c in shared], picks, rng))
        interval = _percentile(diff.mean(axis=1), confidence)
    mean = lambda m: sum(m.values()) / len(m)  # noqa: E731
    return Paired(len(shared), mean(ma), mean(mb), mean(ma) - mean(mb), interval, differing, p)


def holm(results: list[Paired], alpha: float = ALPHA) -> list[Paired]:
    """Holm's step-down adjustment over `results` (in place), marking `apart`."""
    order = sorted(range(len(results)), key=lambda i: results[i].p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(results) - rank) * results[i].p))
        results[i].p_adjusted = running
        results[i].apart = running < alpha
    return results
