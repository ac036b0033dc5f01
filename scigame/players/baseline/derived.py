"""Derived variables: laws that depend on two inputs of the same kind only
through their difference or their sum (translational symmetry, as AI
Feynman tests for).

Two inputs can be subtracted or added only when they are quantities of
the same kind: the same SI dimension vector and the same unit (two
angles, two temperatures, two coordinates). For such a pair (a, b) the
search runs again on a reduced problem in which

* a difference replaces the pair: b − a (or a − b) when the domains keep
  it of one sign, so that it takes any power; (b − a)² when its sign
  changes (laws even in the difference: distances, gaussians); for two
  angles, the difference as a new angle (cos(θ₁ − θ₂));
* for several pairs of coordinates (x1, x2 and y1, y2: names that share a
  stem, one kind), the squared distance Σ(b − a)² as one variable, or
  all their differences at once;
* for two positive inputs, their sum and product replace them (the
  coordinates of a law symmetric in the pair: (u + v)/(1 + u·v/c²)).

Each pair is also tried alone, at most MAX_REDUCTIONS reduced problems in
all. The reduced problems' laws come back with the derived variables
written out in the predictor language, and pay for their choice in nats
(the log of the number of reduced problems, plus DERIVED_COST per
variable), so a law that needs no derived variable wins whenever it fits
as well. Every reduced problem gets the quick search (monomials); when
no simple law of the original problem fits (search.search), the
MAX_FULL whose monomials fit best also get the whole search, without
kinetics, saturations or derived variables of their own.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from .dims import analyse
from .fitting import Law
from .monomials import OutputData
from .task import Input
from .trees import op, substitute, tree_text, var

#: Description length of one derived variable beyond the choice of its pair (nats).
DERIVED_COST = 1.0
#: Same-kind pairs tried one at a time (those with a common name stem first).
MAX_PAIRS = 4
#: Reduced problems searched at most (each a quick search of its own).
MAX_REDUCTIONS = 4
#: Reduced problems given the whole search, those whose monomials fit best.
MAX_FULL = 2
#: Derived laws handed to the model choice at most.
KEEP = 30


@dataclass(frozen=True)
class Derived:
    """One derived variable: the input it adds, the inputs it replaces,
    its values from the original inputs, and its tree over them."""

    input: Input
    replaces: tuple[str, ...]
    values: Callable[[dict], np.ndarray]
    tree: Any
    text: str


def _stem(name: str) -> str:
    return re.sub(r"_?\d+$", "", name)


def _shared_stem(a: Input, b: Input) -> bool:
    return bool(_stem(a.name)) and _stem(a.name) == _stem(b.name)


def same_kind(a: Input, b: Input) -> bool:
    """Whether a and b may be added or subtracted: both vary, both angles in
    the same unit or both quantities with the same dimension and unit;
    two pure numbers only when their names share a stem (n1, n2): any
    two pure numbers have the same units, but rarely the same role."""
    if not (a.varies and b.varies) or a.kind == "set" or b.kind == "set":
        return False
    if a.is_angle or b.is_angle:
        return a.is_angle and b.is_angle and a.si_factor == b.si_factor
    if a.dim is None or b.dim is None or not np.any(a.dim) and not _shared_stem(a, b):
        return False
    return a.unit == b.unit and a.si_factor == b.si_factor and bool(np.allclose(a.dim, b.dim))


def pairs(inputs: list[Input]) -> list[tuple[Input, Input]]:
    """Same-kind pairs: first those whose names share a stem (x1, x2), then
    those measured over the same domain (two inputs in the same role),
    then the rest."""
    found = [(a, b) for a, b in itertools.combinations(inputs, 2) if same_kind(a, b)]
    found.sort(key=lambda p: (not _shared_stem(*p), (p[0].lo, p[0].hi) != (p[1].lo, p[1].hi)))
    return found


def coordinates(found: list[tuple[Input, Input]]) -> list[list[tuple[Input, Input]]]:
    """Groups of two or more disjoint stem-sharing pairs of one kind, not
    angles (x1 and x2, y1 and y2: the coordinates of two points)."""
    groups: dict[tuple, list] = {}
    for a, b in found:
        if _shared_stem(a, b) and not a.is_angle:
            groups.setdefault((a.unit, tuple(a.dim)), []).append((a, b))
    return [g for g in groups.values()
            if len(g) >= 2 and len({n for p in g for n in (p[0].name, p[1].name)}) == 2 * len(g)]


def _difference(a: Input, b: Input, X: dict) -> list[Derived]:
    """b − a as a new input: of one sign over the domains, squared when not
    (and positive at every observation), an angle for two angles."""
    if a.lo > b.hi or (a.lo >= b.hi and not a.is_angle):
        a, b = b, a  # b - a >= 0 over the domains when they do not overlap
    name = f"({b.name} - {a.name})"
    tree = op("sub", var(b.name), var(a.name))

    def diff(Xs: dict, a=a.name, b=b.name) -> np.ndarray:
        return np.asarray(Xs[b], float) - np.asarray(Xs[a], float)
    lo, hi = b.lo - a.hi, b.hi - a.lo
    if a.is_angle or lo > 0:
        new = replace(a, name=name, kind="range", lo=lo, hi=hi, values=[])
        return [Derived(new, (a.name, b.name), diff, tree, f"{name}")]
    with np.errstate(all="ignore"):
        sq = diff(X) ** 2 if X else np.zeros(0)
    if not len(sq) or not np.all(sq > 0):
        return []
    name2 = f"{name}^2"
    new = replace(a, name=name2, unit=f"({a.unit})^2", kind="range", lo=float(np.min(sq)),
                  hi=max(lo * lo, hi * hi), values=[], dim=None if a.dim is None else 2 * a.dim,
                  si_factor=a.si_factor ** 2)
    return [Derived(new, (a.name, b.name), lambda Xs, diff=diff: diff(Xs) ** 2, op("pow", tree, 2.0), name2)]


def _sum_product(a: Input, b: Input) -> list[Derived]:
    """a + b and a·b in place of a and b (both positive, not angles): the
    coordinates of a law symmetric in the pair, ((u + v)/(1 + u·v/c²))."""
    if a.is_angle or not (a.positive and b.positive):
        return []
    s_name, p_name = f"({a.name} + {b.name})", f"({a.name}·{b.name})"
    s = replace(a, name=s_name, kind="range", lo=a.lo + b.lo, hi=a.hi + b.hi, values=[])
    p = replace(a, name=p_name, unit=f"({a.unit})^2", kind="range", lo=a.lo * b.lo, hi=a.hi * b.hi, values=[],
                dim=None if a.dim is None else 2 * a.dim, si_factor=a.si_factor ** 2)

    def total(Xs, a=a.name, b=b.name):
        return np.asarray(Xs[a], float) + np.asarray(Xs[b], float)

    def prod(Xs, a=a.name, b=b.name):
        return np.asarray(Xs[a], float) * np.asarray(Xs[b], float)
    return [Derived(s, (a.name, b.name), total, op("add", var(a.name), var(b.name)), s_name),
            Derived(p, (), prod, op("mul", var(a.name), var(b.name)), p_name)]


def _squared_distance(group: list[tuple[Input, Input]], X: dict) -> list[Derived]:
    """Σ (b − a)² over the pairs of a group of coordinates: the squared
    distance between two points, as one new input."""
    a0 = group[0][0]
    terms = [op("pow", op("sub", var(b.name), var(a.name)), 2.0) for a, b in group]
    name = "(" + " + ".join(f"({b.name} - {a.name})^2" for a, b in group) + ")"

    def values(Xs: dict, group=tuple((a.name, b.name) for a, b in group)) -> np.ndarray:
        return sum(((np.asarray(Xs[b], float) - np.asarray(Xs[a], float)) ** 2 for a, b in group), 0.0)
    with np.errstate(all="ignore"):
        r2 = values(X) if X else np.zeros(0)
    if not len(r2) or not np.all(r2 > 0):
        return []
    hi = sum(max((b.hi - a.lo) ** 2, (b.lo - a.hi) ** 2) for a, b in group)
    new = replace(a0, name=name, unit=f"({a0.unit})^2", kind="range", lo=float(np.min(r2)), hi=hi, values=[],
                  dim=None if a0.dim is None else 2 * a0.dim, si_factor=a0.si_factor ** 2)
    return [Derived(new, tuple(n for a, b in group for n in (a.name, b.name)), values, op("add", *terms), name)]


def reductions(inputs: list[Input], X: dict) -> list[list[Derived]]:
    """The sets of derived variables to try, most likely first: for
    several stem-sharing pairs of one kind (coordinates), their squared
    distance, then their differences at once; then each pair alone: the
    difference of two angles (a phase difference), then for the others
    the difference, and the sum and product (of at most MAX_PAIRS pairs)."""
    found = pairs(inputs)
    out: list[list[Derived]] = []
    for group in coordinates(found):
        distance = _squared_distance(group, X)
        if distance:
            out.append(distance)
        together = [_difference(a, b, X) for a, b in group]
        if all(together):
            out.append([d[0] for d in together])
    found = found[:MAX_PAIRS]
    for a, b in sorted(found, key=lambda p: not p[0].is_angle):
        out.extend([d] for d in _difference(a, b, X))
        symmetric = _sum_product(a, b)
        if symmetric:
            out.append(symmetric)
    return out[:MAX_REDUCTIONS]


def reduce_inputs(inputs: list[Input], derived: list[Derived]) -> list[Input]:
    gone = {n for d in derived for n in d.replaces}
    return [i for i in inputs if i.name not in gone] + [d.input for d in derived]


def reduce_points(X: dict, derived: list[Derived]) -> dict:
    gone = {n for d in derived for n in d.replaces}
    out = {k: v for k, v in X.items() if k not in gone}
    with np.errstate(all="ignore"):
        out.update({d.input.name: d.values(X) for d in derived})
    return out


def lift(law: Law, derived: list[Derived], cost: float) -> Law:
    """A reduced problem's law over the original inputs."""
    tree = law.tree
    for d in derived:
        tree = substitute(tree, d.input.name, d.tree)

    def refit(idx, inner=law.refit):
        fn = inner(idx)
        return None if fn is None else (lambda X, fn=fn: fn(reduce_points(X, derived)))
    names = " and ".join(d.text for d in derived)
    noun = "a derived variable" if len(derived) == 1 else "derived variables"
    out = Law(f"{law.kind}; with {names} as {noun}", f"{law.text.partition(' = ')[0]} = {tree_text(tree)}", tree, law.k, law.complexity + cost, refit,
              law.fit_error, fit_max=law.fit_max)
    return out


def derived_laws(data: OutputData, search: Callable[..., list[Law]], quick: bool = False) -> list[Law]:
    """Laws of the reduced problems, over the original inputs, found by
    `search` (search.search, handed in: it runs this family). Every
    reduction gets the quick search (monomials); with `quick` False, the
    MAX_FULL whose monomials fit best also get the whole search, up to the
    first with a law within the tolerance."""
    options = reductions(data.inputs, data.X)
    if not options:
        return []
    choice = math.log(len(options))
    laws: list[Law] = []
    ranked = []
    for order, derived in enumerate(options):
        inputs = reduce_inputs(data.inputs, derived)
        reduced = OutputData(inputs, data.output, reduce_points(data.X, derived), data.y,
                             analyse(inputs, data.output))
        cost = choice + DERIVED_COST * len(derived)
        found = [lift(law, derived, cost) for law in search(reduced, quick=True, nested=True)]
        laws.extend(found)
        if any(law.fit_max <= 1.0 for law in found):
            return best(laws, data.n)
        ranked.append((min((law.fit_error for law in found), default=math.inf), order, reduced, derived, cost))
    for _, _, reduced, derived, cost in ([] if quick else sorted(ranked, key=lambda r: r[:2])[:MAX_FULL]):
        found = [lift(law, derived, cost) for law in search(reduced, nested=True)]
        laws.extend(found)
        if any(law.fit_max <= 1.0 for law in found):
            break
    return best(laws, data.n)


def best(laws: list[Law], n: int) -> list[Law]:
    """The KEEP laws with the best in-sample BIC (the model choice checks
    each law over the whole domain: a few hundred would cost more than
    the searches)."""
    def bic(law: Law) -> float:
        return 0.5 * law.fit_error + 0.5 * law.k * math.log(max(n, 2)) + law.complexity
    return sorted(laws, key=bic)[:KEEP]
