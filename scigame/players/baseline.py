"""The built-in baseline player: a classical scientist in miniature.

No network and no language model: it reads the public task, fits candidate
laws to the observations it has, weighs them by how well they predict data
they were not fitted to, and, in the Adaptive protocol, measures where its
leading hypotheses disagree most.

* **Identification** — the family ``G(x; s)`` is evaluated at s = 0 and
  s = 1 (and at the least-squares s when the card allows intermediate
  values); confidences are likelihoods at the tolerance scale times a mild
  prior for the textbook law (s = 0).
* **Discovery** — a library of forms is fitted per output: power laws with
  exponents snapped to simple fractions (units used to guess exponents when
  data are scarce and to break ties), exponential and Arrhenius factors,
  linear, two-term monomial, saturating (with a competitive term),
  hyperbolic, and trigonometric forms for angles. Each is scored by its
  leave-one-out scaled error with a complexity penalty; forms that predict
  the same within tolerance over the domain are pooled into one hypothesis.

Every act is deterministic for a given state: random draws come from a
generator seeded by (seed, observations, turns).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from ..predictor import PredictorInvalid, evaluate_predictor, validate_predictor
from ..records import Action, Experiment, Hypothesis, Submission, Usage
from .base import EpisodeState, Player

__all__ = ["BaselinePlayer"]

#: Points drawn when searching the domain for the most telling experiment.
CANDIDATE_POINTS = 512
#: Points of the fixed domain sample used to check predictors and compare hypotheses.
CHECK_POINTS = 192
#: Scaled errors are clipped here so one wild point cannot swamp a likelihood.
ERROR_CAP = 1e3
#: Hypotheses reported per turn (at most).
MAX_HYPOTHESES = 4
#: Prior weight of the textbook (s = 0) member in identification.
TEXTBOOK_PRIOR = 0.6

_DEG = math.pi / 180.0
_ANGLE_UNITS = {"deg": _DEG, "degree": _DEG, "degrees": _DEG, "°": _DEG, "rad": 1.0, "radian": 1.0}


# ---------------------------------------------------------------------------
# Trees
# ---------------------------------------------------------------------------

def _var(name: str) -> dict:
    return {"var": name}


def _op(name: str, *args: Any) -> dict:
    return {"op": name, "args": list(args)}


def _num(x: float) -> float:
    return float(x)


def _product(factors: list) -> Any:
    factors = [f for f in factors if not (isinstance(f, float) and f == 1.0)]
    if not factors:
        return 1.0
    if len(factors) == 1:
        return factors[0]
    return _op("mul", *factors)


def _power(tree: Any, p: float) -> Any:
    if p == 1:
        return tree
    if p == 0.5:
        return _op("sqrt", tree)
    return _op("pow", tree, _num(p))


def _substitute(tree: Any, name: str, value: float) -> Any:
    """`tree` with the variable `name` replaced by `value`, constants folded."""
    if isinstance(tree, dict) and "var" in tree:
        return float(value) if tree["var"] == name else tree
    if isinstance(tree, dict) and "op" in tree:
        args = [_substitute(a, name, value) for a in tree.get("args", [])]
        return _fold(tree["op"], args)
    return tree


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _fold(op: str, args: list) -> Any:
    """Constant folding plus the identities 0·x = 0, 1·x = x, x + 0 = x,
    x − 0 = x (so the s = 0 member drops the unused law entirely)."""
    if all(_is_num(a) for a in args):
        try:
            out = evaluate_predictor({"c": _op(op, *[float(a) for a in args])}, {})["c"]
            value = float(np.asarray(out).ravel()[0]) if np.size(out) else float(out)
            if math.isfinite(value):
                return value
        except (PredictorInvalid, ValueError, IndexError, TypeError):
            pass
        return _op(op, *args)
    if op == "mul":
        if any(_is_num(a) and a == 0 for a in args):
            return 0.0
        rest = [a for a in args if not (_is_num(a) and a == 1)]
        return rest[0] if len(rest) == 1 else _op("mul", *rest) if rest else 1.0
    if op == "add":
        rest = [a for a in args if not (_is_num(a) and a == 0)]
        return rest[0] if len(rest) == 1 else _op("add", *rest) if rest else 0.0
    if op == "sub" and _is_num(args[1]) and args[1] == 0:
        return args[0]
    if op == "div" and _is_num(args[1]) and args[1] == 1:
        return args[0]
    return _op(op, *args)


def _evaluate(tree: Any, X: dict[str, np.ndarray]) -> Optional[np.ndarray]:
    """Values of one tree at the points X, or None if it leaves its domain."""
    try:
        out = evaluate_predictor({"y": tree}, X)["y"]
    except (PredictorInvalid, ValueError, KeyError, TypeError, RecursionError):
        return None
    out = np.asarray(out, dtype=float)
    return out if np.all(np.isfinite(out)) else None


# ---------------------------------------------------------------------------
# Units: just enough to do dimensional analysis on card units
# ---------------------------------------------------------------------------

_BASES = ("M", "L", "T", "Th", "N", "I", "J")
_UNITS: dict[str, tuple[float, dict[str, int]]] = {
    "m": (1.0, {"L": 1}), "g": (1e-3, {"M": 1}), "s": (1.0, {"T": 1}),
    "min": (60.0, {"T": 1}), "h": (3600.0, {"T": 1}), "hr": (3600.0, {"T": 1}),
    "d": (86400.0, {"T": 1}), "day": (86400.0, {"T": 1}), "yr": (3.156e7, {"T": 1}),
    "K": (1.0, {"Th": 1}), "mol": (1.0, {"N": 1}), "A": (1.0, {"I": 1}), "cd": (1.0, {"J": 1}),
    "N": (1.0, {"M": 1, "L": 1, "T": -2}), "J": (1.0, {"M": 1, "L": 2, "T": -2}),
    "W": (1.0, {"M": 1, "L": 2, "T": -3}), "Pa": (1.0, {"M": 1, "L": -1, "T": -2}),
    "bar": (1e5, {"M": 1, "L": -1, "T": -2}), "atm": (101325.0, {"M": 1, "L": -1, "T": -2}),
    "Hz": (1.0, {"T": -1}), "Bq": (1.0, {"T": -1}), "L": (1e-3, {"L": 3}), "l": (1e-3, {"L": 3}),
    "M": (1e3, {"N": 1, "L": -3}), "C": (1.0, {"I": 1, "T": 1}),
    "V": (1.0, {"M": 1, "L": 2, "T": -3, "I": -1}), "ohm": (1.0, {"M": 1, "L": 2, "T": -3, "I": -2}),
    "eV": (1.602e-19, {"M": 1, "L": 2, "T": -2}), "cal": (4.184, {"M": 1, "L": 2, "T": -2}),
    "deg": (_DEG, {}), "rad": (1.0, {}), "sr": (1.0, {}), "%": (0.01, {}), "1": (1.0, {}),
    "lm": (1.0, {"J": 1}), "lx": (1.0, {"J": 1, "L": -2}), "Da": (1.66e-27, {"M": 1}),
    "u": (1.66e-27, {"M": 1}),
}
_PREFIXES = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3,
             "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "µ": 1e-6,
             "μ": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15}


def _unit_symbol(sym: str) -> Optional[tuple[float, dict[str, int]]]:
    if sym in _UNITS:
        return _UNITS[sym]
    for pre in sorted(_PREFIXES, key=len, reverse=True):
        if sym.startswith(pre) and sym[len(pre):] in _UNITS:
            scale, dims = _UNITS[sym[len(pre):]]
            return scale * _PREFIXES[pre], dims
    return None


def parse_unit(text: str) -> Optional[tuple[float, np.ndarray]]:
    """A unit string such as ``mL/min`` or ``W m^-2 K^-4`` as (factor to
    SI, exponents of M, L, T, Θ, N, I, J); None if any part is unknown."""
    text = (text or "").strip()
    if not text or text in ("1", "-", "dimensionless"):
        return 1.0, np.zeros(len(_BASES))
    tokens = re.findall(r"[A-Za-zµμ°%]+|\^\s*\(?-?\d+(?:/\d+)?\)?|-?\d+(?:\.\d+)?|[*/()·]", text)
    total = np.zeros(len(_BASES))
    log_scale = 0.0
    sign_stack = [1.0]
    sign = 1.0  # +1 in the numerator, -1 after a '/'
    last: Optional[tuple[float, np.ndarray]] = None
    for tok in tokens:
        if tok in ("*", "·"):
            sign = sign_stack[-1]
        elif tok == "/":
            sign = -sign_stack[-1]
        elif tok == "(":
            sign_stack.append(sign)
        elif tok == ")":
            if len(sign_stack) > 1:
                sign_stack.pop()
            sign = sign_stack[-1]
        elif tok.startswith("^"):
            if last is None:
                return None
            try:
                power = float(Fraction(tok[1:].strip().strip("()")))
            except (ValueError, ZeroDivisionError):
                return None
            total += last[1] * (power - 1.0)
            log_scale += last[0] * (power - 1.0)
            last = None
        elif re.fullmatch(r"-?\d+(?:\.\d+)?", tok):
            last = None  # a bare number such as the 1 in 1/s
        else:
            found = _unit_symbol(tok)
            if found is None:
                return None
            vec = np.array([found[1].get(b, 0) for b in _BASES], dtype=float) * sign
            ls = math.log(found[0]) * sign
            total += vec
            log_scale += ls
            last = (ls, vec)
    return math.exp(log_scale), total


def unit_dimension(text: str) -> Optional[np.ndarray]:
    """The dimension of a unit string (see parse_unit), or None."""
    parsed = parse_unit(text)
    return None if parsed is None else parsed[1]


#: Universal constants a physicist reaches for in dimensional analysis:
#: (symbol, SI value, dimension in M, L, T, Θ, N, I, J).
_CONSTANTS = (
    ("G", 6.674e-11, (-1, 3, -2, 0, 0, 0, 0)),
    ("g", 9.81, (0, 1, -2, 0, 0, 0, 0)),
    ("c", 2.998e8, (0, 1, -1, 0, 0, 0, 0)),
    ("R", 8.314, (1, 2, -2, -1, -1, 0, 0)),
    ("k_B", 1.381e-23, (1, 2, -2, -1, 0, 0, 0)),
    ("sigma", 5.670e-8, (1, 0, -3, -4, 0, 0, 0)),
    ("h", 6.626e-34, (1, 2, -1, 0, 0, 0, 0)),
    ("e", 1.602e-19, (0, 0, 1, 0, 0, 1, 0)),
)
_DA_EXPONENTS = (-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4)
#: Words in a task's text that make a constant a plausible ingredient.
_CONSTANT_CUES = {
    "G": ("gravitation", "attract", "bodies", "planet", "orbit"),
    "g": ("earth", "gravity", "pendulum", "swing", "fall", "weight", "height", "hangs"),
    "c": ("speed of light", "relativ", "electromagnetic"),
    "R": ("gas", "molar", "mol ", "reaction", "solution"),
    "k_B": ("molecule", "thermal", "boltzmann"),
    "sigma": ("radiat", "emit", "black", "glow"),
    "h": ("photon", "quantum", "frequency"),
    "e": ("charge", "electron", "ion"),
}


@dataclass
class _DimGuess:
    powers: dict[str, Fraction]
    constant: Optional[str]
    constant_power: Fraction
    coefficient: float  # in declared units, with the constant's value and unit factors folded in


def _dimensional_guess(inputs: list[_Input], output: _Output, context: str = "") -> Optional[_DimGuess]:
    """A product of powers of the positive inputs, times at most one
    universal constant, with exactly the output's dimension; the simplest
    such (every input used, small exponents, integer before half, a
    constant only if needed and preferably one the task's text hints at).
    None when the units are unknown or no product fits."""
    text = context.lower()
    out = parse_unit(output.unit)
    pos = [i for i in inputs if i.positive and i.angle is None]
    parsed = [parse_unit(i.unit) for i in pos]
    if out is None or not pos or any(p is None for p in parsed) or len(pos) > 5:
        return None
    D = np.column_stack([p[1] for p in parsed])  # type: ignore[index]
    grid = np.array(list(itertools.product(_DA_EXPONENTS, repeat=len(pos))), dtype=float)
    dims = grid @ D.T
    best = None
    options = [(None, 1.0, np.zeros(len(_BASES)), 0.0)]
    for sym, value, dim in _CONSTANTS:
        for cp in (1.0, -1.0, 0.5, -0.5):
            options.append((sym, value, np.array(dim, float) * cp, cp))
    for sym, value, cdim, cp in options:
        miss = np.abs(dims + cdim - out[1]).sum(axis=1)
        ok = np.flatnonzero(miss < 1e-9)
        if len(ok) == 0:
            continue
        cue = sym is not None and any(w in text for w in _CONSTANT_CUES.get(sym, ()))
        cost = (0.3 * np.abs(grid[ok]).sum(axis=1) + 0.5 * (grid[ok] % 1 != 0).sum(axis=1)
                + 1.0 * (grid[ok] == 0).sum(axis=1) + 0.01 * (grid[ok] ** 2).sum(axis=1)
                + (0 if sym is None else 2.0 + abs(cp) % 1 - (1.5 if cue else 0.0)))
        j = int(np.argmin(cost))
        if best is None or cost[j] < best[0] - 1e-12:
            best = (float(cost[j]), grid[ok[j]], sym, value, cp)
    if best is None:
        return None
    _, p, sym, value, cp = best
    coef = (value ** cp if sym else 1.0) / out[0]
    for pi, parsed_i in zip(p, parsed):
        coef *= parsed_i[0] ** pi  # type: ignore[index]
    powers = {i.name: Fraction(v).limit_denominator(2) for i, v in zip(pos, p)}
    return _DimGuess(powers, sym, Fraction(cp).limit_denominator(2), float(coef))


# ---------------------------------------------------------------------------
# The task
# ---------------------------------------------------------------------------

@dataclass
class _Input:
    name: str
    unit: str
    kind: str
    lo: float
    hi: float
    values: list[float]

    @property
    def positive(self) -> bool:
        if self.kind == "set":
            return bool(self.values) and min(self.values) > 0
        return self.lo > 0

    @property
    def nonzero(self) -> bool:
        if self.kind == "set":
            return bool(self.values) and 0 not in self.values and (min(self.values) > 0 or max(self.values) < 0)
        return self.lo > 0 or self.hi < 0

    @property
    def angle(self) -> Optional[float]:
        """Radians per declared unit if this input is an angle."""
        return _ANGLE_UNITS.get(self.unit.strip())

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        """Map numbers in [0, 1) onto the domain (uniform, log-uniform, ...)."""
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        if self.kind == "set" and self.values:
            vals = np.asarray(sorted(self.values), dtype=float)
            return vals[np.minimum((u * len(vals)).astype(int), len(vals) - 1)]
        if self.kind == "log" and self.lo > 0 and self.hi > 0:
            return self.lo * (self.hi / self.lo) ** u
        if self.kind == "integer":
            lo, hi = math.ceil(self.lo), math.floor(self.hi)
            return np.minimum(lo + np.floor(u * (hi - lo + 1)), hi)
        return self.lo + u * (self.hi - self.lo)

    def to_unit(self, x: np.ndarray) -> np.ndarray:
        """Position of values in the domain as numbers in [0, 1] (for distances)."""
        x = np.asarray(x, dtype=float)
        if self.kind == "set" and self.values:
            lo, hi = min(self.values), max(self.values)
        else:
            lo, hi = self.lo, self.hi
        if self.kind == "log" and lo > 0:
            return np.log(np.maximum(x, 1e-300) / lo) / max(math.log(hi / lo), 1e-12)
        return (x - lo) / max(hi - lo, 1e-12)

    def tidy(self, x: float) -> float:
        """A value a person would dial in: 4 significant digits, inside the domain."""
        if self.kind == "set" and self.values:
            return float(min(self.values, key=lambda v: abs(v - x)))
        if self.kind == "integer":
            return float(min(max(round(x), math.ceil(self.lo)), math.floor(self.hi)))
        y = float(f"{x:.4g}")
        return float(min(max(y, self.lo), self.hi))

    def describe_range(self) -> str:
        unit = f" {self.unit}" if self.unit and self.unit != "1" else ""
        if self.kind == "set":
            return f"{self.name} in {{{', '.join(_fmt(v) for v in self.values)}}}{unit}"
        return f"{self.name} {_fmt(self.lo)}..{_fmt(self.hi)}{unit}"


@dataclass
class _Output:
    name: str
    unit: str
    tol_abs: float
    tol_rel: float

    @property
    def angle(self) -> Optional[float]:
        return _ANGLE_UNITS.get(self.unit.strip())

    def scale(self, y: np.ndarray) -> np.ndarray:
        """The tolerance at y: a + λ|y| (never zero)."""
        s = self.tol_abs + self.tol_rel * np.abs(np.asarray(y, dtype=float))
        return np.maximum(s, 1e-150)  # squared, still a finite weight


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _parse_inputs(task: dict) -> list[_Input]:
    out = []
    for spec in task.get("inputs", []):
        dom = spec.get("domain") or {}
        values = [float(v) for v in (dom.get("values") or [])]
        lo = dom.get("lo")
        hi = dom.get("hi")
        lo = float(lo) if lo is not None else (min(values) if values else 0.0)
        hi = float(hi) if hi is not None else (max(values) if values else 1.0)
        out.append(_Input(str(spec["name"]), str(spec.get("unit") or ""), str(dom.get("kind") or "range"),
                          lo, hi, values))
    return out


def _parse_outputs(task: dict) -> list[_Output]:
    out = []
    for spec in task.get("outputs", []):
        tol = spec.get("tolerance") or {}
        a = float(tol.get("abs") or 0.0)
        r = float(tol.get("rel") or 0.0)
        if a <= 0 and r <= 0:
            r = 0.01
        out.append(_Output(str(spec["name"]), str(spec.get("unit") or ""), a, r))
    return out


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53)


def _radical_inverse(idx: np.ndarray, base: int) -> np.ndarray:
    """The van der Corput radical inverse of each index in the given base."""
    out = np.zeros(len(idx))
    f = 1.0 / base
    i = idx.copy()
    while np.any(i > 0):
        out += f * (i % base)
        i //= base
        f /= base
    return out


class _Sampler:
    """Domain points: a fixed check sample (corners plus a scrambled Sobol
    set) and seeded random candidates."""

    def __init__(self, inputs: list[_Input]):
        self.inputs = inputs

    def from_unit(self, U: np.ndarray) -> dict[str, np.ndarray]:
        return {inp.name: inp.from_unit(U[:, j]) for j, inp in enumerate(self.inputs)}

    def sobol(self, n: int, seed: int) -> np.ndarray:
        """n space-filling points in [0, 1)^d: a Halton sequence with a
        seeded random shift (cheap, and no scipy.stats import)."""
        d = len(self.inputs)
        if d == 0:
            return np.zeros((n, 0))
        shift = np.random.default_rng(seed).random(d)
        idx = np.arange(1, n + 1)
        cols = [(_radical_inverse(idx, _PRIMES[j % len(_PRIMES)]) + shift[j]) % 1.0 for j in range(d)]
        return np.column_stack(cols)

    def check_sample(self) -> dict[str, np.ndarray]:
        d = len(self.inputs)
        corners = np.array(list(itertools.product((0.0, 1.0), repeat=d))) if 0 < d <= 8 else np.zeros((0, d))
        mids = np.full((1, d), 0.5)
        U = np.vstack([corners, mids, self.sobol(CHECK_POINTS, 20240917)])
        X = self.from_unit(U)
        # set domains: include every listed value at least once
        for j, inp in enumerate(self.inputs):
            if inp.kind == "set" and inp.values:
                X[inp.name][: len(inp.values)] = np.asarray(inp.values[: len(X[inp.name])], float)
        return X


# ---------------------------------------------------------------------------
# Forms (discovery)
# ---------------------------------------------------------------------------

@dataclass
class _Form:
    """One fitted law for one output."""

    kind: str
    text: str  # the formula with fitted constants
    tree: Any
    k: int  # constants fitted to the data
    penalty: float  # prior complexity, in nats
    refit: Callable[[np.ndarray], Optional[Callable[[dict], np.ndarray]]]  # fit on a subset of rows
    predict_obs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    loo: np.ndarray = field(default_factory=lambda: np.zeros(0))
    score: float = -math.inf  # log evidence
    check: Optional[np.ndarray] = None  # predictions on the check sample


def _wls(A: np.ndarray, y: np.ndarray, w: np.ndarray) -> Optional[np.ndarray]:
    """Weighted least squares min Σ w (A c − y)²."""
    if A.shape[0] < A.shape[1] or A.shape[1] == 0:
        return None
    sw = np.sqrt(np.maximum(w, 0))
    try:
        c, *_ = np.linalg.lstsq(A * sw[:, None], y * sw, rcond=None)
    except (np.linalg.LinAlgError, ValueError):
        return None
    return c if np.all(np.isfinite(c)) else None


def _snap_candidates(p: float) -> list[Fraction]:
    """Simple fractions (denominator <= 4) near p, simplest first."""
    out: list[Fraction] = []
    for den in (1, 2, 3, 4):
        f = Fraction(round(p * den), den)
        if f not in out and abs(float(f) - p) <= 0.5:
            out.append(f)
    return out[:3]


def _frac_penalty(fr: Fraction) -> float:
    return 0.0 if fr.denominator == 1 else 0.7 * math.log(fr.denominator + 1)


def _frac_text(fr: Fraction) -> str:
    return str(fr.numerator) if fr.denominator == 1 else f"{fr.numerator}/{fr.denominator}"


class _Fitter:
    """Fits the library of forms to one output's observations."""

    def __init__(self, inputs: list[_Input], output: _Output, X: dict[str, np.ndarray], y: np.ndarray):
        self.inputs = inputs
        self.output = output
        self.X = X
        self.y = y
        self.n = len(y)
        self.sw = output.scale(y)  # tolerance at each point
        self.w = 1.0 / self.sw ** 2
        self.forms: list[_Form] = []
        self.out_dim = unit_dimension(output.unit)
        self.in_dims = [unit_dimension(i.unit) for i in inputs]

    # -- helpers ------------------------------------------------------------------
    def _rows(self, X: dict, idx: np.ndarray) -> dict:
        return {k: v[idx] for k, v in X.items()}

    def _const_dim_complexity(self, powers: dict[str, float]) -> float:
        """How many base-dimension powers the constant of a power law carries."""
        if self.out_dim is None:
            return 0.0
        dim = self.out_dim.copy()
        for inp, d in zip(self.inputs, self.in_dims):
            p = powers.get(inp.name, 0.0)
            if p:
                if d is None:
                    return 0.0
                dim = dim - p * d
        return float(np.sum(np.abs(dim)))

    def add(self, form: _Form) -> None:
        self.forms.append(form)

    # -- y = c * f(x) with f fixed ------------------------------------------------------------
    def scaled(self, kind: str, f_tree: Any, text_fn: Callable[[float], str], penalty: float) -> None:
        f_obs = _evaluate(f_tree, self.X) if self.n else None
        if f_obs is None:
            return
        y, w = self.y, self.w

        def fit_c(idx: np.ndarray) -> Optional[float]:
            den = float(np.sum(w[idx] * f_obs[idx] ** 2))
            if not den > 0 or not math.isfinite(den):
                return None
            c = float(np.sum(w[idx] * f_obs[idx] * y[idx]) / den)
            return c if math.isfinite(c) and c != 0 else None

        def refit(idx: np.ndarray):
            c = fit_c(idx)
            if c is None:
                return None
            return lambda X, c=c: c * _evaluate(f_tree, X)

        c = fit_c(np.arange(self.n))
        if c is None:
            return
        tree = _op("mul", _num(c), f_tree) if not _is_num(f_tree) else _num(c * f_tree)
        self.add(_Form(kind, text_fn(c), tree, 1, penalty, refit))

    # -- y = Σ c_j f_j(x) ---------------------------------------------------------------------
    def linear_combo(self, kind: str, basis: list[Any], text_fn: Callable[[np.ndarray], str],
                     penalty: float) -> None:
        cols = []
        for b in basis:
            v = _evaluate(b, self.X) if not _is_num(b) else np.full(self.n, float(b))
            if v is None:
                return
            cols.append(v)
        A = np.column_stack(cols) if cols else np.zeros((self.n, 0))
        y, w = self.y, self.w

        def refit(idx: np.ndarray):
            c = _wls(A[idx], y[idx], w[idx])
            if c is None:
                return None

            def pred(X, c=c):
                total = 0.0
                for cj, b in zip(c, basis):
                    total = total + cj * (_evaluate(b, X) if not _is_num(b) else float(b))
                return np.broadcast_to(np.asarray(total, float), np.shape(next(iter(X.values())))).copy()
            return pred

        c = _wls(A, y, w)
        if c is None or self.n < len(basis) + 1:
            return
        terms = [(_op("mul", _num(cj), b) if not _is_num(b) else _num(cj * b)) for cj, b in zip(c, basis)]
        tree = terms[0] if len(terms) == 1 else _op("add", *terms)
        self.add(_Form(kind, text_fn(c), tree, len(basis), penalty, refit))

    # -- nonlinear least squares on scaled residuals ---------------------------------------------------
    def nonlinear(self, kind: str, theta0: np.ndarray, model: Callable[[np.ndarray, dict], np.ndarray],
                  tree_fn: Callable[[np.ndarray], Any], text_fn: Callable[[np.ndarray], str],
                  penalty: float, guard: Optional[Callable[[np.ndarray], bool]] = None) -> None:
        if theta0 is None or not np.all(np.isfinite(theta0)) or self.n < len(theta0) + 1:
            return
        from scipy.optimize import least_squares

        y, sw = self.y, self.sw

        def solve(idx: np.ndarray, start: np.ndarray, nfev: int) -> Optional[np.ndarray]:
            Xs = self._rows(self.X, idx)

            def resid(t):
                with np.errstate(all="ignore"):
                    r = (model(t, Xs) - y[idx]) / sw[idx]
                return np.where(np.isfinite(r), np.clip(r, -1e8, 1e8), 1e8)
            try:
                sol = least_squares(resid, start, method="lm" if len(idx) >= len(start) else "trf",
                                    x_scale="jac", max_nfev=nfev)
            except (ValueError, FloatingPointError, np.linalg.LinAlgError):
                return None
            return sol.x if np.all(np.isfinite(sol.x)) else None

        theta = solve(np.arange(self.n), np.asarray(theta0, float), 100)
        if theta is None or (guard is not None and not guard(theta)):
            return

        def refit(idx: np.ndarray):
            t = solve(idx, theta, 30)
            if t is None or (guard is not None and not guard(t)):
                return None
            return lambda X, t=t: model(t, X)

        try:
            tree = tree_fn(theta)
        except (ValueError, OverflowError, ZeroDivisionError):
            return
        self.add(_Form(kind, text_fn(theta), tree, len(theta), penalty, refit))


def _pos_inputs(inputs: list[_Input]) -> list[_Input]:
    return [i for i in inputs if i.positive and i.angle is None]


def _monomial(inputs: list[_Input], powers: dict[str, float]) -> list:
    return [_power(_var(i.name), powers[i.name]) for i in inputs if powers.get(i.name, 0) != 0]


def _monomial_text(inputs: list[_Input], powers: dict[str, Fraction | float]) -> str:
    parts = []
    for i in inputs:
        p = powers.get(i.name, 0)
        if p == 0:
            continue
        parts.append(i.name if p == 1 else f"{i.name}^{_frac_text(p) if isinstance(p, Fraction) else _fmt(p)}")
    return "·".join(parts)


def _angle_tree(inp: _Input) -> Any:
    factor = inp.angle or 1.0
    return _var(inp.name) if factor == 1.0 else _op("mul", _num(factor), _var(inp.name))


def _fit_library(inputs: list[_Input], output: _Output, X: dict[str, np.ndarray], y: np.ndarray,
                 context: str = "") -> _Fitter:
    """Fit every applicable form to (X, y)."""
    F = _Fitter(inputs, output, X, y)
    n = F.n
    pos_in = _pos_inputs(inputs)
    ypos = y > 0
    sign = 1.0
    if np.sum(y < 0) > np.sum(ypos):
        sign = -1.0  # negative-valued output: fit |y| and negate
    ylog_ok = (sign * y) > 0
    ylog = np.log(np.where(ylog_ok, sign * y, 1.0))
    wlog = np.where(ylog_ok, (np.abs(y) / F.sw) ** 2, 0.0)  # relative error → log-space weight
    sgn_txt = "-" if sign < 0 else ""

    def signed(tree):
        return tree if sign > 0 else _op("neg", tree)

    # constant
    F.linear_combo("constant", [1.0], lambda c: f"{output.name} = {_fmt(c[0])}", 0.0)

    # -- power laws ---------------------------------------------------------------
    logs = {i.name: np.log(np.maximum(X[i.name], 1e-300)) for i in pos_in}
    free_p: Optional[dict[str, float]] = None
    npos = int(np.sum(ylog_ok))
    if pos_in and npos >= len(pos_in) + 1:
        A = np.column_stack([np.ones(n)] + [logs[i.name] for i in pos_in])
        c = _wls(A, ylog, wlog)
        if c is not None:
            free_p = {i.name: float(p) for i, p in zip(pos_in, c[1:])}
    elif pos_in and npos >= 2:
        # too few points for every exponent: one input at a time
        best = None
        for i in pos_in:
            A = np.column_stack([np.ones(n), logs[i.name]])
            c = _wls(A, ylog, wlog)
            if c is not None:
                r = float(np.sum(wlog * (A @ c - ylog) ** 2))
                if best is None or r < best[0]:
                    best = (r, {j.name: (float(c[1]) if j is i else 0.0) for j in pos_in})
        if best:
            free_p = best[1]

    snaps: list[dict[str, Fraction]] = []
    if free_p is not None:
        options = [_snap_candidates(free_p[i.name]) for i in pos_in]
        if math.prod(len(o) for o in options) > 256:
            options = [o[:1] for o in options]
        for combo in itertools.product(*options):
            snaps.append({i.name: fr for i, fr in zip(pos_in, combo)})
        # the free-exponent law itself (k = 1 + inputs)
        if n >= len(pos_in) + 2:
            names = [i.name for i in pos_in]
            theta0 = np.array([float(np.log(np.exp(np.mean(ylog[ylog_ok])) + 1e-300))] + [free_p[k] for k in names])

            def model(t, Xs, names=names):
                out = np.exp(t[0]) * np.ones(len(next(iter(Xs.values()))))
                for k, p in zip(names, t[1:]):
                    out = out * np.power(Xs[k], p)
                return sign * out

            def tree_fn(t, names=names):
                return signed(_product([_num(math.exp(t[0]))] + [_power(_var(k), float(p)) for k, p in zip(names, t[1:])]))

            def text_fn(t, names=names):
                return f"{output.name} = {sgn_txt}{_fmt(math.exp(t[0]))}·" + "·".join(f"{k}^{_fmt(p)}" for k, p in zip(names, t[1:]))
            # start from the log-linear fit
            A = np.column_stack([np.ones(n)] + [logs[k] for k in names])
            c0 = _wls(A, ylog, wlog)
            if c0 is not None:
                F.nonlinear("power law (free exponents)", c0, model, tree_fn, text_fn, 1.0)
    guess = _dimensional_guess(inputs, output, context)
    if guess is not None and guess.powers not in snaps:
        snaps.append(guess.powers)
    for powers in snaps:
        if all(v == 0 for v in powers.values()):
            continue
        mono = _monomial(pos_in, {k: float(v) for k, v in powers.items()})
        f_tree = _product(mono)
        pen = sum(_frac_penalty(v) for v in powers.values()) + 0.05 * F._const_dim_complexity(
            {k: float(v) for k, v in powers.items()})
        txt = _monomial_text(pos_in, powers)
        F.scaled("power law", f_tree, lambda c, txt=txt: f"{output.name} = {_fmt(c)}·{txt}", pen)

    best_powers = snaps[0] if snaps else {}

    # -- linear -----------------------------------------------------------------------
    num_in = [i for i in inputs]
    if num_in:
        basis = [1.0] + [_var(i.name) for i in num_in]
        names = [i.name for i in num_in]
        F.linear_combo("linear", basis,
                       lambda c, names=names: f"{output.name} = {_fmt(c[0])} + " + " + ".join(
                           f"{_fmt(cj)}·{k}" for cj, k in zip(c[1:], names)), 1.5)

    # -- two monomial terms: y = c1·m1 + c2·m2 (a leading law plus a correction) ---------
    if best_powers and pos_in and n >= 5:
        lead = {k: float(v) for k, v in best_powers.items()}
        grid = [-2, -1, 0, 1, 2]
        if len(pos_in) <= 4:
            for q in itertools.product(grid, repeat=len(pos_in)):
                second = {i.name: float(v) for i, v in zip(pos_in, q)}
                if second == lead:
                    continue
                b1 = _product(_monomial(pos_in, lead))
                b2 = _product(_monomial(pos_in, second))
                t1 = _monomial_text(pos_in, best_powers) or "1"
                t2 = _monomial_text(pos_in, {k: Fraction(v) for k, v in second.items()}) or "1"
                F.linear_combo("two-term", [b1, b2],
                               lambda c, t1=t1, t2=t2: f"{output.name} = {_fmt(c[0])}·{t1} + {_fmt(c[1])}·{t2}",
                               2.5 + 0.2 * sum(abs(v) for v in q))

    # -- exponential factors: exp(b·x_j), Arrhenius exp(b/x_j), and exp(b·x_j/x_k)
    #    (a decay in t/RC, a height over a temperature), times powers of the others
    # each entry: (label, the input whose powers are left out, u(Xs), tree of the exponent, its text)
    arguments = []
    for j in inputs:
        if j.angle is not None:
            continue
        arguments.append(("exponential", j, lambda Xs, a=j.name: Xs[a],
                          lambda b, a=j.name: _op("mul", _num(b), _var(a)),
                          lambda b, a=j.name: f"exp({_fmt(b)}·{a})"))
        if j.nonzero:
            arguments.append(("Arrhenius", j, lambda Xs, a=j.name: 1.0 / Xs[a],
                              lambda b, a=j.name: _op("div", _num(b), _var(a)),
                              lambda b, a=j.name: f"exp({_fmt(b)}/{a})"))
        for k in pos_in:
            if k is not j and k.angle is None and k.nonzero:
                arguments.append(("exponential of a ratio", j,
                                  lambda Xs, a=j.name, z=k.name: Xs[a] / Xs[z],
                                  lambda b, a=j.name, z=k.name: _op("mul", _num(b), _op("div", _var(a), _var(z))),
                                  lambda b, a=j.name, z=k.name: f"exp({_fmt(b)}·{a}/{z})"))
    safe_X = {i.name: (np.where(X[i.name] == 0, 1e-300, X[i.name]) if i.nonzero else X[i.name]) for i in inputs}
    for label, j, u_of, arg_tree, arg_text in arguments:
        others = [i for i in pos_in if i is not j]
        others_use = others if npos >= len(others) + 3 else []
        u = u_of(safe_X)
        A = np.column_stack([np.ones(n), u] + [logs[i.name] for i in others_use])
        c = _wls(A, ylog, wlog)
        if c is None:
            continue
        powers = {i.name: float(Fraction(round(p * 2), 2)) for i, p in zip(others_use, c[2:])}
        powers = {k: v for k, v in powers.items() if v != 0}
        off = np.zeros(n)
        for k, p in powers.items():
            off = off + p * logs[k]
        c2 = _wls(np.column_stack([np.ones(n), u]), ylog - off, wlog)
        if c2 is None:
            continue
        pw = dict(powers)

        def model(t, Xs, pw=pw, u_of=u_of):
            out = np.exp(t[0] + t[1] * u_of(Xs))
            for k, p in pw.items():
                out = out * np.power(Xs[k], p)
            return sign * out

        def tree_fn(t, pw=pw, arg_tree=arg_tree):
            return signed(_product([_num(math.exp(t[0])), _op("exp", arg_tree(t[1]))]
                                   + [_power(_var(k), p) for k, p in pw.items()]))

        def text_fn(t, pw=pw, arg_text=arg_text):
            rest = _monomial_text(inputs, {k: Fraction(p).limit_denominator(4) for k, p in pw.items()})
            return f"{output.name} = {sgn_txt}{_fmt(math.exp(t[0]))}·{arg_text(t[1])}" + (f"·{rest}" if rest else "")
        F.nonlinear(label, c2, model, tree_fn, text_fn,
                    (1.3 if label == "exponential of a ratio" else 1.0) + 0.3 * len(pw))

    # -- saturating, competitive and hyperbolic forms ------------------------------------
    for j in inputs:
        if j.angle is not None or j.lo < 0 or npos < 3:
            continue
        xj = X[j.name]
        ok = ylog_ok & (xj > 0)
        if np.sum(ok) >= 3:
            # Hanes–Woolf: x/y = K/a + x/a
            A = np.column_stack([np.ones(n), xj])
            c = _wls(A[ok], (xj / np.where(ok, sign * y, 1.0))[ok], (np.abs(y[ok]) ** 2 / F.sw[ok] ** 2))
            if c is not None and c[1] != 0:
                a0, K0 = 1.0 / c[1], c[0] / c[1]
                name = j.name

                def model(t, Xs, name=name):
                    return sign * t[0] * Xs[name] / (t[1] + Xs[name])

                def tree_fn(t, name=name):
                    return signed(_op("div", _op("mul", _num(t[0]), _var(name)), _op("add", _num(t[1]), _var(name))))
                lo_j = j.lo
                F.nonlinear("saturating", np.array([a0, K0]), model, tree_fn,
                            lambda t, name=name: f"{output.name} = {sgn_txt}{_fmt(t[0])}·{name}/({_fmt(t[1])} + {name})",
                            1.5, guard=lambda t, lo_j=lo_j: t[1] + lo_j > 0)
                for k in inputs:
                    if k is j or k.angle is not None:
                        continue
                    A = np.column_stack([np.ones(n), X[k.name], xj])
                    c = _wls(A[ok], (xj / np.where(ok, sign * y, 1.0))[ok], (np.abs(y[ok]) ** 2 / F.sw[ok] ** 2))
                    if c is None or c[2] == 0 or np.sum(ok) < 4:
                        continue
                    kn = k.name

                    def model2(t, Xs, name=name, kn=kn):
                        return sign * t[0] * Xs[name] / (t[1] + t[2] * Xs[kn] + Xs[name])

                    def tree2(t, name=name, kn=kn):
                        return signed(_op("div", _op("mul", _num(t[0]), _var(name)),
                                          _op("add", _num(t[1]), _op("mul", _num(t[2]), _var(kn)), _var(name))))
                    F.nonlinear("saturating with competition", np.array([1 / c[2], c[0] / c[2], c[1] / c[2]]),
                                model2, tree2,
                                lambda t, name=name, kn=kn: (f"{output.name} = {sgn_txt}{_fmt(t[0])}·{name}/"
                                                             f"({_fmt(t[1])} + {_fmt(t[2])}·{kn} + {name})"),
                                2.5, guard=lambda t, jj=j, kk=k: all(
                                    t[1] + t[2] * xk + xj > 0 for xk in (kk.lo, kk.hi) for xj in (jj.lo,)))
        # hyperbolic: 1/y = 1/a + (b/a)·x
        if np.sum(ylog_ok) >= 3:
            A = np.column_stack([np.ones(n), xj])
            c = _wls(A[ylog_ok], 1.0 / (sign * y[ylog_ok]), (np.abs(y[ylog_ok]) ** 4 / F.sw[ylog_ok] ** 2))
            if c is not None and c[0] != 0:
                a0, b0 = 1.0 / c[0], c[1] / c[0]
                name = j.name

                def model(t, Xs, name=name):
                    return sign * t[0] / (1.0 + t[1] * Xs[name])

                def tree_fn(t, name=name):
                    return signed(_op("div", _num(t[0]), _op("add", 1.0, _op("mul", _num(t[1]), _var(name)))))
                F.nonlinear("hyperbolic", np.array([a0, b0]), model, tree_fn,
                            lambda t, name=name: f"{output.name} = {sgn_txt}{_fmt(t[0])}/(1 + {_fmt(t[1])}·{name})",
                            1.5, guard=lambda t, jj=j: 1 + t[1] * jj.lo > 0 and 1 + t[1] * jj.hi > 0)

    # -- angles ------------------------------------------------------------------------
    for j in inputs:
        if j.angle is None:
            continue
        xr = X[j.name] * j.angle
        others = pos_in
        for fn in ("cos", "sin"):
            g = np.cos(xr) if fn == "cos" else np.sin(xr)
            ok = ylog_ok & (g > 1e-6)
            if np.sum(ok) < len(others) + 3:
                others_fit: list[_Input] = []
            else:
                others_fit = others
            if np.sum(ok) < 3:
                continue
            A = np.column_stack([np.ones(n), np.log(np.where(g > 1e-300, g, 1.0))] + [logs[i.name] for i in others_fit])
            c = _wls(A[ok], ylog[ok], wlog[ok])
            if c is None:
                continue
            for pp in _snap_candidates(float(c[1]))[:2]:
                if pp == 0:
                    continue
                powers = {i.name: Fraction(round(p * 2), 2) for i, p in zip(others_fit, c[2:])}
                trig = _op(fn, _angle_tree(j))
                factors = [_power(trig, float(pp))] + _monomial(others_fit, {k: float(v) for k, v in powers.items()})
                f_tree = _product(factors)
                rest = _monomial_text(others_fit, powers)
                txt = f"{fn}({j.name})" + ("" if pp == 1 else f"^{_frac_text(pp)}") + (f"·{rest}" if rest else "")
                F.scaled(f"{fn} power", f_tree, lambda cc, txt=txt: f"{output.name} = {_fmt(cc)}·{txt}",
                         0.5 + _frac_penalty(pp) + sum(_frac_penalty(v) for v in powers.values()))
        if output.angle is not None:
            yr = y * output.angle
            back = 1.0 / output.angle
            for fn, inv in (("sin", "asin"), ("tan", "atan")):
                g = np.sin(xr) if fn == "sin" else np.tan(np.clip(xr, -1.5707, 1.5707))
                h = np.sin(yr) if fn == "sin" else np.tan(np.clip(yr, -1.5707, 1.5707))
                okk = np.abs(g) > 1e-6
                if np.sum(okk) < 2:
                    continue
                c0 = float(np.sum(g[okk] * h[okk]) / np.sum(g[okk] ** 2))
                name = j.name
                ang = j.angle

                def model(t, Xs, name=name, fn=fn, inv=inv, ang=ang, back=back):
                    u = Xs[name] * ang
                    inner = t[0] * (np.sin(u) if fn == "sin" else np.tan(u))
                    return back * (np.arcsin(np.clip(inner, -1, 1)) if inv == "asin" else np.arctan(inner))

                def tree_fn(t, fn=fn, inv=inv, jj=j, back=back):
                    inner = _op("mul", _num(t[0]), _op(fn, _angle_tree(jj)))
                    core = _op(inv, inner)
                    return core if back == 1.0 else _op("mul", _num(back), core)
                F.nonlinear(f"{inv} of scaled {fn}", np.array([c0]), model, tree_fn,
                            lambda t, fn=fn, inv=inv, name=name: f"{output.name} = {inv}({_fmt(t[0])}·{fn}({name}))",
                            0.5)
    return F


def _rank_forms(F: _Fitter, check_X: dict[str, np.ndarray], loo_top: int = 8) -> list[_Form]:
    """Keep the forms that are valid on the domain; score them by
    leave-one-out scaled error (top few) with a complexity penalty."""
    n = F.n
    y = F.y
    kept: list[_Form] = []
    seen_trees: set[str] = set()
    for form in F.forms:
        key = repr(form.tree)
        if key in seen_trees:
            continue
        seen_trees.add(key)
        try:
            validate_predictor({"y": form.tree}, list(check_X), ["y"])
        except PredictorInvalid:
            continue
        chk = _evaluate(form.tree, check_X)
        obs = _evaluate(form.tree, F.X) if n else np.zeros(0)
        if chk is None or obs is None or np.max(np.abs(chk), initial=0) > 1e300:
            continue
        form.check = chk
        form.predict_obs = obs
        kept.append(form)
    if n == 0:
        for form in kept:
            form.score = -form.penalty - form.k
        return sorted(kept, key=lambda f: -f.score)

    def in_sample(form: _Form) -> float:
        e = np.minimum(np.abs(form.predict_obs - y) / F.sw, ERROR_CAP)
        return -0.5 * float(np.sum(e ** 2)) - 0.5 * form.k * math.log(max(n, 2)) - form.penalty

    kept.sort(key=lambda f: -in_sample(f))
    # leave-one-out on the leading forms (at most 16 held-out points)
    held = np.arange(n) if n <= 16 else np.unique(np.linspace(0, n - 1, 16).round().astype(int))
    for rank, form in enumerate(kept):
        e_full = np.minimum(np.abs(form.predict_obs - y) / F.sw, ERROR_CAP)
        if rank < loo_top and n >= form.k + 1:
            e = e_full.copy()
            for i in held:
                idx = np.delete(np.arange(n), i)
                pred_fn = form.refit(idx)
                if pred_fn is None:
                    e[i] = ERROR_CAP
                    continue
                try:
                    with np.errstate(all="ignore"):
                        p = pred_fn({k: v[i:i + 1] for k, v in F.X.items()})
                    p = float(np.asarray(p).ravel()[0])
                except (ValueError, TypeError, FloatingPointError, IndexError):
                    p = math.nan
                e[i] = min(abs(p - y[i]) / F.sw[i], ERROR_CAP) if math.isfinite(p) else ERROR_CAP
            form.loo = e
        else:
            form.loo = e_full * 1.5  # untested out of sample: a little worse than in sample
    # noise scale: if nothing fits within tolerance, temper the likelihoods
    best_ms = min((float(np.mean(f.loo ** 2)) for f in kept), default=1.0)
    s2 = max(1.0, best_ms)
    for form in kept:
        form.score = (-0.5 * float(np.sum(form.loo ** 2)) / s2
                      - 0.5 * form.k * math.log(max(n, 2)) - form.penalty)
    return sorted(kept, key=lambda f: (-f.score, f.k, f.text))


@dataclass
class _Group:
    """Forms that predict the same within tolerance over the domain."""

    lead: _Form
    weight: float


def _group_forms(forms: list[_Form], output: _Output) -> list[_Group]:
    if not forms:
        return []
    top = max(f.score for f in forms)
    groups: list[_Group] = []
    for f in forms:
        w = math.exp(max(f.score - top, -700.0))
        for g in groups:
            scale = output.scale(g.lead.check)
            if np.max(np.abs(f.check - g.lead.check) / scale) <= 0.5:
                g.weight += w
                break
        else:
            if len(groups) < 12:
                groups.append(_Group(f, w))
    total = sum(g.weight for g in groups)
    for g in groups:
        g.weight /= total
    groups.sort(key=lambda g: -g.weight)
    return groups


# ---------------------------------------------------------------------------
# The player
# ---------------------------------------------------------------------------

@dataclass
class _Hyp:
    statement: str
    confidence: float
    predictor: dict[str, Any]
    detail: dict[str, Any] = field(default_factory=dict)


#: An adaptive episode whose top confidence has not risen over this many
#: turns, after at least STALL_MIN_OBSERVATIONS observations, is given up:
#: the baseline submits below τ (a protocol break) rather than spend the
#: rest of the step budget on a form its library does not hold.
STALL_WINDOW = 12
STALL_MIN_OBSERVATIONS = 24


def _stalled(state: EpisodeState, top: float) -> bool:
    tops = [max(h.confidence for h in t.action.hypotheses) for t in state.turns
            if t.action is not None and t.action.hypotheses]
    if len(state.observations) < STALL_MIN_OBSERVATIONS or len(tops) <= STALL_WINDOW:
        return False
    recent = max(tops[-STALL_WINDOW:] + [top])
    return recent <= max(tops[:-STALL_WINDOW]) + 0.01


class BaselinePlayer(Player):
    """A classical scientist: least squares over a library of laws, held-out
    error for model choice, most-disagreement experiments, the τ rule."""

    name = "baseline"

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        with np.errstate(all="ignore"):  # odd data are handled, not reported by numpy
            return self.decide(state), Usage()

    # synchronous core (easy to test and to profile)
    def decide(self, state: EpisodeState) -> Action:
        self._cap: Optional[float] = None  # an upper bound on the top confidence, if any
        task = state.task
        inputs = _parse_inputs(task)
        outputs = _parse_outputs(task)
        sampler = _Sampler(inputs)
        check_X = sampler.check_sample()
        X, Y = self._data(state, inputs, outputs)
        if state.setting == "identification" and task.get("candidates"):
            hyps = self._identify(task, inputs, outputs, X, Y, check_X)
        else:
            hyps = self._discover(inputs, outputs, X, Y, check_X, state)
        hyps = _ensure_two(hyps, outputs, Y)
        if self._cap is not None:
            _temper(hyps, cap=max(self._cap, 1.0 / len(hyps)))
        top = max(range(len(hyps)), key=lambda i: (hyps[i].confidence, -i))
        tau = float(state.threshold if state.threshold is not None else task.get("threshold", 0.9))
        submit = state.must_submit or state.protocol != "adaptive" or hyps[top].confidence >= tau
        stalled = not submit and _stalled(state, hyps[top].confidence)
        submit = submit or stalled
        hyp_records = [Hypothesis(statement=h.statement, confidence=h.confidence, predictor=h.predictor)
                       for h in hyps]
        if submit:
            expl, appl = self._texts(state, hyps[top], inputs, outputs, X, Y)
            return Action(hypotheses=hyp_records,
                          submission=Submission(selected=top, predictor=hyps[top].predictor,
                                                explanation=expl, applicability=appl),
                          notes=f"submitted hypothesis {top + 1} at confidence {hyps[top].confidence:.3f}"
                          + ("; more experiments stopped raising the confidence, so this submission is "
                             "below the threshold (a protocol break)" if stalled else ""))
        point, why = self._choose_point(state, inputs, outputs, hyps, sampler, X)
        preds = []
        for h in hyps:
            row = {}
            for o in outputs:
                v = _evaluate(h.predictor[o.name], {k: np.array([val]) for k, val in point.items()})
                row[o.name] = float(v[0]) if v is not None and math.isfinite(float(v[0])) else 0.0
            preds.append(row)
        return Action(hypotheses=hyp_records,
                      experiment=Experiment(inputs=point, outputs=[o.name for o in outputs], predictions=preds),
                      notes=why)

    # -- data ----------------------------------------------------------------------------
    @staticmethod
    def _data(state: EpisodeState, inputs: list[_Input], outputs: list[_Output]):
        rows = []
        for ob in state.observations:
            try:
                xs = [float(ob.inputs[i.name]) for i in inputs]
            except (KeyError, TypeError, ValueError):
                continue
            if not all(math.isfinite(v) for v in xs):
                continue
            rows.append((xs, ob.outputs))
        X = {i.name: np.array([r[0][j] for r in rows], dtype=float) for j, i in enumerate(inputs)}
        Y = {}
        for o in outputs:
            vals = []
            for _, outs in rows:
                try:
                    v = float(outs.get(o.name, math.nan))
                except (TypeError, ValueError):
                    v = math.nan
                vals.append(v)
            Y[o.name] = np.array(vals, dtype=float)
        return X, Y

    # -- identification ------------------------------------------------------------------
    def _identify(self, task, inputs, outputs, X, Y, check_X) -> list[_Hyp]:
        cands = task.get("candidates") or {}
        names = [i.name for i in inputs]

        def member(s: float) -> Optional[dict[str, Any]]:
            pred = {}
            for o in outputs:
                c = cands.get(o.name)
                if not c or "tree" not in c:
                    return None
                pred[o.name] = _substitute(c["tree"], "s", s)
            try:
                pred = validate_predictor(pred, names, [o.name for o in outputs])
            except PredictorInvalid:
                return None
            return pred

        def loglik(pred) -> float:
            total = 0.0
            for o in outputs:
                y = Y[o.name]
                ok = np.isfinite(y)
                if not np.any(ok):
                    continue
                p = _evaluate(pred[o.name], {k: v[ok] for k, v in X.items()})
                if p is None:
                    return -math.inf
                e = np.minimum(np.abs(p - y[ok]) / o.scale(y[ok]), ERROR_CAP)
                total += -0.5 * float(np.sum(e ** 2))
            return total

        def checks(pred) -> Optional[dict[str, np.ndarray]]:
            out = {}
            for o in outputs:
                v = _evaluate(pred[o.name], check_X)
                if v is None:
                    return None
                out[o.name] = v
            return out

        members: list[tuple[float, dict, float]] = []  # (s, predictor, log prior)
        for s, prior in ((0.0, TEXTBOOK_PRIOR), (1.0, 1.0 - TEXTBOOK_PRIOR)):
            p = member(s)
            if p is not None:
                members.append((s, p, math.log(prior)))
        n = len(next(iter(Y.values()))) if Y else 0
        if task.get("interpolate") and n >= 2:
            s_hat = self._fit_s(cands, outputs, X, Y)
            if s_hat is not None and 1e-3 < s_hat < 1 - 1e-3:
                p = member(round(s_hat, 6))
                if p is not None:
                    chk = checks(p)
                    distinct = chk is not None
                    for _, q, _ in members:
                        cq = checks(q)
                        if chk is not None and cq is not None and all(
                                np.max(np.abs(chk[o.name] - cq[o.name]) / o.scale(cq[o.name])) <= 0.5
                                for o in outputs):
                            distinct = False
                    if distinct:
                        members.append((round(s_hat, 6), p, math.log(0.2) - 0.5 * math.log(n)))
        if not members:
            return []
        scores = [lp + loglik(p) for _, p, lp in members]
        conf = _softmax(scores)
        hyps = []
        for (s, p, _), c, sc in zip(members, conf, scores):
            label = ("the textbook law (s = 0)" if s == 0 else "the alternative law (s = 1)" if s == 1
                     else f"a blend with s = {s:.4g}")
            hyps.append(_Hyp(f"The data follow {label} of the candidate family.", c, p, {"s": s}))
        return hyps

    @staticmethod
    def _fit_s(cands, outputs, X, Y) -> Optional[float]:
        """Least-squares s for G = (1−s)g + s·g′ (linear in s), clipped to [0, 1]."""
        num = den = 0.0
        for o in outputs:
            tree = cands.get(o.name, {}).get("tree")
            y = Y[o.name]
            ok = np.isfinite(y)
            if tree is None or not np.any(ok):
                continue
            Xo = {k: v[ok] for k, v in X.items()}
            g0 = _evaluate(_substitute(tree, "s", 0.0), Xo)
            g1 = _evaluate(_substitute(tree, "s", 1.0), Xo)
            if g0 is None or g1 is None:
                return None
            w = 1.0 / o.scale(y[ok]) ** 2
            d = g1 - g0
            num += float(np.sum(w * (y[ok] - g0) * d))
            den += float(np.sum(w * d * d))
        if den <= 0 or not math.isfinite(num / den):
            return None
        return float(min(max(num / den, 0.0), 1.0))

    # -- discovery ------------------------------------------------------------------------
    def _discover(self, inputs, outputs, X, Y, check_X, state) -> list[_Hyp]:
        task = state.task
        context = " ".join([str(task.get("background") or "")] + [str(c) for c in task.get("conditions") or []]
                           + [str(s.get("description") or "") for s in task.get("inputs", []) + task.get("outputs", [])])
        per_output: list[list[_Group]] = []
        n_total = 0
        for o in outputs:
            y = Y[o.name]
            ok = np.isfinite(y)
            Xo = {k: v[ok] for k, v in X.items()}
            yo = y[ok]
            n_total = max(n_total, len(yo))
            try:
                fitter = (_fit_library(inputs, o, Xo, yo, context) if len(yo)
                          else self._prior_fitter(inputs, o, context))
                forms = _rank_forms(fitter, check_X)
            except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError):
                forms = []
            if not forms:
                forms = _rank_forms(self._prior_fitter(inputs, o, context), check_X)
            per_output.append(_group_forms(forms, o))
        # joint hypotheses: combinations of each output's leading groups
        width = 3 if len(outputs) <= 3 else 2
        combos = []
        lists = [g[:width] for g in per_output]
        if len(outputs) <= 4:
            for combo in itertools.product(*[range(len(g)) for g in lists]):
                combos.append(combo)
        else:
            combos.append(tuple(0 for _ in lists))
            for oi, g in enumerate(lists):
                for gi in range(1, len(g)):
                    c = [0] * len(lists)
                    c[oi] = gi
                    combos.append(tuple(c))
        scored = []
        for combo in combos:
            w = math.prod(lists[oi][gi].weight for oi, gi in enumerate(combo))
            scored.append((w, combo))
        scored.sort(key=lambda t: (-t[0], t[1]))
        scored = scored[:MAX_HYPOTHESES]
        total = sum(w for w, _ in scored) or 1.0
        n_obs = len(state.observations)
        hyps = []
        for w, combo in scored:
            forms = [lists[oi][gi].lead for oi, gi in enumerate(combo)]
            statement = "; ".join(f"{f.text} ({f.kind})" for f in forms)
            pred = {o.name: f.tree for o, f in zip(outputs, forms)}
            hyps.append(_Hyp(statement, w / total, pred, {"forms": forms, "n": n_obs}))
        # no form in the library fits within tolerance: the best of a bad lot
        # is not to be trusted, whatever the relative likelihoods say
        misfit = max((float(np.mean(g[0].lead.loo)) for g in per_output if g and len(g[0].lead.loo)),
                     default=0.0)
        caps = []
        if misfit > 1.0:
            caps.append(0.5)
        # exploration phase: too few observations to trust any fit
        if state.protocol == "adaptive" and n_obs < _initial_design_size(len(inputs)):
            caps.append(min(0.75, float(state.threshold) - 0.05))
        self._cap = min(caps) if caps else None
        return hyps

    @staticmethod
    def _prior_fitter(inputs, output, context: str = "") -> _Fitter:
        """No data: the dimensional-analysis guess with coefficient 1, and a
        plain linear guess as the alternative."""
        F = _Fitter(inputs, output, {i.name: np.zeros(0) for i in inputs}, np.zeros(0))
        pos_in = _pos_inputs(inputs)
        guess = _dimensional_guess(inputs, output, context)
        if guess is not None and any(v != 0 for v in guess.powers.values()):
            mono = _monomial(pos_in, {k: float(v) for k, v in guess.powers.items()})
            const = ("" if guess.constant is None else
                     f"{guess.constant}^{_frac_text(guess.constant_power)}·" if guess.constant_power != 1
                     else f"{guess.constant}·")
            F.add(_Form("dimensional analysis",
                        f"{output.name} = 1·{const}{_monomial_text(pos_in, guess.powers)} "
                        f"= {_fmt(guess.coefficient)}·{_monomial_text(pos_in, guess.powers)} in the declared units",
                        _product([_num(guess.coefficient)] + mono), 0, 0.0, lambda idx: None))
        elif pos_in:
            F.add(_Form("proportionality", f"{output.name} = " + "·".join(i.name for i in pos_in),
                        _product([_var(i.name) for i in pos_in]), 0, 0.5, lambda idx: None))
        if inputs:
            F.add(_Form("linear", f"{output.name} = " + " + ".join(i.name for i in inputs),
                        _op("add", *[_var(i.name) for i in inputs]) if len(inputs) > 1 else _var(inputs[0].name),
                        0, 1.0, lambda idx: None))
        F.add(_Form("constant", f"{output.name} = 1", 1.0, 0, 2.0, lambda idx: None))
        return F

    # -- experiments ------------------------------------------------------------------------
    def _choose_point(self, state, inputs, outputs, hyps, sampler, X) -> tuple[dict[str, float], str]:
        n_obs = len(state.observations)
        rng = np.random.default_rng(np.random.SeedSequence([int(state.seed) & 0xFFFFFFFF, n_obs, len(state.turns)]))
        rejected = []
        for t in state.turns:
            if t.response is not None and t.response.rejected and t.action is not None and t.action.experiment:
                rejected.append(t.action.experiment.inputs)
        d = len(inputs)
        if d == 0:
            return {}, "no inputs to vary"
        n_init = _initial_design_size(d)
        if state.setting == "discovery" and n_obs < n_init:
            # space-filling start: the next point of a seeded Sobol sequence
            U = sampler.sobol(64, int(state.seed) & 0xFFFFFFFF)
            order = list(range(n_obs + len(rejected), 64)) + list(range(0, n_obs + len(rejected)))
            for idx in order:
                pt = {inp.name: inp.tidy(float(inp.from_unit(U[idx:idx + 1, j])[0])) for j, inp in enumerate(inputs)}
                if not _near_any(pt, rejected, inputs) and not _near_any(pt, _obs_points(state), inputs):
                    return pt, "space-filling design point"
        U = rng.random((CANDIDATE_POINTS, d))
        C = sampler.from_unit(U)
        # tidy candidates so the prediction is made at the point actually proposed
        for inp in inputs:
            C[inp.name] = np.array([inp.tidy(v) for v in C[inp.name]])
        ranked = sorted(range(len(hyps)), key=lambda i: -hyps[i].confidence)
        a, b = ranked[0], ranked[1]
        score = np.zeros(CANDIDATE_POINTS)
        for o in outputs:
            pa = _evaluate(hyps[a].predictor[o.name], C)
            pb = _evaluate(hyps[b].predictor[o.name], C)
            if pa is None or pb is None:
                continue
            score += np.abs(pa - pb) / np.maximum(o.scale(pa), o.scale(pb))
        # distance to what is already known breaks ties and spreads points
        known = _obs_points(state) + rejected
        if known:
            Ucand = np.column_stack([inp.to_unit(C[inp.name]) for inp in inputs])
            Ukn = np.array([[inp.to_unit(np.array([float(p.get(inp.name, 0.0))]))[0] for inp in inputs]
                            for p in known])
            dist = np.min(np.linalg.norm(Ucand[:, None, :] - Ukn[None, :, :], axis=2), axis=1)
        else:
            dist = np.ones(CANDIDATE_POINTS)
        total = np.minimum(score, 50.0) + 0.5 * dist
        if rejected:
            total = np.where(dist < 0.02, -np.inf, total)
        best = int(np.argmax(total))
        pt = {inp.name: float(C[inp.name][best]) for inp in inputs}
        return pt, (f"hypotheses {a + 1} and {b + 1} differ here by {score[best]:.3g} tolerances")

    # -- texts ------------------------------------------------------------------------------------
    def _texts(self, state, hyp: _Hyp, inputs, outputs, X, Y) -> tuple[str, str]:
        n = len(state.observations)
        ranges = []
        for inp in inputs:
            v = X.get(inp.name)
            unit = f" {inp.unit}" if inp.unit and inp.unit != "1" else ""
            if v is not None and len(v):
                ranges.append(f"{inp.name} {_fmt(float(np.min(v)))}..{_fmt(float(np.max(v)))}{unit}")
        tested = ", ".join(ranges) if ranges else "no measured range"
        domain = ", ".join(inp.describe_range() for inp in inputs)
        if state.setting == "identification":
            s = hyp.detail.get("s", 0.0)
            if n == 0:
                expl = (f"No measurements were available, so the standard member of the given family "
                        f"(s = 0) is chosen on prior grounds.")
            else:
                expl = (f"Among the members of the given family, s = {s:.4g} reproduces the {n} "
                        f"measurements best (over {tested}); the other member misses them by more "
                        f"than the stated tolerance.")
            effects = _effect_summary(hyp.predictor, inputs, outputs)
            if effects:
                expl += " " + effects
        else:
            forms = hyp.detail.get("forms", [])
            parts = []
            for f in forms:
                loo = float(np.mean(f.loo)) if len(f.loo) else float("nan")
                if n == 0:
                    parts.append(f"{f.text}: a guess from the units alone with coefficient 1, "
                                 f"not checked against any measurement")
                else:
                    parts.append(f"{f.text}, chosen among the fitted forms ({f.kind}) by held-out error "
                                 f"(mean {loo:.3g} tolerances) over {n} measurements")
            expl = "; ".join(parts) + "."
            effects = _effect_summary(hyp.predictor, inputs, outputs)
            if effects:
                expl += " " + effects
        appl = (f"Fitted over {tested}; declared domain {domain}. Outside the measured ranges the "
                f"relation is an extrapolation, and it assumes the stated experimental conditions hold.")
        if n == 0:
            appl = f"Not tested against data; intended for {domain} under the stated conditions."
        return expl, appl


def _softmax(scores: list[float]) -> list[float]:
    top = max(scores)
    if not math.isfinite(top):
        return [1.0 / len(scores)] * len(scores)
    ws = [math.exp(max(s - top, -700.0)) if math.isfinite(s) else 0.0 for s in scores]
    total = sum(ws)
    return [w / total for w in ws]


def _temper(hyps: list[_Hyp], cap: float) -> None:
    """Shrink confidences toward uniform until the top one is at most `cap`."""
    k = len(hyps)
    top = max(h.confidence for h in hyps)
    if k < 2 or top <= cap:
        return
    # (1 − a)·top + a/k = cap
    a = (top - cap) / (top - 1.0 / k) if top > 1.0 / k else 1.0
    for h in hyps:
        h.confidence = (1 - a) * h.confidence + a / k


def _initial_design_size(d: int) -> int:
    return max(4, min(2 * d + 2, 8))


def _obs_points(state) -> list[dict[str, float]]:
    return [dict(ob.inputs) for ob in state.observations]


def _near_any(pt: dict, others: list[dict], inputs: list[_Input]) -> bool:
    for q in others:
        if all(abs(float(inp.to_unit(np.array([pt[inp.name]]))[0])
                   - float(inp.to_unit(np.array([float(q.get(inp.name, math.nan))]))[0])) < 1e-3
               for inp in inputs):
            return True
    return False


def _ensure_two(hyps: list[_Hyp], outputs: list[_Output], Y: dict) -> list[_Hyp]:
    """At least two hypotheses with confidences that sum to 1 (the protocol
    asks for two); a constant law is the fallback rival."""
    hyps = [h for h in hyps if math.isfinite(h.confidence)]
    while len(hyps) < 2:
        pred = {}
        for o in outputs:
            y = Y.get(o.name, np.zeros(0))
            y = y[np.isfinite(y)] if len(y) else y
            c = float(np.mean(y)) if len(y) else float(len(hyps) + 1)
            if any(_is_num(h.predictor.get(o.name)) and h.predictor.get(o.name) == c for h in hyps):
                c = c + 1.0
            pred[o.name] = c
        hyps.append(_Hyp("The outputs do not change with the inputs (a constant).",
                         0.0 if hyps else 1.0, pred))
    total = sum(max(h.confidence, 0.0) for h in hyps)
    for h in hyps:
        h.confidence = max(h.confidence, 0.0) / total if total > 0 else 1.0 / len(hyps)
    # exact sum of 1 after rounding noise: put the residue on the largest
    resid = 1.0 - sum(h.confidence for h in hyps)
    i = max(range(len(hyps)), key=lambda j: hyps[j].confidence)
    hyps[i].confidence = max(hyps[i].confidence + resid, 0.0)
    return hyps


def _effect_summary(predictor: dict, inputs: list[_Input], outputs: list[_Output]) -> str:
    """What doubling each input does to each output, at the middle of the domain."""
    if not inputs:
        return ""
    base = {}
    for inp in inputs:
        mid = float(inp.from_unit(np.array([0.5]))[0])
        base[inp.name] = np.array([mid])
    phrases = []
    for o in outputs:
        y0 = _evaluate(predictor.get(o.name), base)
        if y0 is None or y0[0] == 0:
            continue
        for inp in inputs:
            if inp.kind in ("set", "integer"):
                continue
            mid = float(base[inp.name][0])
            hi = inp.hi
            new = mid * 1.5 if mid * 1.5 <= hi and mid > 0 else (mid + hi) / 2
            if new == mid:
                continue
            X2 = dict(base)
            X2[inp.name] = np.array([new])
            y1 = _evaluate(predictor.get(o.name), X2)
            if y1 is None:
                continue
            ratio = float(y1[0] / y0[0])
            if abs(ratio - 1) < 1e-3:
                phrases.append(f"{o.name} does not depend on {inp.name}")
            else:
                phrases.append(f"raising {inp.name} from {_fmt(mid)} to {_fmt(new)} multiplies {o.name} by {ratio:.3g}")
    if not phrases:
        return ""
    return "Controlled comparison at mid-domain: " + "; ".join(phrases) + "."
