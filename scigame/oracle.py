"""The oracle: which experiments are legal, and what an observation looks like.

A proposal is checked against every input's domain, integer and discrete
rules, the card's constraints, and the card's outputs before anything is
simulated; a rejected proposal gets reasons and no data. Observations are
quantised to the output's resolution with exact decimal arithmetic.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

from .compiler.artifact import CompiledCardData, InputSpec
from .compiler.semantics import COMPARISONS
from .identity_memo import IdentityMemo
from .predictor import mask_all, mask_any


class Rejection(ValueError):
    """A proposal the oracle refuses; `reasons` says every rule it breaks."""

    def __init__(self, reasons: Sequence[str]):
        super().__init__("; ".join(reasons))
        self.reasons = list(reasons)


_DECIMAL = Context(prec=60, rounding=ROUND_HALF_EVEN)


def quantize_value(value: float, resolution: float | None) -> float:
    """Round to the nearest multiple of `resolution`, ties to even, with the
    floating-point residue removed (0.30000000000000004 -> 0.3).

    The value is read by its shortest decimal representation (repr), so a
    value printed as 0.25 is a tie at resolution 0.1 and rounds to 0.2.
    """
    value = float(value)
    if resolution is None or not math.isfinite(value):
        return value
    step = Decimal(repr(float(resolution)))
    count = _DECIMAL.divide(Decimal(repr(value)), step).to_integral_value(rounding=ROUND_HALF_EVEN)
    result = float(_DECIMAL.multiply(count, step))
    return 0.0 if result == 0 else result  # no negative zero in observations


def add_noise(values: np.ndarray, noise, rng: np.random.Generator) -> np.ndarray:
    """g + ε with ε ~ N(0, (abs + rel·|g|)²) elementwise, for a NoiseSpec
    `noise` (the values unchanged when it is None)."""
    if noise is None:
        return values
    return values + rng.standard_normal(np.shape(values)) * noise.sd(values)


def quantize(values: np.ndarray, resolution: float | None) -> np.ndarray:
    """quantize_value over an array (exact, so one element at a time)."""
    arr = np.asarray(values, dtype=float)
    if resolution is None:
        return arr.copy()
    flat = [quantize_value(v, resolution) for v in arr.ravel()]
    return np.asarray(flat, dtype=float).reshape(arr.shape)


def _fmt(v: float) -> str:
    return f"{v:g}"


def _check_one_input(spec: InputSpec, x: np.ndarray) -> list[str]:
    d = spec.domain
    reasons = []
    bad = ~np.isfinite(x)
    if mask_any(bad):
        reasons.append(f"{spec.name} = {_fmt(x[bad][0])} is not a finite number")
        x = np.where(bad, d.lo, x)
    if d.kind == "set":
        allowed = np.asarray(d.values)
        outside = ~np.isin(x, allowed)
        if mask_any(outside):
            reasons.append(f"{spec.name} = {_fmt(x[outside][0])} is not one of the allowed values "
                           f"{d.text()} [{spec.unit}]")
        return reasons
    outside = (x < d.lo) | (x > d.hi)
    if mask_any(outside):
        reasons.append(f"{spec.name} = {_fmt(x[outside][0])} is outside its domain "
                       f"{_fmt(d.lo)} .. {_fmt(d.hi)} [{spec.unit}]")
    if d.kind == "integer":
        frac = x != np.round(x)
        if mask_any(frac):
            reasons.append(f"{spec.name} = {_fmt(x[frac][0])} is not an integer")
    return reasons


def check_proposal(data: CompiledCardData, inputs: Mapping[str, object],
                   outputs: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """Validate proposed inputs (scalars or equal-length arrays, declared
    units) and requested outputs; return the inputs as float arrays or raise
    Rejection with every reason found."""
    from .predictor import PredictorInvalid, evaluate_predictor

    reasons: list[str] = []
    names = [s.name for s in data.inputs]
    for extra in sorted(set(inputs) - set(names)):
        reasons.append(f"unknown input `{extra}` (inputs: {', '.join(names)})")
    for missing in [n for n in names if n not in inputs]:
        reasons.append(f"missing input `{missing}`")
    if outputs is not None:
        known = {o.name for o in data.outputs}
        for o in outputs:
            if o not in known:
                reasons.append(f"unknown output `{o}` (outputs: {', '.join(sorted(known))})")
    if reasons:
        raise Rejection(reasons)
    try:
        arrays = np.broadcast_arrays(*[np.atleast_1d(np.asarray(inputs[n], dtype=float)) for n in names])
    except (TypeError, ValueError) as exc:
        raise Rejection([f"inputs must be numbers or arrays of one length ({exc})"]) from None
    values = {n: np.ascontiguousarray(a, dtype=float) for n, a in zip(names, arrays)}
    for spec in data.inputs:
        reasons.extend(_check_one_input(spec, values[spec.name]))
    if not reasons and data.constraints:
        for c in data.constraints:
            reasons.extend(_broken(c, values, names, "the constraint"))
    if reasons:
        raise Rejection(reasons)
    return values


#: Each comparison's two trees as tree_programs, their constants folded, by the comparison: a
#: constraint is checked at every experiment.
_PROGRAMS = IdentityMemo(4096)


def _programs(c) -> Optional[dict]:
    """`{"l": ..., "r": ...}` programs of a comparison's sides; None (fold the
    trees as given, raising what they raise) when a side is malformed."""
    return _PROGRAMS.get(c, _record_programs)


def _record_programs(c) -> Optional[dict]:
    from .predictor import PredictorInvalid, constants_folded, tree_program
    try:
        return {"l": constants_folded(tree_program(c.left, "l")), "r": constants_folded(tree_program(c.right, "r"))}
    except PredictorInvalid:
        return None


def _broken(c, values: Mapping[str, np.ndarray], names: list[str], what: str,
            output: str | None = None) -> list[str]:
    """Why a comparison (a ConstraintSpec) fails at the first point it fails at;
    for the `where` of `output`'s law, the card's reason first."""
    from .predictor import PredictorInvalid, evaluate_predictor
    try:
        both = evaluate_predictor({"l": c.left, "r": c.right}, values, _programs(c))
    except PredictorInvalid as exc:
        return [f"{what} `{c.text}` cannot be evaluated: {exc.reason}"]
    ok = COMPARISONS[c.op](both["l"], both["r"])
    if mask_all(ok):
        return []
    i = int(np.flatnonzero(~ok)[0])
    point = ", ".join(f"{n}={_fmt(values[n][i])}" for n in names)
    if output is not None:  # the reason only: the condition may name hidden params
        return [f"{output} has no value in this world at {point}: {c.message}"]
    return [f"{what} `{c.text}` does not hold at {point}" + (f": {c.message}" if c.message else "")]


def check_defined(data: CompiledCardData, env: str, values: Mapping[str, np.ndarray],
                  outputs: Iterable[str] | None = None) -> None:
    """Refuse inputs where a requested output's law has no value in world
    `env` by its `where` (the other world may well have one there): raise
    Rejection with the card's declared reason."""
    where = data.environments[env].where
    names = [s.name for s in data.inputs]
    reasons = []
    for out, c in where.items():
        if outputs is None or out in outputs:
            reasons.extend(_broken(c, values, names, "the law's `where`", output=out))
    if reasons:
        raise Rejection(reasons)
