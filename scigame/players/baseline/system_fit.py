"""Discovery on a system card, the last step: candidate laws fitted through
the simulator, and chosen by evidence.

The values a short-time reading gives are only estimates of the law (the
arguments move a little even at the shortest time, and a Fixed design's
readings are at any time), so the search's laws are forms to try, not
answers. Each candidate form has its free constants (every number that is
not a small integer or a simple fraction: failure.is_structural, the rule
the failure modes use) made into parameters, which enter the player's own
simulation of the system (system.SystemModel) as extra inputs, so one
compiled module serves a whole fit; scipy's least squares then fits them to
the observed trajectories themselves, in units of the outputs' tolerances.
Beside the search's forms there are always two generic candidates: a power
law in the arguments whose domains are positive (its exponents fitted from
several starts with its factor, then snapped to multiples of 1/2 and 1/4),
and a polynomial in the arguments (powers to 3, pairwise products) pruned
term by term while that lowers the BIC, for laws whose arguments take any
sign or that a short-time reading cannot see whole (a velocity that is zero
at every start). The candidates are ranked by a Bayesian information criterion on the
tolerance-scaled misfit (a free constant costs log of the number of
readings); nothing in it knows a card.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import numpy as np

from ...failure import is_structural
from .identify import Hyp

#: Residual evaluations (each one simulation of the observed points) per fit.
FIT_EVALS = 120
#: The search's forms fitted (the best first), beside the power law.
MAX_FORMS = 4
#: Exponents tried as starts of the power law's fit, per argument, and the most combinations tried.
START_EXPONENTS, MAX_STARTS = (-2.0, -1.0, 1.0, 2.0), 16
#: While a polynomial is pruned: the terms whose removal is refitted at each step, and the
#: residual evaluations of each refit.
PRUNE_TRIALS, PRUNE_EVALS = 8, 15
#: The polynomial is tried with at most this many arguments.
MAX_POLYNOMIAL_ARGUMENTS = 3
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
    constants: list = field(default_factory=list)  # every constant's value, in the order of `__cI`


class Fitter:
    """Fits candidate laws through `model` to the readings X (inputs) and Y (outputs)."""

    def __init__(self, model, outputs_view: list[dict], X: dict[str, np.ndarray], Y: dict[str, np.ndarray]):
        self.model, self.outputs, self.X, self.Y = model, outputs_view, X, Y
        self.n = len(next(iter(X.values()))) if X else 0
        self.N = max(1, self.n * len(outputs_view))

    def residuals(self, si_tree, constants) -> np.ndarray:
        """Tolerance-scaled errors of the readings, the non-finite ones as UNREPRODUCED."""
        extra = {f"__c{i}": np.full(self.n, float(c)) for i, c in enumerate(constants)}
        sim = self.model.simulate(si_tree, self.X, extra)
        parts = []
        for o in self.outputs:
            y = self.Y[o["name"]]
            r = (sim[o["name"]] - y) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(y))
            parts.append(np.where(np.isfinite(r), r, UNREPRODUCED))
        return np.clip(np.concatenate(parts), -UNREPRODUCED, UNREPRODUCED)

    def fit(self, param_tree, start: list[float], positive: Optional[list[bool]] = None,
            held: frozenset = frozenset(), evals: int = FIT_EVALS) -> Optional[Fit]:
        """Least squares over the constants (each scaled by its start; a
        `positive` constant fitted by its logarithm; the `held` ones, by
        index, kept at their start and not counted as free)."""
        from scipy.optimize import least_squares
        si = self.model.law_si_params(param_tree)
        positive = positive or [False] * len(start)
        free = [i for i in range(len(start)) if i not in held]
        scale = np.array([abs(start[i]) if start[i] != 0 else 1.0 for i in free])

        def constants(theta):
            values = [float(c) for c in start]
            for t, s, i in zip(theta, scale, free):
                values[i] = float(np.exp(t) * s) if positive[i] else float(t * s)
            return values

        theta0 = np.array([0.0 if positive[i] else (start[i] / s) for i, s in zip(free, scale)])
        theta = theta0
        if free:
            try:
                with np.errstate(all="ignore"):
                    theta = least_squares(lambda th: self.residuals(si, constants(th)), theta0, method="trf",
                                          max_nfev=evals, x_scale="jac").x
            except (ValueError, FloatingPointError, np.linalg.LinAlgError):
                theta = theta0
        values = constants(theta)
        r = self.residuals(si, values)
        if not len(r):
            return None
        misfit = float(np.sum(np.minimum(r ** 2, 1e6)))
        return Fit(substitute(param_tree, values), misfit, float(np.max(np.abs(r))), len(free),
                   misfit + len(free) * math.log(self.N), values)


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


def power_law_fits(fitter: Fitter, arguments: list[dict], values: np.ndarray,
                   args_at_start: dict[str, np.ndarray]) -> list[tuple[Fit, str]]:
    """The power law fitted from several starts of its exponents (the
    log-log fit's, and combinations of START_EXPONENTS, each with the factor
    that matches the short-time values' median), the two starts of least
    misfit refined by least squares; then its exponents snapped to multiples
    of 1/2 and of 1/4, the factor refitted."""
    pl = power_law(arguments, values, args_at_start)
    if pl is None:
        return []
    tree, start, positive, names = pl
    si = fitter.model.law_si_params(tree)
    combos = [list(e) for e in itertools.product(START_EXPONENTS, repeat=len(names))][:MAX_STARTS]
    starts = []
    for exps in [start[1:]] + combos:
        c = [_matching_factor(values, args_at_start, names, exps, start[0])] + list(exps)
        starts.append((float(np.sum(np.minimum(fitter.residuals(si, c) ** 2, 1e6))), c))
    starts.sort(key=lambda t: t[0])
    fits = [f for f in (fitter.fit(tree, c, positive) for _, c in starts[:2]) if f is not None]
    if not fits:
        return []
    best = min(fits, key=lambda f: f.bic)
    out = [(best, "a power law in " + ", ".join(names) + ", fitted through the simulator")]
    snapped = set()
    for denominator in (2, 4):
        exps = tuple(float(Fraction(p).limit_denominator(denominator)) if math.isfinite(p) else 1.0
                     for p in best.constants[1:])
        if exps in snapped:
            continue
        snapped.add(exps)
        f = fitter.fit(substitute_some(tree, {i + 1: e for i, e in enumerate(exps)}), [best.constants[0]], [True])
        if f is not None:
            out.append((f, "a power law in " + ", ".join(names) + f" with exponents in steps of 1/{denominator}"))
    return out


def _matching_factor(values, args_at_start, names, exps, default: float) -> float:
    """The factor c with which c·∏ a^p meets the median of the short-time values' magnitudes."""
    ok = np.isfinite(values) & (values != 0)
    if not ok.any():
        return default
    with np.errstate(all="ignore"):
        base = np.prod([np.asarray(args_at_start[n], float)[ok] ** e for n, e in zip(names, exps)], axis=0)
        ratio = np.abs(values[ok]) / base
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    return float(np.median(ratio)) if len(ratio) else default


def _basis(arguments: list[dict]) -> list[tuple[str, tuple]]:
    """The polynomial's terms: a constant, each argument to the powers 1 to
    3, and the product of each pair, as (label, ((argument, power), ...))."""
    names = [a["name"] for a in arguments if a["domain"]["kind"] != "set"]
    terms: list[tuple[str, tuple]] = [("1", ())]
    terms += [(f"{n}^{k}", ((n, k),)) for n in names for k in (1, 2, 3)]
    terms += [(f"{a}·{b}", ((a, 1), (b, 1))) for i, a in enumerate(names) for b in names[i + 1:]]
    return terms


def _term_tree(factors: tuple) -> object:
    parts = [{"var": n} if k == 1 else {"op": "pow", "args": [{"var": n}, float(k)]} for n, k in factors]
    return parts[0] if len(parts) == 1 else {"op": "mul", "args": parts}


def _polynomial(terms, constants) -> object:
    """Σ cᵢ·termᵢ over the terms given (each cᵢ a number or a `__cI` variable)."""
    parts = [{"op": "mul", "args": [c, _term_tree(f)]} if f else c for (_, f), c in zip(terms, constants)]
    if not parts:
        return 0.0
    tree = parts[0]
    for p in parts[1:]:
        tree = {"op": "add", "args": [tree, p]}
    return tree


def _polynomial_start(terms, values: np.ndarray, args_at_start: dict[str, np.ndarray]) -> list[float]:
    """Linear least squares of the terms at the starting arguments to the
    short-time values (zeros where nothing determines a coefficient)."""
    ok = np.isfinite(values)
    if ok.sum() < 2:
        return [0.0] * len(terms)
    with np.errstate(all="ignore"):
        A = np.column_stack([np.prod([np.asarray(args_at_start[n], float)[ok] ** k for n, k in f], axis=0)
                             if f else np.ones(int(ok.sum())) for _, f in terms])
        if not np.all(np.isfinite(A)):
            return [0.0] * len(terms)
        sol = np.linalg.lstsq(A, values[ok], rcond=None)[0]
    return [float(c) if np.isfinite(c) else 0.0 for c in sol]


def sparse_polynomial(fitter: Fitter, arguments: list[dict], values: np.ndarray,
                      args_at_start: dict[str, np.ndarray]) -> Optional[tuple[Fit, str]]:
    """A polynomial in the arguments (`_basis`) fitted through the simulator
    from a linear fit to the short-time values, then pruned: while holding
    one more term at zero lowers the BIC, the term that lowers it most is
    held (of the PRUNE_TRIALS terms whose removal, before a refit, costs
    least). One compiled module serves every trial (the coefficients are
    inputs). None with more than MAX_POLYNOMIAL_ARGUMENTS arguments."""
    terms = _basis(arguments)
    if not 1 < len(terms) <= 1 + 4 * MAX_POLYNOMIAL_ARGUMENTS:
        return None
    tree = _polynomial(terms, [{"var": f"__c{i}"} for i in range(len(terms))])
    fit, held = fitter.fit(tree, _polynomial_start(terms, values, args_at_start)), frozenset()
    si = fitter.model.law_si_params(tree)
    while fit is not None and len(held) < len(terms) - 1:
        # each term dropped as it stands (one simulation each); the PRUNE_TRIALS least harmful refitted
        drops = []
        for j in sorted(set(range(len(terms))) - held):
            c = [0.0 if i == j else v for i, v in enumerate(fit.constants)]
            drops.append((float(np.sum(np.minimum(fitter.residuals(si, c) ** 2, 1e6))), j, c))
        trials = []
        for _, j, c in sorted(drops)[:PRUNE_TRIALS]:
            f = fitter.fit(tree, c, held=held | {j}, evals=PRUNE_EVALS)
            if f is not None:
                trials.append((f.bic, j, f))
        if not trials or min(trials, key=lambda t: t[0])[0] >= fit.bic:
            break
        _, j, fit = min(trials, key=lambda t: t[0])
        held = held | {j}
    if fit is None:
        return None
    kept = [i for i in range(len(terms)) if i not in held]
    pruned = Fit(_polynomial([terms[i] for i in kept], [fit.constants[i] for i in kept]), fit.misfit, fit.worst,
                 fit.free, fit.bic, [fit.constants[i] for i in kept])
    return pruned, "a polynomial (" + " + ".join(terms[i][0] for i in kept) + "), pruned by BIC"


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
    fits += power_law_fits(fitter, arguments, values, args_at_start)
    poly = sparse_polynomial(fitter, arguments, values, args_at_start)
    if poly is not None:
        fits.append(poly)
    if not fits:
        return []
    fits.sort(key=lambda t: (t[0].bic, t[0].free))
    best = fits[0][0].bic
    weights = [math.exp(-0.5 * min(f.bic - best, 1400.0)) for f, _ in fits]
    total = sum(weights)
    return [Hyp(f"{text} (misfit {f.worst:.3g} tolerances at worst)", w / total, {law: f.tree},
                {"bic": f.bic, "worst": f.worst}) for (f, text), w in zip(fits, weights)]
