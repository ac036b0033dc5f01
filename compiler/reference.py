"""Solving `rebalance NAME at INPUT = VALUE, ...`.

A plain `rebalance` keeps a param's SI number, so after an exponent change
the counterfactual's outputs are the original's times (an input in SI
units)^Δn: where 1 SI unit lies far outside the domain, the two worlds differ
by orders of magnitude. `rebalance ... at` also moves the param's value: it
finds the factor c on its SI value that makes every output depending on it
equal in both worlds at one reference point inside the domain.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np

from .model import TExpr, evaluate


class ReferenceUnsolvable(Exception):
    """No factor makes the worlds agree at the reference point; the message
    says why, in words for a diagnostic. `zero` names an output of the
    counterfactual that is 0 there whatever the factor (the law does change
    with the param elsewhere: another point can work)."""

    def __init__(self, reason: str, zero: str | None = None, **words: str):
        from .diagnostics import UNSOLVABLE_REFERENCE
        super().__init__(UNSOLVABLE_REFERENCE[reason].format(**{"output": zero, **words}))
        self.reason, self.zero = reason, zero


def world_outputs(lets: Mapping[str, TExpr], laws: Mapping[str, TExpr],
                  values: Mapping[str, float]) -> dict[str, float]:
    """Every law of one world at one point (inputs and params in SI); `lets`
    must be in dependency order, as the checker types them."""
    scope = dict(values)
    with np.errstate(all="ignore"):
        for name, expr in lets.items():
            scope[name] = evaluate(expr, scope)
        return {name: float(evaluate(expr, scope)) for name, expr in laws.items()}


def solve_factor(target: Mapping[str, float], world: Callable[[float], Mapping[str, float]]) -> float:
    """The factor c > 0 such that `world(c)` equals `target` for every output
    that depends on c. `world(c)` gives the counterfactual's outputs with the
    param's SI value multiplied by c."""
    base, moved = world(1.0), world(2.0)
    depends = [o for o in sorted(target) if not _same(base[o], moved[o], 1e-12)]
    if not depends:
        zero = [o for o in sorted(target) if base[o] == 0 and moved[o] == 0 and target[o] != 0]
        if zero:
            raise ReferenceUnsolvable("zero", zero=zero[0])
        raise ReferenceUnsolvable("no_effect")
    first = depends[0]
    want = target[first]
    if not math.isfinite(want) or want == 0:
        raise ReferenceUnsolvable("nothing_to_match", output=first, value=_word(want))

    def gap(u: float) -> float:
        got = world(math.exp(u))[first]
        if not math.isfinite(got) or got == 0 or (got > 0) != (want > 0):
            return math.nan
        return math.log(abs(got)) - math.log(abs(want))

    u = _root(gap)
    if u is None:
        raise ReferenceUnsolvable("no_value", output=first)
    factor = _polish(math.exp(u), want, lambda c: world(c)[first])
    solved = world(factor)
    for o in depends[1:]:
        if not _same(solved[o], target[o], 1e-9):
            raise ReferenceUnsolvable("disagree", output=first, other=o)
    return factor


def _root(gap: Callable[[float], float]) -> float | None:
    """A zero of `gap` (log-space mismatch): a Newton guess from the local
    slope, which is exact for a power law (then `_polish` lands it on the
    nearest float); otherwise a widening bracket around it, then scipy's brentq."""
    g0 = gap(0.0)
    if g0 == 0:
        return 0.0
    g1 = gap(math.log(2.0))
    guess = 0.0
    if math.isfinite(g0) and math.isfinite(g1) and g1 != g0:
        guess = -g0 * math.log(2.0) / (g1 - g0)
    guess = min(max(guess, -600.0), 600.0)
    if abs(gap(guess)) <= 1e-12:  # NaN compares false: bracket it then
        return guess
    from scipy.optimize import brentq
    width = 0.5
    while width < 1400:
        lo, hi = max(guess - width, -700.0), min(guess + width, 700.0)
        glo, ghi = gap(lo), gap(hi)
        if math.isfinite(glo) and math.isfinite(ghi) and glo * ghi <= 0:
            return float(brentq(gap, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps))
        width *= 2
    return None


def _polish(factor: float, want: float, output: Callable[[float], float]) -> float:
    """One step of the power-law update c <- c (want / y(c))^(1/k), k the
    local power of y in c: exact for the usual y ∝ c^k, so the value lands on
    the nearest float rather than within the bracketing tolerance."""
    got, doubled = output(factor), output(2 * factor)
    if not (math.isfinite(got) and math.isfinite(doubled) and got != 0 and doubled / got > 0):
        return factor
    power = math.log2(doubled / got)
    if power == 0 or not math.isfinite(power):
        return factor
    better = factor * (want / got) ** (1 / power)
    return better if abs(output(better) - want) <= abs(got - want) else factor


def _same(a: float, b: float, rel: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b))


def _word(value: float) -> str:
    if value == 0:
        return "zero"
    return "undefined" if math.isnan(value) else "infinite"
