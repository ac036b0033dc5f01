"""The task as the baseline reads it: inputs and outputs from the public
view (units, domains, tolerances, and the SI dimension vector and factor
the compiler computed), and points of the domain."""

from __future__ import annotations

import functools
import itertools
import math
import re
from tokenize import TokenError
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

#: Points of the fixed domain sample used to check predictors and compare hypotheses.
CHECK_POINTS = 192
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53)


def _dimension(spec: dict) -> Optional[np.ndarray]:
    """The public view's dimension vector (None when the task has none)."""
    dim = spec.get("dimension")
    if not isinstance(dim, dict):
        return None
    try:
        return np.array([float(dim[k]) for k in sorted(dim)], dtype=float)
    except (TypeError, ValueError):
        return None


@dataclass
class Input:
    name: str
    unit: str
    kind: str
    lo: float
    hi: float
    values: list[float]
    dim: Optional[np.ndarray] = None  # SI exponents, in the order of sorted base names
    si_factor: float = 1.0
    is_angle: bool = False

    @property
    def positive(self) -> bool:
        return (min(self.values) > 0) if self.kind == "set" and self.values else self.lo > 0

    @property
    def angle(self) -> Optional[float]:
        """Radians per declared unit if this input is an angle."""
        return self.si_factor if self.is_angle else None

    @property
    def varies(self) -> bool:
        return (len(set(self.values)) > 1) if self.kind == "set" else self.hi > self.lo

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
        lo, hi = (min(self.values), max(self.values)) if self.kind == "set" and self.values else (self.lo, self.hi)
        if self.kind == "log" and lo > 0:
            return np.log(np.maximum(x, 1e-300) / lo) / max(math.log(hi / lo), 1e-12)
        return (x - lo) / max(hi - lo, 1e-12)

    def tidy(self, x: float) -> float:
        """A value a person would dial in: 4 significant digits, inside the domain."""
        if self.kind == "set" and self.values:
            return float(min(self.values, key=lambda v: abs(v - x)))
        if self.kind == "integer":
            return float(min(max(round(x), math.ceil(self.lo)), math.floor(self.hi)))
        return float(min(max(float(f"{x:.4g}"), self.lo), self.hi))

    def describe_range(self) -> str:
        unit = f" {self.unit}" if self.unit and self.unit != "1" else ""
        if self.kind == "set":
            return f"{self.name} in {{{', '.join(fmt(v) for v in self.values)}}}{unit}"
        return f"{self.name} {fmt(self.lo)}..{fmt(self.hi)}{unit}"


@dataclass
class Output:
    name: str
    unit: str
    tol_abs: float
    tol_rel: float
    dim: Optional[np.ndarray] = None
    si_factor: float = 1.0
    is_angle: bool = False
    noise_rel: float = 0.0  # the task's measurement noise: sd = noise_abs + noise_rel·|y|
    noise_abs: float = 0.0
    resolution: float = 0.0  # readings are rounded to this step (0: not rounded)

    @property
    def angle(self) -> Optional[float]:
        return self.si_factor if self.is_angle else None

    @property
    def noisy(self) -> bool:
        return self.noise_rel > 0 or self.noise_abs > 0

    def scale(self, y: np.ndarray) -> np.ndarray:
        """The error scale at y, by which fits weigh residuals: the tolerance
        a + λ|y|, widened by NOISE_SDS noise standard deviations in
        quadrature where observations are noisy (never zero)."""
        y = np.abs(np.asarray(y, dtype=float))
        s = self.tol_abs + self.tol_rel * y
        if self.noisy:
            s = np.hypot(s, NOISE_SDS * (self.noise_abs + self.noise_rel * y))
        return np.maximum(s, 1e-150)


#: How many noise standard deviations a residual may be before it counts
#: against a law: the 95% band of a gaussian reading.
NOISE_SDS = 2.0


def fmt(x: float) -> str:
    return f"{x:.4g}"


def parse_inputs(task: dict) -> list[Input]:
    out = []
    for spec in task.get("inputs", []):
        dom = spec.get("domain") or {}
        values = [float(v) for v in (dom.get("values") or [])]
        lo, hi = dom.get("lo"), dom.get("hi")
        lo = float(lo) if lo is not None else (min(values) if values else 0.0)
        hi = float(hi) if hi is not None else (max(values) if values else 1.0)
        out.append(Input(str(spec["name"]), str(spec.get("unit") or ""), str(dom.get("kind") or "range"),
                         lo, hi, values, _dimension(spec), float(spec.get("si_factor") or 1.0),
                         bool(spec.get("angle"))))
    return out


def parse_outputs(task: dict) -> list[Output]:
    out = []
    for spec in task.get("outputs", []):
        tol = spec.get("tolerance") or {}
        a, r = float(tol.get("abs") or 0.0), float(tol.get("rel") or 0.0)
        if a <= 0 and r <= 0:
            r = 0.01
        noise = spec.get("noise") or {}
        out.append(Output(str(spec["name"]), str(spec.get("unit") or ""), a, r, _dimension(spec),
                          float(spec.get("si_factor") or 1.0), bool(spec.get("angle")),
                          float(noise.get("rel") or 0.0), float(noise.get("abs") or 0.0),
                          float(spec.get("resolution") or 0.0)))
    return out


#: What a readable constraint may contain: names, numbers, arithmetic,
#: calls and comparisons; and no attribute access (a dot next to a name).
_ARITHMETIC = re.compile(r"[\w\s.+\-*/^(),<>=!]+")
_ATTRIBUTE = re.compile(r"[A-Za-z_)]\s*\.|\.\s*[A-Za-z_(]")


@functools.lru_cache(maxsize=256)
def _relation(text: str, names: tuple[str, ...]) -> Optional[Callable[..., np.ndarray]]:
    """A constraint's text (`d_o > 1.5 * f_lens`) as a numpy test of the
    inputs, or None when it is not a comparison of the inputs alone (it
    names a hidden constant, or carries units: the player must learn that
    region from the oracle's refusals)."""
    import sympy
    from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

    if not _ARITHMETIC.fullmatch(text) or "__" in text or _ATTRIBUTE.search(text):
        return None  # units, or anything but arithmetic on names (sympy's parser evaluates what it reads)
    symbols = {n: sympy.Symbol(n) for n in names}
    try:
        rel = parse_expr(text, local_dict=symbols, transformations=standard_transformations + (convert_xor,))
    except (SyntaxError, TypeError, ValueError, AttributeError, sympy.SympifyError, TokenError):
        return None
    if not isinstance(rel, sympy.core.relational.Relational) or not rel.free_symbols <= set(symbols.values()):
        return None
    return sympy.lambdify([symbols[n] for n in names], rel, "numpy")


def constraint_test(task: dict, inputs: list[Input]) -> Optional[Callable[[dict], np.ndarray]]:
    """The task's stated constraints as one test of points (True where every
    readable one holds), or None when none can be read. The constraints'
    texts are part of the public task; any player may read them."""
    names = tuple(i.name for i in inputs)
    tests = [t for c in task.get("constraints") or [] if (t := _relation(str(c.get("text") or ""), names))]
    if not tests:
        return None

    def allowed(X: dict) -> np.ndarray:
        n = len(next(iter(X.values()))) if X else 0
        ok = np.ones(n, bool)
        with np.errstate(all="ignore"):
            for t in tests:
                ok &= np.broadcast_to(np.asarray(t(*[np.asarray(X[k], float) for k in names]), bool), (n,))
        return ok
    return allowed


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


class Sampler:
    """Domain points: a fixed check sample (corners plus a shifted Halton
    set) and seeded space-filling sequences."""

    def __init__(self, inputs: list[Input], allowed: Optional[Callable[[dict], np.ndarray]] = None):
        self.inputs, self.allowed = inputs, allowed

    def from_unit(self, U: np.ndarray) -> dict[str, np.ndarray]:
        return {inp.name: inp.from_unit(U[:, j]) for j, inp in enumerate(self.inputs)}

    def halton(self, n: int, seed: int) -> np.ndarray:
        """n space-filling points in [0, 1)^d with a seeded random shift."""
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
        U = np.vstack([corners, np.full((1, d), 0.5), self.halton(CHECK_POINTS, 20240917)])
        X = self.from_unit(U)
        for inp in self.inputs:  # set domains: every listed value at least once
            if inp.kind == "set" and inp.values:
                X[inp.name][: len(inp.values)] = np.asarray(inp.values[: len(X[inp.name])], float)
        if self.allowed is not None:  # hypotheses are compared where experiments can be made
            ok = self.allowed(X)
            if np.sum(ok) >= 16:
                X = {k: v[ok] for k, v in X.items()}
        return X
