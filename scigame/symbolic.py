"""Is a predictor the law? The symbolic half of the **strict** success rule.

A predictor tree is strictly successful only if it *is* the environment's law:
algebraically equivalent to it (trigonometric and logarithmic identities
included) with every numeric constant equal to the law's within the output's
relative tolerance. A polynomial that fits the domain is not the law, nor is
the law plus a tiny extra term, nor the law with a wrong exponent.

`strict_match` decides this in two stages:

1. **Numeric pre-check** (in this process, milliseconds): both trees are
   evaluated with numpy at random points of the input domain. A candidate
   that differs from the law by more than twice the tolerance anywhere is
   rejected at once, with the point in the reason. Passing proves nothing.
2. **Symbolic check** (sympy, in a forked child with a work budget):
   numbers become exact rationals, so that a true identity leaves no
   floating-point residue; candidate constants within the tolerance of a law
   constant are snapped onto it; then the two sides are compared
   structurally (constants within the tolerance) as written, expanded and
   simplified (ratios of polynomials through their canonical monic form,
   min/max/abs/sign/step case by case), and `candidate - law` is
   simplified. What survives decides:
   a difference that is a constant fraction of the law within the tolerance
   is a rounded constant; any other nonzero difference is not the law; a
   difference that sympy cannot remove but that vanishes to 60 digits at the
   sample points is an identity sympy could not prove, reported as undecided
   (`strict=None`) rather than guessed.

The symbolic stage's limit is a count, not a clock: the child may make
`STRICT_WORK` calls of sympy's cached core functions, from an empty cache
(about 5 s of work on a quiet machine), and then stops with `strict=None`. A verdict
therefore does not depend on the machine's load, and the same predictor
gets the same verdict in every run. A wall-clock `timeout` can be given on
top (`scigame score --timeout`). Work the count barely sees (sympy's
polynomial arithmetic) is bounded by `STRICT_CPU` seconds of the child's CPU
time, which other processes barely change; `STRICT_BACKSTOP` seconds of
wall time only stop a child that gets no CPU at all.

Symbols carry the domain as sympy assumptions (positive, integer, ...), so
`sqrt(x**2) == x` and `log(a*b) == log(a) + log(b)` hold where the domain
makes them true.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import sympy
from sympy.polys.polyerrors import BasePolynomialError

from .identities import LAST_RESORT, exp_form_ratio, prove_zero
from .predictor import Path, PredictorInvalid, evaluate_unchecked, fold_tree, path_text
from .residue import (law_constants, literal_number, noise_verdict, residue_verdict,
                      show_residue, value_of as _value, worst_residue)

__all__ = [
    "StrictVerdict",
    "TreeError",
    "Variable",
    "equal_within",
    "evaluate_tree",
    "sample_domain",
    "strict_match",
    "symbols_for",
    "tree_to_sympy",
]


@dataclass(frozen=True)
class Variable:
    """One input of the law: its name and domain, in the units the tree uses."""

    name: str
    lo: float
    hi: float
    integer: bool = False


@dataclass(frozen=True)
class StrictVerdict:
    """Whether a candidate is the law; `strict` is None when undecided."""

    strict: bool | None
    reason: str
    #: True when the wall-clock limit stopped the check: a verdict of the
    #: machine's load, not of the predictor (not to be remembered)
    timed_out: bool = False


class TreeError(ValueError):
    """A predictor tree that is not well formed (unknown op, arity, variable)."""


# ---------------------------------------------------------------------------
# Trees: the predictor language's numpy and sympy meanings
# ---------------------------------------------------------------------------


def evaluate_tree(tree: Any, values: dict[str, np.ndarray]) -> np.ndarray:
    """Evaluate a tree with numpy on arrays of input values (float64).

    Invalid operations give NaN or ±inf rather than raising; callers decide.
    Raises TreeError for a malformed tree or an unknown variable.
    """
    try:
        return evaluate_unchecked(tree, values)
    except PredictorInvalid as exc:
        raise TreeError(exc.reason) from None


def tree_to_sympy(tree: Any, symbols: dict[str, sympy.Symbol], *,
                  exact: bool = False,
                  constants: Sequence[tuple[float, sympy.Expr]] = ()) -> sympy.Expr:
    """Convert a predictor tree to a sympy expression over `symbols`.

    Numbers become sympy Floats (integers stay Integers), or, with
    `exact=True`, the exact constants they stand for
    (`scigame.residue.literal_number`: one of `constants` it equals to
    double precision, a simple fraction, a short decimal, a multiple of π,
    else the decimal it prints as). Raises TreeError for a malformed tree or
    a variable missing from `symbols`.
    """
    def number(v: float) -> sympy.Expr:
        if exact:
            return literal_number(float(v), constants)
        return sympy.Integer(v) if isinstance(v, int) else sympy.Float(v)

    def var(name: str, path: Path) -> sympy.Symbol:
        if name not in symbols:
            raise TreeError(f"unknown variable {name!r} at {path_text(path)}")
        return symbols[name]

    try:
        return fold_tree(tree, "$", number, var, lambda op, args, path: op.sympy(sympy, *args))
    except PredictorInvalid as exc:
        raise TreeError(exc.reason) from None


def symbols_for(variables: Sequence[Variable]) -> dict[str, sympy.Symbol]:
    """Real sympy symbols whose assumptions encode each variable's domain."""
    out: dict[str, sympy.Symbol] = {}
    for v in variables:
        facts: dict[str, bool] = {"real": True}
        if v.lo > 0:
            facts["positive"] = True
        elif v.lo >= 0:
            facts["nonnegative"] = True
        if v.hi < 0:
            facts["negative"] = True
        elif v.hi <= 0:
            facts["nonpositive"] = True
        if v.integer:
            facts["integer"] = True
        out[v.name] = sympy.Symbol(v.name, **facts)
    return out


# ---------------------------------------------------------------------------
# Stage 1: numeric pre-check
# ---------------------------------------------------------------------------

SAMPLE_POINTS = 64
# The pre-check rejects only differences beyond this many tolerances, so that
# constants rounded within the tolerance (whose effects can compound) are
# left to the symbolic stage.
_PRECHECK_SLACK = 2.0
# Absolute floor, relative to the largest |law| seen: float rounding noise.
_PRECHECK_FLOOR = 1e-12


def sample_domain(variables: Sequence[Variable], n: int = SAMPLE_POINTS,
                  seed: int = 0) -> dict[str, np.ndarray]:
    """`n` reproducible random points of the domain, one array per variable.

    Integer variables get integers. A positive domain spanning more than a
    decade is sampled half uniformly and half log-uniformly, so that the
    small end is not missed.
    """
    rng = np.random.default_rng(seed)
    points: dict[str, np.ndarray] = {}
    for v in variables:
        if v.integer:
            lo, hi = math.ceil(v.lo), math.floor(v.hi)
            if lo > hi:
                raise ValueError(f"{v.name}: no integer in [{v.lo}, {v.hi}]")
            points[v.name] = rng.integers(lo, hi, endpoint=True, size=n).astype(float)
            continue
        x = rng.uniform(v.lo, v.hi, size=n)
        if v.lo > 0 and v.hi > 10 * v.lo:
            half = n // 2
            x[:half] = np.exp(rng.uniform(math.log(v.lo), math.log(v.hi), size=half))
        points[v.name] = x
    return points


def _format_point(points: dict[str, np.ndarray], i: int) -> str:
    return ", ".join(f"{k}={points[k][i]:.4g}" for k in sorted(points))


def _numeric_precheck(candidate: Any, reference: Any, points: dict[str, np.ndarray],
                      rel_tol: float) -> str | None:
    """Why the candidate is clearly not the law, or None if no sample shows it."""
    law = evaluate_tree(reference, points)
    got = evaluate_tree(candidate, points)
    defined = np.isfinite(law)
    if not defined.any():
        return None
    bad = defined & ~np.isfinite(got)
    if bad.any():
        i = int(np.argmax(bad))
        return (f"is undefined at {_format_point(points, i)}, "
                f"where the law is {law[i]:.4g}")
    floor = _PRECHECK_FLOOR * float(np.max(np.abs(law[defined])))
    with np.errstate(all="ignore"):
        allowed = _PRECHECK_SLACK * rel_tol * np.abs(law) + floor
        excess = np.where(defined, np.abs(got - law) - allowed, -np.inf)
    i = int(np.argmax(excess))
    if excess[i] > 0:
        return (f"differs from the law at {_format_point(points, i)}: "
                f"{got[i]:.4g} vs {law[i]:.4g}")
    return None


# ---------------------------------------------------------------------------
# Stage 2: symbolic check
# ---------------------------------------------------------------------------

# Candidate numbers this simple are structure (exponents, halves), not
# measured constants, and are never snapped onto a law constant.
_STRUCTURAL = 12


#: Exponents must match the law's to this relative precision (they are form,
#: not fitted constants).
EXPONENT_TOL = 1e-9


def _is_constant(e: sympy.Expr) -> bool:
    return not e.free_symbols


def _close(a: sympy.Expr, b: sympy.Expr, tol: float) -> bool:
    """Constants equal within `tol` relative to the law's `b`."""
    if a == b:
        return True
    va, vb = _value(a), _value(b)
    if va is None or vb is None:
        return False
    return abs(va - vb) <= tol * abs(vb)


def _match_all(xs: Sequence[sympy.Expr], ys: Sequence[sympy.Expr], tol: float) -> bool:
    """Pair every x with a distinct y that it equals within `tol` (greedy)."""
    if len(xs) != len(ys):
        return False
    free = list(ys)
    for x in xs:
        for j, y in enumerate(free):
            if equal_within(x, y, tol):
                del free[j]
                break
        else:
            return False
    return True


_UNORDERED = (sympy.Add, sympy.Mul, sympy.Min, sympy.Max)


def equal_within(a: sympy.Expr, b: sympy.Expr, tol: float) -> bool:
    """Same expression tree, constants equal within `tol` (relative to `b`).

    Symbol-free parts are compared as numbers, so `6.67e-11*m/r**2` equals
    `6.674e-11*m/r**2` at tol 0.01 while `x + 1e-20` never equals `x`: a
    term (or factor) on one side only is a structural difference.
    """
    if a == b:
        return True
    if _is_constant(a) or _is_constant(b):
        return _is_constant(a) and _is_constant(b) and _close(a, b, tol)
    for kind, as_add in ((sympy.Add, True), (sympy.Mul, False)):
        if isinstance(a, kind) or isinstance(b, kind):
            ka, ra = a.as_independent(*a.free_symbols, as_Add=as_add)
            kb, rb = b.as_independent(*b.free_symbols, as_Add=as_add)
            if not _close(ka, kb, tol):
                return False
            if isinstance(ra, kind) and isinstance(rb, kind):
                return _match_all(ra.args, rb.args, tol)
            if isinstance(ra, kind) or isinstance(rb, kind):
                return False
            return equal_within(ra, rb, tol)
    if a.func != b.func or len(a.args) != len(b.args) or not a.args:
        return False
    if isinstance(a, sympy.Pow) and _is_constant(a.exp) and _is_constant(b.exp):
        # an exponent is part of the law's form: r^0.502 is not r^(1/2),
        # whatever the output's tolerance
        return _close(a.exp, b.exp, EXPONENT_TOL) and equal_within(a.base, b.base, tol)
    if isinstance(a, _UNORDERED):
        return _match_all(a.args, b.args, tol)
    return all(equal_within(x, y, tol) for x, y in zip(a.args, b.args))


def _numbers(e: sympy.Expr) -> set[sympy.Rational]:
    return {n for n in e.atoms(sympy.Number) if n.is_Rational}


def _snap_constants(candidate: sympy.Expr, targets: set[sympy.Rational],
                    tol: float) -> sympy.Expr:
    """Replace each candidate constant by the nearest law constant within `tol`.

    Signs are kept (a law coefficient -6013.95 also serves a candidate
    6014); simple fractions such as exponents are left alone.
    """
    magnitudes = sorted({abs(t) for t in targets if t != 0})
    exponents = {p.exp for p in candidate.atoms(sympy.Pow) if p.exp.is_Number}
    mapping: dict[sympy.Expr, sympy.Expr] = {}
    for n in _numbers(candidate):
        if n == 0 or abs(n) in magnitudes or n in exponents:
            continue
        if abs(n.p) <= _STRUCTURAL and n.q <= _STRUCTURAL:
            continue
        best = min(magnitudes, key=lambda t: abs(float(t / abs(n)) - 1), default=None)
        if best is not None and abs(float(best - abs(n))) <= tol * float(best):
            mapping[n] = best if n > 0 else -best
    return candidate.xreplace(mapping) if mapping else candidate


def _exp_form(e: sympy.Expr) -> sympy.Expr:
    """Every power with a positive constant base and a variable exponent,
    b^x, written as exp(x·log b); log10(x) is already log(x)/log(10)."""
    return e.replace(
        lambda x: isinstance(x, sympy.Pow) and x.base.is_number and x.base.is_positive
        and not x.exp.is_number,
        lambda x: sympy.exp(sympy.expand(x.exp * sympy.log(x.base))))


def _expand_all(e: sympy.Expr) -> sympy.Expr:
    """Expand products, powers, logs (where the domain allows) and trig sums."""
    return sympy.expand(e, trig=True, log=True, power_exp=True, power_base=True)


def _monic_powers(e: sympy.Expr) -> sympy.Expr:
    """Every sum under a power with a constant, non-integer exponent written
    with its first term's coefficient ±1 and the coefficient's power taken
    out: s^e = |a|^e·(s/|a|)^e for a sum s whose first term (in sympy's
    order of the terms' variable parts) has the coefficient a. The same
    rewriting on both sides of a comparison, wherever each side kept its
    scale: a law compiled with a unit conversion outside its root,
    √(133480000·M/r − 9100000)/1000, and a candidate with it inside,
    √(133·M/r − 9.044), then compare constant by constant. The monic
    rational form (`_equal_monic`) does the same for ratios of
    polynomials."""
    def monic(p: sympy.Pow) -> sympy.Expr:
        base = sympy.expand(p.base)
        if not isinstance(base, sympy.Add):
            return p
        lead = min(base.args, key=lambda t: sympy.default_sort_key(t.as_independent(*t.free_symbols)[1]))
        a = lead.as_independent(*lead.free_symbols)[0]
        if not (a.is_number and a.is_nonzero and a.is_real) or a in (1, -1):
            return p
        a = abs(a)
        # unevaluated: sympy would take the monic sum's own content out again
        return a ** p.exp * sympy.Pow(sympy.expand(base / a), p.exp, evaluate=False)

    # a base that is no sum once expanded is left as it is by monic itself
    return e.replace(
        lambda x: isinstance(x, sympy.Pow) and x.exp.is_number and not x.exp.is_integer
        and x.base.free_symbols != set(),
        monic)


def _fraction(e: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Numerator and denominator of a rational function, common factors cancelled."""
    return sympy.fraction(sympy.cancel(sympy.together(e)))


def _equal_monic(fa: tuple[sympy.Expr, sympy.Expr], fb: tuple[sympy.Expr, sympy.Expr],
                 gens: tuple[sympy.Expr, ...], tol: float) -> bool:
    """Two (numerator, denominator) pairs equal once each denominator is
    monic in `gens`, coefficients within `tol`."""
    def monic(num, den):
        lead = sympy.Poly(den, *gens).LC() if den.free_symbols else den
        return sympy.expand(num / lead), sympy.expand(den / lead)
    (na, da), (nb, db) = monic(*fa), monic(*fb)
    return equal_within(na, nb, tol) and equal_within(da, db, tol)


def _same_rational_function(a: sympy.Expr, b: sympy.Expr,
                            gens: tuple[sympy.Symbol, ...], tol: float) -> bool:
    """Equal rational functions, coefficients of the monic forms within `tol`."""
    return _equal_monic(_fraction(a), _fraction(b), gens, tol)


#: The largest root order _in_roots substitutes (x = z^q): beyond it
#: an exponent is a fitted decimal, not a root (x^0.8 is z^4 with x = z^5).
_ROOT_ORDER = 12


def _in_roots(a: sympy.Expr, b: sympy.Expr, symbols: dict[str, sympy.Symbol]
              ) -> tuple[sympy.Expr, sympy.Expr] | None:
    """Both sides with each positive input x that is raised to fractional
    powers (x^(4/5), x^(-1/2)) written z^q, q the least common denominator
    of its exponents on either side, so that x^(4/5) is z^4 (x ↦ z^q is one
    to one where x > 0); the sides as they are where no input has such
    powers, None where one needs a root beyond the _ROOT_ORDER-th."""
    subs = {}
    for name, s in symbols.items():
        if not s.is_positive:
            continue
        qs = {p.exp.q for e in (a, b) for p in e.atoms(sympy.Pow)
              if p.base == s and p.exp.is_Rational and p.exp.q > 1}
        if not qs:
            continue
        q = math.lcm(*qs)
        if q > _ROOT_ORDER:
            return None
        subs[s] = sympy.Symbol(f"_root_{name}", positive=True) ** q
    if not subs:
        return a, b
    return sympy.powsimp(a.subs(subs)), sympy.powsimp(b.subs(subs))


def _numeric_atoms(e: sympy.Expr) -> sympy.Expr:
    """Constant functions and powers (exp(41/100), √3) as numbers, an
    exponential of a sum split first (exp(41/100 − t/2) = exp(41/100)·exp(−t/2)):
    a constant is a coefficient, not a polynomial generator."""
    e = sympy.expand_power_exp(e)
    return e.xreplace({x: x.evalf(30) for x in e.atoms(sympy.Function, sympy.Pow)
                       if x.is_number and not x.is_Rational})


def _same_ratio_in_generators(a: sympy.Expr, b: sympy.Expr, symbols: dict[str, sympy.Symbol],
                              tol: float) -> bool:
    """Whether both sides are one ratio of polynomials in the same generators
    (roots of the inputs, exponentials and other functions of them), the
    coefficients of the monic forms within `tol`. A law
    f·(u/f)^0.8/((u/f)^0.8 − 1) and a candidate 20·(1 − 10.98·u^−0.8)^−1 are
    ratios of polynomials in z = u^(1/5); a shifted logistic law
    1000/(1 + 1507·e^(−t/2)/N0 − 1.507·e^(−t/2)) and a candidate
    1/(0.001 − 0.0015·e^(−t/2) + 1.507·e^(−t/2)/N0) are ratios of
    polynomials in N0 and e^(t/2)."""
    sides = _in_roots(a, b, symbols)
    if sides is None:
        return False
    sides = [_numeric_atoms(e) for e in sides]
    if sides[0].atoms(sympy.Function) != sides[1].atoms(sympy.Function):
        return False  # not in the same generators (and spared cancel's work on the two)
    fa, fb = _fraction(sides[0]), _fraction(sides[1])
    try:  # the generators of the four polynomials (sympy picks them: N0, e^(t/2))
        _, opt = sympy.parallel_poly_from_expr([*fa, *fb])
    except BasePolynomialError:
        return False
    return not any(g.is_number for g in opt.gens) and _equal_monic(fa, fb, tuple(opt.gens), tol)


def _free_numbers(cand: sympy.Expr, law_numbers: set) -> set:
    """Candidate numbers that may stand for a law constant within the
    tolerance: not the law's own and not exponents that are simple fractions
    (an exponent has no tolerance)."""
    exponents = {p.exp for p in cand.atoms(sympy.Pow) if p.exp.is_Rational and p.exp.q <= 1000}
    return {n for n in _numbers(cand)
            if n not in law_numbers and -n not in law_numbers and n not in exponents}


def _small(n: sympy.Rational) -> bool:
    return abs(n.p) <= _STRUCTURAL and n.q <= _STRUCTURAL


_PIECEWISE_FUNCTIONS = (sympy.Abs, sympy.Min, sympy.Max, sympy.sign, sympy.Heaviside)


def _symbolic_verdict(candidate: Any, reference: Any, variables: Sequence[Variable],
                      rel_tol: float, points: dict[str, np.ndarray]
                      ) -> tuple[bool | None, str]:
    """The sympy stage of `strict_match` (runs in the child process)."""
    symbols = symbols_for(variables)
    law = tree_to_sympy(reference, symbols, exact=True)
    cand = tree_to_sympy(candidate, symbols, exact=True, constants=law_constants(law))
    tol_text = f"{rel_tol:.3g}"

    if equal_within(cand, law, rel_tol):
        return True, f"is the law: the same expression, constants within {tol_text}"
    # 2^(-t/h) and exp(-0.01247*t) are one law written two ways: compare
    # both with every constant-base power as an exponential
    if equal_within(_exp_form(cand), _exp_form(law), rel_tol):
        return True, f"is the law written with exponentials, constants within {tol_text}"
    if equal_within(_monic_powers(cand), _monic_powers(law), rel_tol):
        return True, (f"is the law once each sum under a root or power has its first "
                      f"coefficient taken out, constants within {tol_text}")

    law_expanded = _expand_all(law)
    law_numbers = _numbers(law) | _numbers(law_expanded)
    exact_candidate = (not _free_numbers(cand, law_numbers)
                       and {abs(n) for n in law_numbers if not _small(n)}
                       <= {abs(n) for n in _numbers(cand)})
    cand = _snap_constants(cand, law_numbers, rel_tol)
    diff = cand - law
    if diff == 0:
        return True, f"is the law: the same expression, constants within {tol_text}"
    cand_expanded = _expand_all(cand)
    if equal_within(cand_expanded, law_expanded, rel_tol):
        return True, f"is the law once expanded, constants within {tol_text}"
    diff = _expand_all(diff)
    if diff == 0:
        return True, f"is the law once expanded, constants within {tol_text}"
    if equal_within(_monic_powers(cand_expanded), _monic_powers(law_expanded), rel_tol):
        return True, (f"is the law once expanded, each sum under a root or power with its "
                      f"first coefficient taken out, constants within {tol_text}")
    gens = tuple(symbols.values())
    if cand.is_rational_function(*gens) and law.is_rational_function(*gens):
        # Ratios of polynomials have a canonical form, so no simplify is needed:
        # equal forms (constants within the tolerance) are the law, and any
        # other difference is a real one.
        if _same_rational_function(cand, law, gens, rel_tol):
            return True, ("is the law as a ratio of polynomials, constants "
                          f"within {tol_text}")
        return residue_verdict(sympy.cancel(diff), cand, law, symbols, points)
    if _same_ratio_in_generators(cand, law, symbols, rel_tol):
        return True, ("is the law as a ratio of polynomials in the inputs' roots and "
                      f"functions, constants within {tol_text}")
    return _beyond_expansion(cand, law, diff, exact_candidate, symbols, rel_tol, points)


def _beyond_expansion(cand: sympy.Expr, law: sympy.Expr, diff: sympy.Expr,
                      exact_candidate: bool, symbols: dict[str, sympy.Symbol],
                      rel_tol: float, points: dict[str, np.ndarray]
                      ) -> tuple[bool | None, str]:
    """The verdict on an expanded difference that is not 0 and not between
    rational functions: cheap tactics first, then sympy's simplify."""
    tol_text = f"{rel_tol:.3g}"
    if exact_candidate:
        # The candidate has every number of the law and no other (save
        # exponents that are simple fractions): no constant can be rounded,
        # so a difference beyond the tolerance is a real one. (This spares
        # sympy's simplify, which can run for minutes on x^1.01 forms.)
        worst = worst_residue(diff, law, symbols, points)
        if worst > rel_tol:
            return False, (f"is not the law: it differs from the law by "
                           f"{show_residue(diff)} (relative size up to {worst:.2g} at the "
                           f"sample points, beyond the tolerance {tol_text}, with every "
                           f"number of the law in place and no other numbers)")

    proof = prove_zero(diff)
    if proof is not None:
        return True, f"is the law: candidate - law is 0 with {proof}"
    ratio = exp_form_ratio(cand, law)
    if ratio is not None:
        return _constant_factor(ratio - 1, tol_text, rel_tol)
    noise = noise_verdict(diff, cand, law, symbols, points)
    if noise is not None:
        return noise
    return _simplified(cand, law, diff, symbols, rel_tol, points)


def _simplified(cand: sympy.Expr, law: sympy.Expr, diff: sympy.Expr,
                symbols: dict[str, sympy.Symbol], rel_tol: float,
                points: dict[str, np.ndarray]) -> tuple[bool | None, str]:
    """The last stage: sympy's simplify, cases, the last-resort tactics."""
    tol_text = f"{rel_tol:.3g}"
    diff = sympy.simplify(diff)
    if diff == 0:
        return True, "is the law: sympy simplifies candidate - law to 0"
    # A constant relative difference is a rounded overall constant.
    ratio = sympy.simplify(diff / law) if law != 0 else sympy.nan
    if _is_constant(ratio) and _value(ratio) is not None:
        return _constant_factor(ratio, tol_text, rel_tol)
    if equal_within(sympy.simplify(cand), sympy.simplify(law), rel_tol):
        return True, f"is the law once simplified, constants within {tol_text}"
    if diff.has(*_PIECEWISE_FUNCTIONS):
        # simplify leaves max(x, y) vs (x + y + |x - y|)/2 alone; as explicit
        # cases the difference folds to 0.
        if sympy.simplify(diff.rewrite(sympy.Piecewise)) == 0:
            return True, "is the law: case by case, candidate - law is 0"
    proof = prove_zero(diff, LAST_RESORT)
    if proof is not None:
        return True, f"is the law: candidate - law is 0 with {proof}"
    return residue_verdict(diff, cand, law, symbols, points)


def _constant_factor(excess: sympy.Expr, tol_text: str, rel_tol: float) -> tuple[bool, str]:
    """The verdict on a candidate that is the law times (1 + excess)."""
    value = _value(excess)
    if value is not None and abs(value) <= rel_tol:
        return True, (f"is the law: it is the law times {1 + value.real:.6g}, "
                      f"within {tol_text}")
    factor = "an undefined factor" if value is None else f"{1 + value.real:.6g}"
    return False, (f"is not the law: it is the law times {factor}, "
                   f"outside the tolerance {tol_text}")


#: The symbolic stage's budget: calls of sympy's cached core functions (the
#: construction of every sum, product and power goes through them), counted
#: from an empty cache. A count, so that a verdict never depends on the
#: machine's load (a wall-clock limit gave different verdicts to the same
#: predictor on a busy machine); 400,000 calls are about 5 s of sympy on a
#: quiet machine.
STRICT_WORK = 400_000
#: Seconds of the child's CPU time after which it stops (undecided) when the
#: count has not stopped it: work that makes few cached calls (sympy's
#: polynomial arithmetic, mpmath) is bounded by CPU time, which, unlike the
#: wall clock, other processes on the machine barely change.
STRICT_CPU = 5
#: Seconds of wall time after which a child is killed when no `timeout` is
#: given: only a child that gets no CPU at all for that long gets there.
STRICT_BACKSTOP = 120.0


def _sympy_calls() -> int:
    from sympy.core.cache import CACHE
    return sum(info.hits + info.misses for info in (f.cache_info() for f in CACHE))


def _child(conn, work, *args) -> None:
    """Child-process entry: send back (strict, reason) or an error verdict.

    With a `work` budget, sympy's cache is emptied first (so the count does
    not depend on what the parent computed before) and a watcher thread
    ends the child once the count passes it; a verdict reached after the
    count passed it is replaced by the same undecided one, so the verdict
    depends on the count alone, never on when the watcher looked."""
    import threading
    import time

    from sympy.core.cache import clear_cache

    spent = (None, f"is undecided: the symbolic check used its whole budget of {work or 0:,} sympy steps")
    sending = threading.Lock()

    def send(result) -> None:
        with sending:
            conn.send(result)
            conn.close()
            os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(0.01)
            if _sympy_calls() > work:
                send(spent)

    if work is not None:
        import resource

        # the kernel stops the child at STRICT_CPU s of CPU (SIGXCPU), inside a C call too
        resource.setrlimit(resource.RLIMIT_CPU, (STRICT_CPU, resource.getrlimit(resource.RLIMIT_CPU)[1]))
        clear_cache()
        threading.Thread(target=watch, daemon=True).start()
    try:
        result = _symbolic_verdict(*args)
    except RecursionError:
        result = (None, "is undecided: the expression is too deep for sympy")
    except Exception as exc:  # sympy failures are "undecided", never a crash
        result = (None, f"is undecided: sympy failed ({type(exc).__name__}: {exc})")
    send(spent if work is not None and _sympy_calls() > work else result)


#: Modules sympy's simplify imports the first time it runs (units, tensors,
#: permutation groups): imported in the parent before the first fork, so that
#: no child spends its CPU time and its budget of sympy calls (about 9,000 of
#: them, and 0.5 s) importing them again, and a verdict does not depend on
#: whether the process that forked the child had imported them.
_LAZY_IMPORTS = ("sympy.physics.units", "sympy.tensor.tensor", "sympy.assumptions.wrapper")


def _preload() -> None:
    import importlib
    import sys

    for name in _LAZY_IMPORTS:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except ImportError:  # a sympy without it: its simplify cannot import it either
                pass


def _run_with_timeout(timeout: float | None, work: int | None, *args) -> tuple[bool | None, str, bool]:
    """Run `_symbolic_verdict` in a forked child that stops after `work`
    sympy calls, killed after `timeout` s (STRICT_BACKSTOP when None):
    (strict, reason, whether the clock stopped it)."""
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: run inline, unbounded
        return (*_symbolic_verdict(*args), False)
    _preload()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(sender, work, *args), daemon=True)
    proc.start()
    sender.close()
    limit = STRICT_BACKSTOP if timeout is None else timeout
    try:
        if receiver.poll(limit):
            return (*receiver.recv(), False)
        return None, f"is undecided: the symbolic check did not finish within {limit:g} s", True
    except EOFError:
        proc.join()
        if work is not None and proc.exitcode == -signal.SIGXCPU:
            return None, f"is undecided: the symbolic check used its {STRICT_CPU} s of CPU time", False
        return None, "is undecided: the symbolic check stopped without an answer", True
    finally:
        receiver.close()
        if proc.is_alive():
            proc.kill()
        proc.join()


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def strict_match(candidate: Any, reference: Any, variables: Sequence[Variable],
                 rel_tol: float, timeout: float | None = None, seed: int = 0,
                 work: int | None = STRICT_WORK) -> StrictVerdict:
    """Decide whether `candidate` is the law `reference` symbolically.

    Both are predictor trees over `variables`; constants may differ by
    `rel_tol` (relative). `work` bounds the symbolic stage in calls of
    sympy's cached functions (deterministic; None: no count), `timeout` in seconds of wall time
    (None: STRICT_BACKSTOP); `seed` fixes the sample points. Returns a verdict whose `strict` is True
    (the law), False (not the law) or None (undecided: budget or time spent, sympy
    failure, or an identity sympy could not prove), with a reason sentence.
    A malformed candidate is not the law; a malformed reference raises
    TreeError, and a bad variable domain ValueError.
    """
    for v in variables:
        if not (math.isfinite(v.lo) and math.isfinite(v.hi) and v.lo <= v.hi):
            raise ValueError(f"{v.name}: bad domain [{v.lo}, {v.hi}]")
    points = sample_domain(variables, SAMPLE_POINTS, seed)
    evaluate_tree(reference, points)  # a malformed law is the caller's bug: raise
    try:
        evaluate_tree(candidate, points)
    except TreeError as exc:
        return StrictVerdict(False, f"The candidate is not a valid expression: {exc}.")

    clear_difference = _numeric_precheck(candidate, reference, points, rel_tol)
    if clear_difference is not None:
        return StrictVerdict(False, f"The candidate is not the law: it {clear_difference}.")

    strict, reason, timed_out = _run_with_timeout(timeout, work, candidate, reference, tuple(variables),
                                                  rel_tol, points)
    return StrictVerdict(strict, f"The candidate {reason}.", timed_out)
