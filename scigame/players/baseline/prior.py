"""No data: the law the units alone suggest.

The product of powers of the positive inputs, times at most one universal
constant (preferably one the task's text hints at), with exactly the
output's dimension, coefficient 1 (the constant's value and the unit
factors folded in); a proportionality and a sum as the alternatives.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Optional

import numpy as np

from .dims import CONSTANTS, constant_vector
from .fitting import Law
from .task import Input, Output
from .trees import op, power, product, tree_text, var

_EXPONENTS = (-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4)
#: Words in a task's text that make a constant a plausible ingredient.
_CUES = {
    "G": ("gravitation", "attract", "bodies", "planet", "orbit"),
    "g": ("earth", "gravity", "pendulum", "swing", "fall", "weight", "height", "hangs"),
    "c": ("speed of light", "relativ", "electromagnetic"),
    "R": ("gas", "molar", "mol ", "reaction", "solution"),
    "k_B": ("molecule", "thermal", "boltzmann"),
    "sigma": ("radiat", "emit", "black", "glow"),
    "h": ("photon", "quantum", "frequency"),
    "e": ("charge", "electron", "ion"),
}


def _array_key(a: np.ndarray) -> tuple:
    return a.dtype.str, a.shape, a.tobytes()


@functools.lru_cache(maxsize=None)
def _grid(k: int) -> np.ndarray:
    """Every choice of k exponents from _EXPONENTS (10^k rows: 100 000 for five
    inputs, a tenth of a second to build), made once per k and read-only."""
    grid = np.array(list(itertools.product(_EXPONENTS, repeat=k)), dtype=float)
    grid.flags.writeable = False
    return grid


#: _guess's answers by the values it reads (the inputs' and the output's
#: dimensions to the bit, and which constants the text cues): the search
#: falls back on the prior at every turn of an episode whose readings no law
#: fits, with the same task each time, and one guess over 10^5 exponent
#: choices costs about as much as a small search.
_GUESSES: dict[tuple, Optional[tuple]] = {}


def _guess(pos: list[Input], output: Output, context: str):
    cued = frozenset(sym for sym, _, _ in CONSTANTS if any(w in context for w in _CUES.get(sym, ())))
    key = (tuple(_array_key(i.dim) for i in pos), _array_key(output.dim), cued)
    if key not in _GUESSES:
        if len(_GUESSES) >= 1024:
            _GUESSES.clear()
        _GUESSES[key] = _guess_now(pos, output, cued)
    best = _GUESSES[key]
    return None if best is None else (best[0], best[1].copy(), *best[2:])


def _guess_now(pos: list[Input], output: Output, cued: frozenset[str]):
    D = np.column_stack([i.dim for i in pos])
    grid = _grid(len(pos))
    dims = grid @ D.T
    best = None
    options = [(None, 1.0, np.zeros(len(output.dim)), 0.0)]
    for sym, value, dim in CONSTANTS:
        for cp in (1.0, -1.0, 0.5, -0.5):
            options.append((sym, value, constant_vector(dim) * cp, cp))
    for sym, value, cdim, cp in options:
        ok = np.flatnonzero(np.abs(dims + cdim - output.dim).sum(axis=1) < 1e-9)
        if len(ok) == 0:
            continue
        cue = sym in cued
        g = grid[ok]
        cost = (0.3 * np.abs(g).sum(axis=1) + 0.5 * (g % 1 != 0).sum(axis=1) + 1.0 * (g == 0).sum(axis=1)
                + 0.01 * (g ** 2).sum(axis=1) + (0 if sym is None else 2.0 + abs(cp) % 1 - (1.5 if cue else 0.0)))
        j = int(np.argmin(cost))
        if best is None or cost[j] < best[0] - 1e-12:
            best = (float(cost[j]), g[j], sym, value, cp)
    return best


def prior_laws(inputs: list[Input], output: Output, context: str = "") -> list[Law]:
    """The units-only guess and two plain alternatives, none fitted."""
    pos = [i for i in inputs if i.positive and i.angle is None and i.dim is not None]
    laws = []
    best = _guess(pos, output, context.lower()) if pos and output.dim is not None and len(pos) <= 5 else None
    if best is not None and np.any(best[1] != 0):
        _, p, sym, value, cp = best
        coef = (value ** cp if sym else 1.0) / output.si_factor
        for e, i in zip(p, pos):
            coef *= i.si_factor ** e
        powers = [Fraction(e).limit_denominator(2) for e in p]
        mono = [power(var(i.name), float(e)) for i, e in zip(pos, powers) if e]
        named = product(([power(var(sym), float(Fraction(cp).limit_denominator(2)))] if sym else []) + mono)
        tree = product([float(coef)] + mono)
        laws.append(Law("dimensional analysis", f"{output.name} = {tree_text(named)} = {tree_text(tree)} "
                        "in the declared units", tree, 0, 0.0, lambda idx: None))
    elif pos:
        laws.append(Law("proportionality", f"{output.name} = " + "·".join(i.name for i in pos),
                        product([var(i.name) for i in pos]), 0, 0.5, lambda idx: None))
    if inputs:
        tree = op("add", *[var(i.name) for i in inputs]) if len(inputs) > 1 else var(inputs[0].name)
        laws.append(Law("linear", f"{output.name} = " + " + ".join(i.name for i in inputs), tree, 0, 1.0,
                        lambda idx: None))
    laws.append(Law("constant", f"{output.name} = 1", 1.0, 0, 2.0, lambda idx: None))
    return laws
