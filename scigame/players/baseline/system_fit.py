"""Discovery on a system card, the last step: candidate laws fitted through
the simulator, and chosen by evidence.

The values a short-time reading gives are only estimates of the law (the
arguments move a little even at the shortest time, and a Fixed design's
readings are at any time), so the search's laws are forms to try, not
answers. Each candidate form has its free constants (every number that is
not a small integer or a simple fraction: failure.is_structural, the rule
the failure modes use) made into
parameters, which enter the player's own simulation of the system
(system.SystemModel) as extra inputs, so one compiled module serves a whole
fit; scipy's least squares then fits them to the observed trajectories
themselves, in units of the outputs' tolerances. Beside the search's forms
there is always a power law in the arguments whose domains are positive,
its exponents fitted with its factor and then snapped to simple fractions.
The candidates are ranked by a Bayesian information criterion on the
tolerance-scaled misfit (a free constant costs log of the number of
readings); nothing in it knows a card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

import numpy as np

from ...failure import is_structural
from .identify import Hyp

#: Residual evaluations (each one simulation of the observed points) per fit.
FIT_EVALS = 120
#: The search's forms fitted (the best first), beside the power law.
MAX_FORMS = 4
#: A reading the candidate's system cannot reproduce (not finite) counts this many tolerances.
UNREPRODUCED = 1e3


def parametrize(tree) -> tuple[object, list[float]]:
    """The tree with each free constant replaced by the variable `__cI`, and
    the constants' values."""
    values: list[float] = []

    def walk(t):
        if isinstance(t, dict) and "op" in t:
            return {"op": t["op"], "args": [walk(a) for a in t["args"]]}
        if isinstance(t, (int, float)) and not isinstance(t, bool) and not is_structural(float(t)):
            values.append(float(t))
            return {"var": f"__c{len(values) - 1}"}
        return t

    return walk(tree), values


def substitute(tree, values: list[float]):
    """The parametrized tree with its constants put back."""
    if isinstance(tree, dict) and "var" in tree and tree["var"].startswith("__c"):
        return float(values[int(tree["var"][3:])])
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [substitute(a, values) for a in tree["args"]]}
    return tree


@dataclass
class Fit:
    """A candidate law with its constants fitted to the readings."""

    tree: object  # the predictor's tree, arguments in declared units
    misfit: float  # the sum of squared tolerance-scaled errors (each capped)
    worst: float  # the largest tolerance-scaled error
    free: int  # fitted constants
    bic: float


class Fitter:
    """Fits candidate laws through `model` to the readings X (inputs) and Y (outputs)."""

    def __init__(self, model, outputs_view: list[dict], X: dict[str, np.ndarray], Y: dict[str, np.ndarray]):
        self.model, self.outputs, self.X, self.Y = model, outputs_view, X, Y
        self.n = len(next(iter(X.values()))) if X else 0
        self.N = max(1, self.n * len(outputs_view))

    def residuals(self, si_tree, constants) -> np.ndarray:
        extra = {f"__c{i}": np.full(self.n, float(c)) for i, c in enumerate(constants)}
        sim = self.model.simulate(si_tree, self.X, extra)
        parts = []
        for o in self.outputs:
            y = self.Y[o["name"]]
            r = (sim[o["name"]] - y) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(y))
            parts.append(np.where(np.isfinite(r), r, UNREPRODUCED))
        return np.clip(np.concatenate(parts), -UNREPRODUCED, UNREPRODUCED)

    def fit(self, param_tree, start: list[float], positive: Optional[list[bool]] = None) -> Optional[Fit]:
        """Least squares over the constants (each scaled by its start; a
        `positive` constant fitted by its logarithm)."""
        from scipy.optimize import least_squares
        si = self.model.law_si_params(param_tree)
        positive = positive or [False] * len(start)
        scale = np.array([abs(c) if c != 0 else 1.0 for c in start])

        def constants(theta):
            return [float(np.exp(t) * s) if pos else float(t * s) for t, s, pos in zip(theta, scale, positive)]

        theta0 = np.array([0.0 if pos else (c / s) for c, s, pos in zip(start, scale, positive)])
        if len(start):
            try:
                with np.errstate(all="ignore"):
                    res = least_squares(lambda th: self.residuals(si, constants(th)), theta0, method="trf",
                                        max_nfev=FIT_EVALS, x_scale="jac")
                theta = res.x
            except (ValueError, FloatingPointError, np.linalg.LinAlgError):
                theta = theta0
        else:
            theta = theta0
        values = constants(theta)
        r = self.residuals(si, values)
        if not len(r):
            return None
        misfit = float(np.sum(np.minimum(r ** 2, 1e6)))
        return Fit(substitute(param_tree, values), misfit, float(np.max(np.abs(r))), len(values),
                   misfit + len(values) * math.log(self.N))


def power_law(arguments: list[dict], values: np.ndarray, args_at_start: dict[str, np.ndarray]):
    """A power law c·∏ a^p in the arguments with positive domains: the
    parametrized tree, its start (a log-log fit to the short-time values
    where they are positive, else exponents 1), which constants are
    positive, and the sign of c. None without such arguments."""
    names = [a["name"] for a in arguments if a["domain"]["kind"] != "set" and float(a["domain"]["lo"]) > 0]
    if not names:
        return None
    ok = np.isfinite(values) & (values != 0)
    sign = float(np.sign(np.median(values[ok]))) if ok.any() else 1.0
    start = [1.0] + [1.0] * len(names)
    if ok.sum() > len(names) + 1:
        A = np.column_stack([np.ones(int(ok.sum()))] + [np.log(np.asarray(args_at_start[n], float)[ok])
                                                        for n in names])
        y = np.log(np.abs(values[ok]))
        sol, *_ = np.linalg.lstsq(A, y, rcond=None)
        if np.all(np.isfinite(sol)):
            start = [float(math.exp(max(min(sol[0], 700), -700)))] + [float(p) for p in sol[1:]]
    tree = {"op": "mul", "args": [sign, {"var": "__c0"}]}
    for i, n in enumerate(names):
        tree = {"op": "mul", "args": [tree, {"op": "pow", "args": [{"var": n}, {"var": f"__c{i + 1}"}]}]}
    return tree, start, [True] + [False] * len(names), names


def snapped_power_law(fitter: Fitter, tree, fit_values: list[float]) -> Optional[Fit]:
    """The power law with its fitted exponents snapped to the nearest
    multiples of 1/2, its factor (`__c0`) refitted."""
    exps = [float(Fraction(p).limit_denominator(2)) if math.isfinite(p) else 1.0 for p in fit_values[1:]]
    param = substitute_some(tree, {i + 1: e for i, e in enumerate(exps)})
    return fitter.fit(param, [fit_values[0]], [True])


def substitute_some(tree, values: dict[int, float]):
    """The parametrized tree with the constants `values` (by index) put back."""
    if isinstance(tree, dict) and "var" in tree and tree["var"].startswith("__c"):
        i = int(tree["var"][3:])
        return float(values[i]) if i in values else tree
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [substitute_some(a, values) for a in tree["args"]]}
    return tree


def fitted_hypotheses(fitter: Fitter, law: str, forms: list[Hyp], arguments: list[dict], values: np.ndarray,
                      args_at_start: dict[str, np.ndarray]) -> list[Hyp]:
    """Every candidate fitted through the simulator, best evidence first,
    with confidences from the evidence (exp(-BIC/2), normalised)."""
    fits: list[tuple[Fit, str]] = []
    seen = set()
    for h in forms[:MAX_FORMS]:
        tree = h.predictor.get(law)
        param, start = parametrize(tree)
        key = repr(param)
        if tree is None or key in seen:
            continue
        seen.add(key)
        f = fitter.fit(param, start)
        if f is not None:
            fits.append((f, f"{h.statement.split(' (')[0]}, its constants fitted through the simulator"))
    pl = power_law(arguments, values, args_at_start)
    if pl is not None:
        tree, start, positive, names = pl
        f = fitter.fit(tree, start, positive)
        if f is not None:
            fitted = parametrize_values(tree, f.tree)
            fits.append((f, "a power law in " + ", ".join(names) + ", fitted through the simulator"))
            s = snapped_power_law(fitter, tree, fitted)
            if s is not None:
                fits.append((s, "a power law in " + ", ".join(names) + " with simple exponents"))
    if not fits:
        return []
    fits.sort(key=lambda t: (t[0].bic, t[0].free))
    best = fits[0][0].bic
    weights = [math.exp(-0.5 * min(f.bic - best, 1400.0)) for f, _ in fits]
    total = sum(weights)
    return [Hyp(f"{text} (misfit {f.worst:.3g} tolerances at worst)", w / total, {law: f.tree},
                {"bic": f.bic, "worst": f.worst}) for (f, text), w in zip(fits, weights)]


def parametrize_values(param_tree, fitted_tree) -> list[float]:
    """The fitted constants of `fitted_tree`, in the order of the `__cI` of `param_tree`."""
    found: dict[int, float] = {}

    def walk(p, t):
        if isinstance(p, dict) and "var" in p and p["var"].startswith("__c"):
            found[int(p["var"][3:])] = float(t)
        elif isinstance(p, dict) and "op" in p:
            for a, b in zip(p["args"], t["args"]):
                walk(a, b)

    walk(param_tree, fitted_tree)
    return [found[i] for i in sorted(found)]
