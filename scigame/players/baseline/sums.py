"""Sparse sums of terms: `T(y) = Σ cⱼ·Mⱼ`, Mⱼ monomials with the right
units (or carrying a hidden constant), each alone or times a sine or
cosine of an angle (`q·Ef + q·B·v·sin θ`), and 1; every pair and triple
of a small dictionary tried (the best partners of the best terms in a
large one); with coefficients tied by simple ratios where the data allow
(c₂ = −c₁, or all three equal in m·(v² + u² + w²))."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from .dims import Dimensions
from .fitting import Law, refine, scaled_errors, snap_decimals, wls
from .monomials import TRANSFORM_POWER, OutputData, Transform, angle_factors, monomial_text, monomial_tree, z_scale
from .trees import drop_zero_terms, op, product, tree_text

#: Most dictionary terms: monomials times angle features are added, simplest monomial first, up to it.
DICTIONARY_CAP = 400
#: Dictionaries up to this size have every pair of terms tried (beyond: the best partners of the best terms).
PAIRS_EXHAUSTIVE = 800
#: Every triple is tried while there are at most this many (beyond: the best third term of the best pairs).
TRIPLES_EXHAUSTIVE = 60000
#: Best pairs extended by a third term when not every triple is tried.
BEAM = 40
#: Subsets of each size (by screened residual) refitted exactly (the best one or two made into laws: _ranked).
SCREENED = 24
#: Angle features a monomial is multiplied by (sin θ, cos θ and their squares).
ANGLE_FEATURES = ("sin(1·{})^1", "cos(1·{})^1", "sin(1·{})^2", "cos(1·{})^2", "sin(2·{})^1", "cos(2·{})^1")


Monomial = tuple[tuple[str, float], ...]  # its inputs' nonzero exponents (integers and halves), by name


#: An input as the monomials see it: name, SI dimension (or None), positive.
_Sig = tuple[str, Optional[tuple[float, ...]], bool]


def _input_monomials(pos: tuple[_Sig, ...], target: Optional[tuple[float, ...]]) -> list[Monomial]:
    """Products of one to three inputs with small exponents (and the
    target's units; then also half powers of pairs); negative and
    fractional powers of positive inputs only."""
    out: list[Monomial] = []
    singles = (-3, -2, -1, -0.5, 0.5, 1, 2, 3)
    pairs = (-2, -1, 1, 2) if target is None else (-2, -1, -0.5, 0.5, 1, 2)  # √(I₁·I₂) with the units' filter
    supports = [(1, singles), (2, pairs)] + ([(3, (-2, -1, 1, 2))] if len(pos) <= 5 else [])
    goal = None if target is None else np.asarray(target)
    for size, exps in supports:
        grid = np.array(list(itertools.product(exps, repeat=size)), dtype=float)
        plain = (grid > 0) & (grid % 1 == 0)  # powers allowed of any input
        for combo in itertools.combinations(pos, size):
            ok = np.all(plain | np.array([c[2] for c in combo])[None, :], axis=1)
            if goal is not None:
                ok &= np.all(np.abs(grid @ np.array([c[1] for c in combo]) - goal) <= 1e-9, axis=1)
            out.extend(tuple((c[0], e) for c, e in zip(combo, row)) for row in grid[ok].tolist())
    return out


def _group_monomials(d: Dimensions, power: int, positive: frozenset) -> list[Monomial]:
    """The units' prefactor times one dimensionless group to a small power
    or two groups (Buckingham π): terms of more inputs than three, as the
    n₀·p·E·cos θ/(k·T) of n₀·(1 + p·E·cos θ/(k·T))."""
    base = [Fraction(power) * p for p in d.prefactor]
    groups = [[Fraction(x) for x in g] for g in d.groups[:6]]
    shifts = [[e * x for x in g] for g in groups for e in map(Fraction, (1, -1, 2, -2))]
    shifts += [[s1 * x + s2 * y for x, y in zip(g, h)] for g, h in itertools.combinations(groups, 2)
               for s1, s2 in itertools.product((1, -1), repeat=2)]
    out = [tuple((nm, b + s) for nm, b, s in zip(d.names, base, shift) if b + s != 0)
           for shift in [[Fraction(0)] * len(base)] + shifts]
    return [tuple((nm, float(e)) for nm, e in m) for m in out
            if all(abs(e) <= 3 and e.denominator <= 2 and (e > 0 and e.denominator == 1 or nm in positive)
                   for nm, e in m)]


@functools.lru_cache(maxsize=512)
def monomials(pos: tuple[_Sig, ...], target: Optional[tuple[float, ...]], dims: Optional[Dimensions],
              power: int) -> tuple[Monomial, ...]:
    """The dictionary's monomials, without repeats, simplest first (by the
    number of inputs, then the sum of |exponents|): with the target's units
    when `target` is given, from the inputs and from the units' groups."""
    monos = _input_monomials(pos, target)
    if target is not None and dims is not None and dims.determined:
        monos += _group_monomials(dims, power, frozenset(c[0] for c in pos if c[2]))
    unique = [m for m in dict.fromkeys(tuple(sorted(m)) for m in monos) if m]
    return tuple(sorted(unique, key=lambda m: (len(m), sum(abs(e) for _, e in m))))


def _fractions(mono: Monomial) -> list[Fraction]:
    return [Fraction(e).limit_denominator(2) for _, e in mono]


class Term:
    """One dictionary term: a monomial, alone or times an angle feature, and
    its values at the observed points (its text and tree built when asked)."""

    __slots__ = ("mono", "angle", "values", "_text")

    def __init__(self, mono: Monomial, angle: Any, values: np.ndarray):
        self.mono, self.angle, self.values, self._text = mono, angle, values, None

    @property
    def text(self) -> str:
        if self._text is None:
            text = monomial_text([nm for nm, _ in self.mono], _fractions(self.mono))
            if self.angle is not None:
                label = self.angle.label[:-2] if self.angle.label.endswith("^1") else self.angle.label
                text = label if not self.mono else f"{text}·{label}"
            self._text = text
        return self._text

    @property
    def tree(self) -> Any:
        trees = monomial_tree([nm for nm, _ in self.mono], _fractions(self.mono))
        trees += [self.angle.tree(0.0)] if self.angle is not None else []
        return product(trees) if trees else 1.0


def _values(X: dict, monos: tuple[Monomial, ...]) -> dict[Monomial, np.ndarray]:
    """Each monomial's values at the points, from each input's powers computed once."""
    powers: dict[tuple[str, float], np.ndarray] = {}
    out = {}
    with np.errstate(all="ignore"):
        for m in monos:
            for key in m:
                if key not in powers:
                    powers[key] = np.power(X[key[0]], key[1])
            v = powers[m[0]]
            for key in m[1:]:
                v = v * powers[key]
            out[m] = v
    return out


def dictionary(data: OutputData, tr: Transform, dimensional: bool = True) -> list[Term]:
    """Monomials for sparse sums (with the target's units when they are
    fixed and `dimensional`), the constant 1 and functions of angles for a
    dimensionless target, then monomials times sin, cos, sin² or cos² of
    an angle (simplest monomials first, up to DICTIONARY_CAP terms)."""
    pos = [i for i in data.inputs if i.angle is None and i.varies and i.lo >= 0]
    d = data.dims
    target = None
    if dimensional and d is not None and d.determined and tr.name in TRANSFORM_POWER \
            and all(i.dim is not None and i.dim.shape == data.output.dim.shape for i in pos):
        target = data.output.dim * TRANSFORM_POWER[tr.name]
    sig = tuple((i.name, None if i.dim is None else tuple(float(x) for x in i.dim), i.positive) for i in pos)
    monos = monomials(sig, None if target is None else tuple(float(x) for x in target), d,
                      TRANSFORM_POWER.get(tr.name, 1))
    values = _values(data.X, monos)
    out = [Term(m, None, values[m]) for m in monos]
    angles = angle_factors(data)[1:]
    if target is None or not np.any(target):
        out.append(Term((), None, np.ones(data.n)))
        out.extend(Term((), f, f.values(0.0, data.X)) for f in angles if f.label.endswith("^1"))
    wanted = {a.format(i.name) for i in data.inputs for a in ANGLE_FEATURES}
    products = [(f, f.values(0.0, data.X)) for f in angles if f.label in wanted]
    for m in monos:
        if len(out) + len(products) > DICTIONARY_CAP:
            break
        out.extend(Term(m, f, values[m] * v) for f, v in products)
    return [t for t in out if np.all(np.isfinite(t.values))]


def _best_pair(A: np.ndarray, z: np.ndarray, wz: np.ndarray, top: int = 12) -> Optional[list[int]]:
    """The best pair of columns: for each of the columns that fit best
    alone, the best partner over the whole dictionary (projected, so a
    pair whose terms nearly cancel is found too)."""
    sw = np.sqrt(wz)
    Aw, zw = A * sw[:, None], z * sw
    den = np.sum(Aw * Aw, axis=0)
    den[den == 0] = np.inf
    single = np.sum(zw * zw) - (Aw.T @ zw) ** 2 / den
    best, best_r = None, math.inf
    for i in np.argsort(single)[:top]:
        a = Aw[:, i]
        aa = float(a @ a)
        if not aa > 0:
            continue
        r = zw - a * (a @ zw) / aa
        B = Aw - np.outer(a, (a @ Aw) / aa)
        bb = np.sum(B * B, axis=0)
        bb[bb <= 1e-12 * np.maximum(den, 1e-300)] = np.inf
        gain = (B.T @ r) ** 2 / bb
        gain[i] = -1
        j = int(np.argmax(gain))
        rest = float(r @ r) - float(gain[j])
        if rest < best_r:
            best, best_r = [int(i), j], rest
    return best


def _unit_columns(A: np.ndarray, z: np.ndarray, wz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighted columns scaled to unit norm (a zero column stays zero) and the weighted target."""
    sw = np.sqrt(wz)
    Aw = A * sw[:, None]
    norms = np.sqrt(np.sum(Aw * Aw, axis=0))
    return Aw / np.where(norms > 0, norms, np.inf), z * sw


def _top(explained: np.ndarray) -> np.ndarray:
    """Indices of the SCREENED largest values, largest first."""
    if len(explained) > SCREENED:
        part = np.argpartition(-explained, SCREENED)[:SCREENED]
        return part[np.argsort(-explained[part])]
    return np.argsort(-explained)


def _screen_pairs(G: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Every pair i < j by the target's norm they leave unexplained
    (normal equations of unit columns: Gram entries G, projections b), best first."""
    with np.errstate(all="ignore"):
        det = 1.0 - G * G
        expl = (b[:, None] ** 2 + b[None, :] ** 2 - 2.0 * G * np.outer(b, b)) / det
    i, j = np.triu_indices(len(b), 1)
    e = expl[i, j]
    e[~(det[i, j] > 1e-9) | ~np.isfinite(e)] = -np.inf
    order = _top(e)
    return np.column_stack([i[order], j[order]])


def _screen_triples(U: np.ndarray, zw: np.ndarray, G: np.ndarray, b: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Every triple (3×3 normal equations solved in closed form) while
    there are at most TRIPLES_EXHAUSTIVE; else each of the BEAM best pairs
    with its best third terms. Best first."""
    D = len(b)
    if math.comb(D, 3) <= TRIPLES_EXHAUSTIVE:
        i, j, k = np.array(list(itertools.combinations(range(D), 3)), dtype=int).reshape(-1, 3).T
    else:
        i, j, k = _beam_triples(U, zw, pairs).T
    p, q, r, x, y, w = G[i, j], G[i, k], G[j, k], b[i], b[j], b[k]
    with np.errstate(all="ignore"):
        det = 1.0 + 2.0 * p * q * r - p * p - q * q - r * r
        expl = (x * x * (1 - r * r) + y * y * (1 - q * q) + w * w * (1 - p * p)
                + 2 * x * y * (q * r - p) + 2 * x * w * (p * r - q) + 2 * y * w * (p * q - r)) / det
    expl[~(det > 1e-9) | ~np.isfinite(expl)] = -np.inf
    order = _top(expl)
    return np.column_stack([i[order], j[order], k[order]])


def _beam_triples(U: np.ndarray, zw: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The three best third terms of each of the BEAM best pairs (the
    exact drop in residual from adding each column), as sorted triples."""
    out = []
    for pair in pairs[:BEAM]:
        Q, _ = np.linalg.qr(U[:, pair])
        B = U - Q @ (Q.T @ U)  # each column's part the pair cannot express
        resid = zw - Q @ (Q.T @ zw)
        norms = np.sum(B * B, axis=0)
        norms[norms <= 1e-12] = np.inf
        gain = (B.T @ resid) ** 2 / norms
        gain[pair] = -1
        out.extend(sorted([int(pair[0]), int(pair[1]), int(t)]) for t in np.argsort(-gain)[:3])
    return np.array(sorted(set(map(tuple, out))) or np.zeros((0, 3)), dtype=int).reshape(-1, 3)


def _residuals(U: np.ndarray, zw: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """The least-squares residual (Σ of squares) of zw on each row's columns
    of U, all at once (stacked QR); inf where the columns are dependent."""
    if not len(cands):
        return np.zeros(0)
    M = np.transpose(U[:, cands], (1, 0, 2))  # (subsets, points, terms)
    Q, R = np.linalg.qr(M)
    r = zw[None, :] - np.einsum("kns,ks->kn", Q, np.einsum("kns,n->ks", Q, zw))
    diag = np.abs(np.diagonal(R, axis1=1, axis2=2))
    out = np.sum(r * r, axis=1)
    out[~(np.min(diag, axis=1) > 1e-7) | ~np.isfinite(out)] = np.inf
    return out


def _term_cost(text: str) -> float:
    """Description length of one term beyond its coefficient (nats): its
    products and powers, half powers and angle functions more."""
    return (0.3 * text.count("·") + 0.3 * text.count("^") + 0.5 * text.count("/2")
            + 0.5 * (text.count("sin(") + text.count("cos(")))


def _ranked(cands: np.ndarray, chi2: np.ndarray, cost: Callable[[int], float], n: int,
            tightest: bool = True) -> list[list[int]]:
    """The best subset by residual plus twice the terms' length (a
    residual, in tolerance units, under a tenth of the tolerance per point
    counts as that) and, if `tightest` and another, the best by residual:
    a look-alike series of three terms that fits closest would only steer
    an adaptive design (m·c² + 0.1·m·v·c + 0.9·m·v³/c for m·c²/√(1 − v²/c²))."""
    ok = [(float(c), [int(i) for i in s]) for s, c in zip(cands, chi2) if math.isfinite(c)]
    if not ok:
        return []
    tight = min(ok, key=lambda t: t[0])[1]
    short = min(ok, key=lambda t: max(t[0], 0.1 * n) + 2.0 * sum(cost(i) for i in t[1]))[1]
    return [tight] if tight == short else [short, tight] if tightest else [short]


def subsets(A: np.ndarray, z: np.ndarray, wz: np.ndarray, cost: Callable[[int], float],
            max_terms: int = 3) -> list[list[int]]:
    """The best pairs and triples of columns (_ranked): screened by their
    residual from the normal equations (every pair of a dictionary up to
    PAIRS_EXHAUSTIVE, every triple up to TRIPLES_EXHAUSTIVE, else greedy),
    then refitted exactly and ranked (_ranked). No triples when a pair fits
    exactly: a third term could only fit the readings' rounding."""
    n, D = A.shape
    U, zw = _unit_columns(A, z, wz)
    if D > PAIRS_EXHAUSTIVE:
        best = _best_pair(A, z, wz)
        pairs = np.array([best] if best is not None else np.zeros((0, 2)), dtype=int).reshape(-1, 2)
        G = b = None
    else:
        G, b = U.T @ U, U.T @ zw
        pairs = _screen_pairs(G, b)
    chi2 = _residuals(U, zw, pairs)
    out = _ranked(pairs, chi2, cost, n)
    if max_terms >= 3 and n >= 6 and len(pairs) and not np.min(chi2) <= 0.1 * n:
        triples = _beam_triples(U, zw, pairs) if G is None else _screen_triples(U, zw, G, b, pairs)
        out += _ranked(triples, _residuals(U, zw, triples), cost, n, tightest=False)
    return out


def sums(data: OutputData, tr: Transform, max_terms: int = 3, dimensional: bool = True) -> list[Law]:
    """The best sums of two and of three dictionary terms (subsets), each
    also with its coefficients' ratios snapped to simple fractions (tied)."""
    z, sz = z_scale(data, tr)
    if not np.all(np.isfinite(z)) or data.n < 4:
        return []
    terms = dictionary(data, tr, dimensional)
    if len(terms) < 2:
        return []
    extra = 0.0 if dimensional or not (data.dims is not None and data.dims.determined) else 2.0
    wz = 1.0 / np.maximum(sz, 1e-300) ** 2
    A = np.column_stack([t.values for t in terms])
    out = []
    for chosen in subsets(A, z, wz, lambda i: _term_cost(terms[i].text), max_terms):
        if data.n < len(chosen) + 3:
            continue
        c = wls(A[:, chosen], z, wz)
        if c is None:
            continue
        picked = [terms[i] for i in chosen]
        for T in [np.eye(len(c))] + _ties(A[:, chosen], c, z, wz, data, tr):
            law = _sum_law(data, tr, picked, c, T, extra)
            if law is not None:
                out.append(law)
    return out


#: Ratios of two coefficients of a sum tried as exact (besides ±1).
_RATIOS = (2.0, 0.5, 3.0, 1.0 / 3.0, 4.0, 0.25, 1.5, 2.0 / 3.0)


def _near(r: float, rel: float = 0.05) -> list[float]:
    """The simple ratios (±_RATIOS) within `rel` of r."""
    return [v for v in _RATIOS for v in (v, -v) if abs(v - r) <= rel * abs(v)]


def tie_maps(c: np.ndarray) -> list[np.ndarray]:
    """Maps T (coefficients = T·θ) that tie one coefficient to another: by
    the simple ratio of _RATIOS it is within 5% of, and by ±1 always (a
    coefficient the data barely determine may be far from its tie)."""
    out = []
    for i, j in itertools.combinations(range(len(c)), 2):
        r = c[j] / c[i] if c[i] else math.inf
        for nice in sorted({1.0, -1.0, *_near(r)}, key=lambda v: abs(v - r)):
            T = np.delete(np.eye(len(c)), j, axis=1)
            T[j, i if i < j else i - 1] = nice
            out.append(T)
    return out


def full_tie(c: np.ndarray) -> list[np.ndarray]:
    """For three or more terms, the map tying every coefficient to the
    largest by the simple ratio (±1 or ±_RATIOS) nearest its own, when
    each is within 10% of one: m·(v² + u² + w²), I₁ + I₂ + 2·√(I₁I₂)·cos δ."""
    if len(c) < 3 or not np.all(np.isfinite(c)):
        return []
    i0 = int(np.argmax(np.abs(c)))
    T = np.zeros((len(c), 1))
    for j, cj in enumerate(c):
        r = cj / c[i0]
        near = [v for v in (1.0, -1.0, *_near(r, 0.1)) if abs(v - r) <= 0.1 * abs(v)]
        if not near:
            return []
        T[j, 0] = min(near, key=lambda v: abs(v - r))
    return [T]


def _ties(A: np.ndarray, c: np.ndarray, z: np.ndarray, wz: np.ndarray, data: OutputData,
          tr: Transform) -> list[np.ndarray]:
    """The ties of tie_maps and full_tie (c₂ = −c₁ in 1/m³ − 1/n³) under
    which the sum still predicts every point within the tolerance."""
    out = []
    for T in tie_maps(c) + full_tie(c):
        theta = wls(A @ T, z, wz)
        if theta is None:
            continue
        with np.errstate(all="ignore"):
            e = scaled_errors(tr.inverse(A @ T @ theta), data.y, data.sw)
        if float(np.max(e)) <= 1.0:
            out.append(T)
    return out


def _sum_law(data: OutputData, tr: Transform, terms: list, c: np.ndarray, T: np.ndarray,
             extra: float = 0.0) -> Optional[Law]:
    """A sum of terms with coefficients T·θ (T the identity, or a tie)."""
    cols = np.column_stack([t.values for t in terms])
    trees = [t.tree for t in terms]

    def model_on(cols_, theta):
        return tr.inverse(cols_ @ (T @ theta))

    def columns(X):
        from .trees import evaluate
        vals = [evaluate(t, X) if not isinstance(t, float) else np.full(len(next(iter(X.values()))), t)
                for t in trees]
        return None if any(v is None for v in vals) else np.column_stack(vals)

    start = np.linalg.lstsq(T, np.asarray(c, float), rcond=None)[0]
    theta = refine(lambda t, X: model_on(cols, t), start, {"_": np.zeros(data.n)},
                   data.y, data.sw) if data.n > len(start) else start
    theta = start if theta is None else theta
    scale, ratios = _factored(cols, T @ theta, data, tr)
    tree = drop_zero_terms(tr.tree(op("mul", float(scale), op("add", *[t if r == 1 else _times(r, t)
                                                                      for r, t in zip(ratios, trees)]))))
    text = f"{data.output.name} = {tree_text(tree)}"

    def refit(idx, theta=theta):
        t = refine(lambda t_, X: model_on(cols[idx], t_), theta, {"_": np.zeros(len(idx))},
                   data.y[idx], data.sw[idx])
        if t is None:
            return None
        return lambda X, t=t: (lambda m: None if m is None else model_on(m, t))(columns(X))
    tied = T.shape[1] < T.shape[0]
    cost = (1.5 * len(terms) + tr.cost + extra + sum(_term_cost(t.text) for t in terms)
            + (0.5 if tied else 0.0))
    kind = "sum of terms" + (", tied coefficients" if tied else "") + (f", {tr.name}" if tr.name != "y" else "")
    law = Law(kind, text, tree, len(theta), cost, refit)
    with np.errstate(all="ignore"):
        law.set_fit(scaled_errors(tr.inverse(cols @ (scale * ratios)), data.y, data.sw))
    return law


def _times(c: float, t: Any) -> Any:
    return float(c) * t if isinstance(t, float) else op("mul", float(c), t)


def _factored(cols: np.ndarray, coef: np.ndarray, data: OutputData, tr: Transform) -> tuple[float, np.ndarray]:
    """The sum written as scale·(M₀ + Σ rⱼ·Mⱼ), M₀ its largest term, each
    ratio rⱼ the shortest decimal the data support (snap_decimals): in
    `r·(ρ − 1.26)` the 1.26 is a constant of the law, while 1.546 and
    −1.948 in `1.546·r·ρ − 1.948·r` are products of several."""
    size = np.abs(coef) * np.sqrt(np.mean(cols ** 2, axis=0))
    i0 = int(np.argmax(size))
    if not coef[i0]:
        return 1.0, coef
    others = [j for j in range(len(coef)) if j != i0]

    def model(t, X):
        r = np.ones(len(coef))
        r[others] = t[1:]
        return tr.inverse(cols @ (t[0] * r))
    # the rounding bound of noisy readings even on exact ones: a sum's cost counts no
    # digits, so its four-digit ratios (0.5·(I0 + 0.5312·I0·sin 2θ + 0.8473·I0·cos 2θ))
    # would pass as exact and, shorter by that count, outrank I0·cos(θ − 0.28)²;
    # rounded to three (within half the tolerance: the strict check sees the same law)
    # they fit within 0.16 tolerances, not exactly
    t = snap_decimals(model, np.concatenate([[coef[i0]], coef[others] / coef[i0]]), {}, data.y, data.sw,
                      data.snap_rel)
    ratios = np.ones(len(coef))
    ratios[others] = t[1:]
    return float(t[0]), ratios
