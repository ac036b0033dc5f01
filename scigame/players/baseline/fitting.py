"""Fitting one candidate law's constants, and the record of a fitted law.

Every candidate is `y = T⁻¹(C · M(x) · h(x; a))`: a monomial M whose
exponents are snapped to small rationals, a factor h with a few nonlinear
constants a (an exponential of a group, a power of 1 + a group, a sine, ...)
and an optional output transform T (1/y, sin y for angles). Screening fits
the monomial by weighted least squares in log space; the survivors get a
nonlinear least-squares refinement of (C, a) on the errors in tolerance
units, and held-out refits reuse it from the fitted values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from .lm import solve_lm

#: Scaled errors are clipped here so one wild point cannot swamp a likelihood.
ERROR_CAP = 1e3
#: Denominators tried when snapping an exponent to a rational.
DENOMINATORS = (1, 2, 3)


@dataclass
class Law:
    """One fitted law for one output. Its statement `text` is written from
    its tree (`y = ` + trees.tree_text), so it cannot say another law than
    the tree computes (issue #23)."""

    kind: str
    text: str
    tree: Any
    k: int  # constants fitted to the data
    complexity: float  # description length of the structure, in nats
    refit: Callable[[np.ndarray], Optional[Callable[[dict], np.ndarray]]]
    fit_error: float = math.inf  # sum of squared scaled errors in sample
    predict_obs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    loo: np.ndarray = field(default_factory=lambda: np.zeros(0))
    score: float = -math.inf
    check: Optional[np.ndarray] = None
    fit_max: float = math.inf  # largest scaled error in sample
    held_out: bool = False  # loo holds true held-out errors (select.rank)
    theta: tuple = ()  # the fitted constants, where a family needs them again (bernoulli.py)
    unrounded: float = math.inf  # largest scaled error in sample before its constants were rounded (relax.py)

    def set_fit(self, errors: np.ndarray) -> None:
        """Record the in-sample scaled errors' sum of squares and maximum."""
        self.fit_error = float(np.sum(errors ** 2))
        self.fit_max = float(np.max(errors)) if len(errors) else 0.0


def wls(A: np.ndarray, y: np.ndarray, w: np.ndarray) -> Optional[np.ndarray]:
    """Weighted least squares min Σ w (A c − y)²."""
    if A.shape[0] < A.shape[1] or A.shape[1] == 0:
        return None
    sw = np.sqrt(np.maximum(w, 0))
    Aw, yw = A * sw[:, None], y * sw
    if not (np.all(np.isfinite(Aw)) and np.all(np.isfinite(yw))):
        # no fit, as LAPACK's would be NaN; and LAPACK prints its complaint
        # (DLASCL: an illegal value) straight onto the user's terminal
        return None
    try:
        c, *_ = np.linalg.lstsq(Aw, yw, rcond=None)
    except (np.linalg.LinAlgError, ValueError):
        return None
    return c if np.all(np.isfinite(c)) else None


def snap_options(t: float) -> list[Fraction]:
    """Simple fractions near t, simplest first (at most three)."""
    out: list[Fraction] = [Fraction(round(t))]
    for den in DENOMINATORS[1:]:
        f = Fraction(round(t * den), den)
        if f not in out and abs(float(f) - t) <= 0.2:
            out.append(f)
    return out[:1] + sorted(out[1:], key=lambda f: abs(float(f) - t))[:1]


def nearest_fraction(t: float) -> Fraction:
    """The simple fraction of snap_options nearest t."""
    return min(snap_options(t), key=lambda f: abs(float(f) - t))


def decimal_exponent(t: float) -> Fraction:
    """t as the shortest decimal near it (one place when within 0.02, else
    two), unless a simple fraction is as near: the non-rational exponents
    (1.3, 2.6, 0.7) a law's author writes; the refit (relax.py) and the
    model choice decide whether the data support it."""
    simple = nearest_fraction(t)
    if abs(float(simple) - t) <= 0.01:
        return simple
    one = Fraction(round(t * 10), 10)
    return one if abs(float(one) - t) <= 0.02 else Fraction(round(t * 100), 100)


def exponent_penalty(p: Fraction) -> float:
    """Nats for writing an exponent: integers are cheap, thirds dearer, and
    powers beyond the fourth (rare in physics laws) dearer still."""
    return 0.0 if p == 0 else (0.5 * math.log(1 + abs(p.numerator)) + max(0.0, abs(float(p)) - 4.0)
                               + (0 if p.denominator == 1 else 1.2 * math.log(p.denominator + 1)))


def best_scale(f: np.ndarray, y: np.ndarray, w: np.ndarray) -> Optional[float]:
    """The C minimising Σ w (C f − y)²."""
    den = float(np.sum(w * f * f))
    if not den > 0 or not math.isfinite(den):
        return None
    c = float(np.sum(w * f * y) / den)
    return c if math.isfinite(c) and c != 0 else None


def model_at(model: Callable[[np.ndarray, dict], np.ndarray], X: dict) -> Callable[[np.ndarray], np.ndarray]:
    """The model as a function of its constants alone at X, for the many calls
    of one fit or one rounding at fixed X: its `at(X)` where it has one (the
    parts without a constant worked out once, the same operations on the same
    arrays; relax._model and most families' models), else model(t, X)."""
    at = getattr(model, "at", None)
    return at(X) if at is not None else (lambda t: model(t, X))


def refine(model: Callable[[np.ndarray, dict], np.ndarray], theta0: np.ndarray, X: dict,
           y: np.ndarray, sw: np.ndarray, idx: Optional[np.ndarray] = None,
           nfev: int = 25) -> Optional[np.ndarray]:
    """Nonlinear least squares on the scaled errors (model − y)/sw."""
    from scipy.optimize import least_squares

    if idx is not None:
        X = {k: v[idx] for k, v in X.items()}
        y, sw = y[idx], sw[idx]
    if len(y) < len(theta0):
        return None

    def resid(t):
        r = (values(t) - y) / sw
        # np.clip(r, -1e8, 1e8) where r is finite (the only values kept), without np.clip's wrappers
        return np.where(np.isfinite(r), np.minimum(np.maximum(r, -1e8), 1e8), 1e8)
    method = "lm" if len(y) > len(theta0) else "trf"
    try:
        # one errstate around the whole fit, not one per residual (hundreds per fit, and
        # entering one costs more than the residual itself): it only silences warnings
        with np.errstate(all="ignore"):
            values = model_at(model, X)
            if method == "lm" and len(theta0):
                x = solve_lm(resid, theta0, nfev)  # least_squares' steps without its set-up (lm.py)
            else:
                x = least_squares(resid, theta0, method=method, x_scale="jac", max_nfev=nfev).x
    except (ValueError, FloatingPointError, np.linalg.LinAlgError):
        return None
    return x if np.all(np.isfinite(x)) else None


def scaled_errors(pred: Optional[np.ndarray], y: np.ndarray, sw: np.ndarray) -> np.ndarray:
    if pred is None:
        return np.full(len(y), ERROR_CAP)
    with np.errstate(all="ignore"):
        e = np.abs(np.asarray(pred, float) - y) / sw
    return np.where(np.isfinite(e), np.minimum(e, ERROR_CAP), ERROR_CAP)


def worst_error(model: Callable[[np.ndarray, dict], np.ndarray], theta: np.ndarray, X: dict, y: np.ndarray,
                sw: np.ndarray) -> float:
    """The largest scaled error of the model with constants theta."""
    with np.errstate(all="ignore"):
        return float(np.max(scaled_errors(model(theta, X), y, sw)))


def rounding_bound(worst: float, exact: Optional[float] = None) -> float:
    """How far a constant rounded to a simpler value (a short decimal, a
    nice fraction, exactly 0) may move the largest scaled error: to
    max(0.3, 1.5 × the unrounded one); on readings exact to within `exact`
    tolerances (OutputData.snap_exact: noise-free, finely resolved), to
    max(exact, 1.5 × the unrounded one). Only exact readings see a number
    rounded in a small term, 0.5·t for 0.51·t beside 20·tanh(0.49·t), which
    moves them by a fifth of a tolerance; they are the evidence that the
    rounded law is not the law."""
    return max(0.3, 1.5 * worst) if exact is None else max(exact, 1.5 * worst)


#: With noise-free readings, a law whose predictions all land within a
#: resolution step (the rounding, as it moves the refitted constants) plus
#: EXACT_SCALE tolerances of the readings reproduces them: the law, or its
#: exact equal, not an approximation that stays inside the tolerance. Only
#: where that bound is at most EXACT_READINGS tolerances can readings tell
#: the two apart.
EXACT_SCALE = 1e-3
EXACT_READINGS = 0.05


def exact_slack(output, sw: np.ndarray) -> Optional[np.ndarray]:
    """Per reading, how far (in tolerances) a law that reproduces exact
    readings may miss them; None where the readings are noisy or too coarse
    to tell an exact law from a close one."""
    slack = output.resolution / sw + EXACT_SCALE
    if output.noisy or np.size(slack) == 0 or float(np.max(slack)) > EXACT_READINGS:
        return None
    return slack


#: A constant whose removal moves no scaled error by more than this many
#: tolerances is numerical residue, not part of the law: snap_decimals sets it to 0.
RESIDUE = 1e-6


def snap_decimals(model: Callable[[np.ndarray, dict], np.ndarray], theta: np.ndarray, X: dict, y: np.ndarray,
                  sw: np.ndarray, rel: float, digits: int = 4, exact: Optional[float] = None) -> np.ndarray:
    """Each constant rounded, in turn, to the fewest significant digits
    (1 to `digits`) that move it by at most `rel` (relative) and that the
    data support: the largest scaled error stays within rounding_bound of
    the unrounded one (`exact`: the readings' own, OutputData.snap_exact); a
    constant no reading sees (removing it moves no prediction by more than
    RESIDUE tolerances) is set to 0. Short decimals
    are what the law's author wrote (0.7, 1e-9), and they let the strict check see an exact constant instead of a
    fitted one; `rel` (half the output's relative tolerance) keeps a poorly
    determined constant from being rounded beyond what that check allows."""
    with np.errstate(all="ignore"):
        values = model_at(model, X)

    def worst(t):  # worst_error(model, t, X, y, sw)
        with np.errstate(all="ignore"):
            return float(np.max(scaled_errors(values(t), y, sw)))
    bound = rounding_bound(worst(theta), exact)
    out = np.array(theta, dtype=float)
    for j, v in enumerate(out):
        if not math.isfinite(v) or v == 0:
            continue
        zero = out.copy()
        zero[j] = 0.0
        with np.errstate(all="ignore"):
            moved = np.abs(np.asarray(values(zero), dtype=float) - np.asarray(values(out), dtype=float)) / sw
        if np.all(moved <= RESIDUE):
            out = zero  # least squares' residue (1e-15·cos ωt): no reading sees it
            continue
        for r in _roundings(v, digits, rel):
            trial = out.copy()
            trial[j] = r
            if worst(trial) <= bound:
                out = trial
                break
    return out if exact is None else _snap_jointly(worst, out, exact, JOINT_REL * rel, digits)


def _roundings(v: float, digits: int, rel: float) -> list[float]:
    """v rounded to 1 to `digits` significant digits, the fewest first,
    each distinct value once, those that move it by at most `rel` (relative)."""
    rounded = dict.fromkeys(float(f"{v:.{d - 1}e}") for d in range(1, digits + 1))
    return [r for r in rounded if abs(r - v) <= rel * abs(v)]


#: How far (in units of snap_decimals' `rel`) constants rounded together
#: may move on exact readings: two tolerances of the strict check.
JOINT_REL = 4.0


def _snap_jointly(worst: Callable[[np.ndarray], float], theta: np.ndarray, exact: float, rel: float,
                  digits: int) -> np.ndarray:
    """Constants fitted together move together: on exact readings rounded
    by ±0.005 K a fit can give k = 0.01002 and a = 0.03997 where the law has
    0.01 and 0.04, and neither rounds alone with the other held. The
    constants snap_decimals left longer than their shortest decimal within
    `rel` are rounded together, each to that decimal (then its next
    shortest, …), and kept when the law reproduces the readings within
    their rounding (`exact`, OutputData.snap_exact), as the law does."""
    short = {}
    for j, v in enumerate(theta):
        if math.isfinite(v) and v != 0:
            near = _roundings(v, digits, rel)
            if near and near[0] != v:
                short[j] = near
    for k in range(max((len(n) for n in short.values()), default=0)):
        trial = theta.copy()
        for j, near in short.items():
            trial[j] = near[min(k, len(near) - 1)]
        if worst(trial) <= exact:
            return trial
    return theta
