"""Numeric checks that the two worlds of a card are told apart by the form
of their laws, not by their size or by the tolerance:

- W400: an output of the counterfactual is mostly a scaled copy of the
  original's (median ratio over the evaluation set beyond `RATIO_LIMIT`
  either way), unless the card says `magnitude differs "WHY"`;
- W401: more than `LOW_SHARE` of the counterfactual's evaluation points of
  an output lie below its absolute tolerance;
- W403: a `magnitude differs` that no output needs.

`world_ratios` is also what `scigame worlds` tabulates.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .diagnostics import Reporter
from .evaluation import evaluate_world
from .model import CheckedCard
from .sampling import evaluation_set
from .source import node

#: A median ratio beyond this factor (or below its inverse) means "differs mostly in size".
RATIO_LIMIT = 10.0
#: More than this share of counterfactual points below the absolute tolerance is W401.
LOW_SHARE = 1 / 3


@node
class Ratio:
    """|counterfactual| / |original| of one output over the evaluation set
    (points where both are non-zero and finite), and the share of the
    counterfactual's points below the output's absolute tolerance."""

    output: str
    low: float
    median: float
    high: float
    points: int
    below_tolerance: float

    @property
    def beyond_limit(self) -> bool:
        return math.isfinite(self.median) and not (1 / RATIO_LIMIT <= self.median <= RATIO_LIMIT)


def _median(q) -> float:
    """np.median of a 1-D array, the same float, without the import of numpy.ma that
    np.median makes (10 ms of a lint): the middle value, or the mean of the two middle ones."""
    s = np.sort(q)
    m = len(s) // 2
    return float(s[m]) if len(s) % 2 else float((s[m - 1] + s[m]) / 2)


def world_ratios(card: CheckedCard, points: Optional[dict] = None) -> list[Ratio]:
    """One `Ratio` per output (NaN ratios where no point is comparable)."""
    ev = evaluation_set(card) if points is None else points
    orig = evaluate_world(card, card.original, ev)
    cf = evaluate_world(card, card.counterfactual, ev)
    out = []
    for spec in card.outputs:
        a, b = np.abs(orig[spec.name]), np.abs(cf[spec.name])
        ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
        below = float(np.mean(b < spec.tol_abs)) if len(b) else 0.0
        q = b[ok] / a[ok] if np.any(ok) else np.array([math.nan])
        out.append(Ratio(spec.name, float(q.min()), _median(q), float(q.max()), int(ok.sum()), below))
    return out


def sound_world_checks(card: CheckedCard, report: Reporter) -> None:
    """Report W400, W401 and W403 for a card without errors."""
    ev = evaluation_set(card)
    ratios = world_ratios(card, ev)
    span = card.counterfactual_span
    label = card.counterfactual_label
    outputs = {o.name: o for o in card.outputs}
    for r in ratios:
        if r.beyond_limit and card.magnitude_reason is None:
            report.size_difference(span, label, r.output, _times(r.low), _times(r.median), _times(r.high),
                                   _hints(card, ev, r.output))
        if r.below_tolerance > LOW_SHARE:
            o = outputs[r.output]
            report.below_tolerance(span, label, r.output, f"{r.below_tolerance:.0%}",
                                   f"{o.tol_abs:g}" + (f" [{o.unit.text}]" if o.unit.text != "1" else ""))
    finite = [r for r in ratios if math.isfinite(r.median)]
    if card.magnitude_reason is not None and finite and not any(r.beyond_limit for r in finite):
        worst = max(finite, key=lambda r: abs(math.log(r.median)))
        report.needless_acknowledgment(card.magnitude_span, _times(worst.median), worst.output, RATIO_LIMIT)


def _times(x: float) -> str:
    """Three significant digits, without an exponent below a million (9920, not 9.92e+03)."""
    return f"{float(f'{x:.3g}'):g}"


def _round(x: float) -> str:
    """A reference value to suggest: two significant digits, no exponent for everyday sizes."""
    return f"{float(f'{x:.2g}'):g}"


def _hints(card: CheckedCard, ev: dict, output: str) -> list[str]:
    """Say how to put a reference inside the domain, naming the input the
    ratio follows most closely and, for a plain `rebalance P`, the clause."""
    inp = _driving_input(card, ev, output)
    plain = [m.target for m in card.mutations if m.kind == "rebalance" and " at " not in m.text]
    if inp is None:
        return ["make the counterfactual's coefficient agree with the original's somewhere inside "
                "the domain"]
    spec = next(s for s in card.inputs if s.name == inp)
    mid = _round(math.sqrt(spec.lo * spec.hi) if spec.kind == "log" else (spec.lo + spec.hi) / 2)
    where = f"{inp} = {mid}" + (f" [{spec.unit.text}]" if spec.unit.text != "1" else "")
    if plain:
        return [f"the ratio follows `{inp}`: write `rebalance {plain[0]} at {where}` so the worlds "
                "agree inside the domain"]
    return [f"the ratio follows `{inp}`: write `rebalance P at {where}` for the coefficient P that "
            f"should keep both worlds equal there, or give the law a reference value inside the "
            f"domain (e.g. `({inp} / {inp}0)^n`, `{inp}0` near {mid})"]


def _driving_input(card: CheckedCard, ev: dict, output: str) -> Optional[str]:
    """The input whose logarithm correlates most with the log ratio."""
    orig = evaluate_world(card, card.original, ev)[output]
    cf = evaluate_world(card, card.counterfactual, ev)[output]
    with np.errstate(all="ignore"):
        q = np.log(np.abs(cf) / np.abs(orig))
    best, name = 0.0, None
    for s in card.inputs:
        x = np.asarray(ev[s.name], dtype=float)
        x = np.log(x) if np.all(x > 0) else x
        ok = np.isfinite(q) & np.isfinite(x)
        if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(q[ok]) == 0:
            continue
        c = abs(float(np.corrcoef(x[ok], q[ok])[0, 1]))
        if c > best:
            best, name = c, s.name
    return name
