"""The submission's words: what the law is, how it was found, on what
evidence, what a controlled change of each input does, and where it holds."""

from __future__ import annotations

from typing import Optional

import numpy as np

from .identify import Hyp
from .task import Input, Output, fmt
from .trees import evaluate


def effect_summary(predictor: dict, inputs: list[Input], outputs: list[Output]) -> str:
    """What raising each input by half does to each output, at mid-domain."""
    if not inputs:
        return ""
    base = {inp.name: np.array([float(inp.from_unit(np.array([0.5]))[0])]) for inp in inputs}
    phrases = []
    for o in outputs:
        y0 = evaluate(predictor.get(o.name), base)
        if y0 is None or y0[0] == 0:
            continue
        for inp in inputs:
            if inp.kind in ("set", "integer"):
                continue
            mid = float(base[inp.name][0])
            new = mid * 1.5 if mid * 1.5 <= inp.hi and mid > 0 else (mid + inp.hi) / 2
            if new == mid:
                continue
            y1 = evaluate(predictor.get(o.name), dict(base, **{inp.name: np.array([new])}))
            if y1 is None:
                continue
            ratio = float(y1[0] / y0[0])
            phrases.append(f"{o.name} does not depend on {inp.name}" if abs(ratio - 1) < 1e-3 else
                           f"raising {inp.name} from {fmt(mid)} to {fmt(new)} multiplies {o.name} by {ratio:.3g}")
    return ("Controlled comparison at mid-domain: " + "; ".join(phrases) + ".") if phrases else ""


def unexplained(laws: list, n: int, drift: Optional[float] = None) -> str:
    """What to say when no candidate explains the evidence: a law whose
    held-out predictions miss a measurement by more than the tolerance, or
    whose refit on more readings moved a constant by `drift` relative
    tolerances (an approximation's constants move, a law's do not), or
    (`drift` 0) that fits noise-free readings only within the tolerance
    without reproducing them, is the best weak fit found, not an exact law
    (its confidence is capped)."""
    worst = max((float(np.max(f.loo)) for f in laws if len(f.loo)), default=0.0)
    if n and drift is not None and worst <= 1.0:
        how = ("fits the noise-free measurements only within the tolerance, where an exact law refitted to "
               "them reproduces them to their rounding" if not drift else
               f"moved a constant by {drift:.3g} relative tolerances, where an exact law refitted on more "
               "noise-free readings keeps its constants")
        return (f" Refitted on more measurements, this form {how}: it is the best weak fit found, submitted at "
                "low confidence as an approximation over the measured ranges, not as the exact law.")
    if not n or worst <= 1.0:
        return ""
    return (f" No candidate of the search explains every measurement within the tolerance: the law above "
            f"is the best weak fit found (its held-out errors reach {worst:.3g} tolerances), submitted at low "
            "confidence as an approximation over the measured ranges, not as the exact law.")


def _tested(inputs: list[Input], X: dict) -> str:
    ranges = []
    for inp in inputs:
        v = X.get(inp.name)
        unit = f" {inp.unit}" if inp.unit and inp.unit != "1" else ""
        if v is not None and len(v):
            ranges.append(f"{inp.name} {fmt(float(np.min(v)))}..{fmt(float(np.max(v)))}{unit}")
    return ", ".join(ranges) if ranges else "no measured range"


def texts(setting: str, n: int, hyp: Hyp, inputs: list[Input], outputs: list[Output], X: dict,
          findings: list[str], drift: Optional[float] = None) -> tuple[str, str]:
    """(explanation, applicability) of a submission; `drift`: how far the
    law's refit on more readings moved it, when that makes it an
    approximation (0: it did not reproduce them; unexplained)."""
    tested = _tested(inputs, X)
    domain = ", ".join(inp.describe_range() for inp in inputs)
    if setting == "identification":
        s = hyp.detail.get("s", 0.0)
        expl = ("No measurements were available, so the standard member of the given family "
                "(s = 0) is chosen on prior grounds." if n == 0 else
                f"Among the members of the given family, s = {s:.4g} reproduces the {n} measurements best "
                f"(over {tested}); the other member misses them by more than the stated tolerance.")
    else:
        parts = []
        for f in hyp.detail.get("laws", []):
            loo = float(np.mean(f.loo)) if len(f.loo) else float("nan")
            parts.append(f"{f.text}: a guess from the units alone with coefficient 1, not checked against "
                         "any measurement" if n == 0 else
                         f"{f.text}, found by a symbolic search ({f.kind}) and chosen by held-out error "
                         f"(mean {loo:.3g} tolerances) over {n} measurements")
        expl = "; ".join(parts) + "."
        expl += unexplained(hyp.detail.get("laws", []), n, drift)
        if findings:
            expl += " Controlled experiments: " + "; ".join(findings) + "."
    noisy = [o for o in outputs if o.noisy]
    if noisy and n:
        expl += (" The readings of " + ", ".join(o.name for o in noisy) + " carry gaussian noise: repeated "
                 "experiments (Adaptive repeats each controlled one) are averaged by the least-squares fit, and "
                 "every residual is weighed by the tolerance widened by two noise standard deviations.")
    effects = effect_summary(hyp.predictor, inputs, outputs)
    if effects:
        expl += " " + effects
    appl = (f"Fitted over {tested}; declared domain {domain}. Outside the measured ranges the relation is an "
            "extrapolation, and it assumes the stated experimental conditions hold.")
    if n == 0:
        appl = f"Not tested against data; intended for {domain} under the stated conditions."
    return expl, appl
