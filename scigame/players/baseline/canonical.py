"""The law about to be submitted, written in its canonical form (issue #29).

A search can find the law in an equivalent reparametrised form whose
constants do not line up with the law's own: ½·I0·(1 + 0.53·sin 2θ +
0.847·cos 2θ) is I0·cos²(θ − 0.28), predicted within 0.1 %, but the strict
check compares constants and sees another law. Before submitting, each
output's tree is put through a few exact identities, rewrites that move
no prediction (checked over the readings to IDENTITY tolerances):

- a constant factor distributed over a sum, c·(a + b) = c·a + c·b;
- phase-amplitude: a·sin u + b·cos u = R·cos(u − φ), R = √(a² + b²),
  φ = atan2(a, b), for two terms alike but for sin u and cos u;
- half angle: c + R·cos w = (c − R) + 2R·cos²(w/2), for a constant term
  and a cosine term with one common factor;
- a denominator's constant term pulled out, c/(c0 + t) = (c/c0)/(1 + t/c0):
  the saturating form K/(1 + …) of a reciprocal sum.

Then each rewrite, and each with one of its terms dropped, has its
constants rounded to short decimals the readings support, as they are
and refitted to the readings (fitting.snap_decimals, fitting.refine).
The simplest one (fewest fitted constants, then the found constants kept
rather than refitted, then fewest digits: a description length) replaces
the tree, only when it is simpler than the original, reproduces every reading at
least as well (its largest and summed scaled errors no larger, to SLACK
tolerances) and predicts like it over the domain sample (within DOMAIN
tolerances): the step never makes a submission predict worse.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional

import numpy as np

from .fitting import refine, scaled_errors, snap_decimals
from .identify import Hyp
from .task import Output
from .trees import evaluate, fold, is_num, op, product, refold, tree_text

#: A rewrite is an identity when it moves no prediction over the readings
#: by more than this many tolerances.
IDENTITY = 1e-3
#: How much the canonical form's scaled errors may exceed the original's
#: (largest error, in tolerances; sum of squares, in squared tolerances).
SLACK = 1e-3
#: How far the canonical form's predictions may move from the original's
#: anywhere in the domain sample, in tolerances: a dropped term or a refit
#: fits a few readings as well, but must not be another law between them.
DOMAIN = 0.5


def _key(tree: Any) -> str:
    return json.dumps(tree, sort_keys=True)


def _factors(tree: Any) -> tuple[float, list]:
    """tree as c·f1·f2·…: its numeric coefficient and other factors."""
    if is_num(tree):
        return float(tree), []
    if isinstance(tree, dict) and tree.get("op") == "mul":
        c, fs = 1.0, []
        for a in tree["args"]:
            ca, fa = _factors(a)
            c, fs = c * ca, fs + fa
        return c, fs
    if isinstance(tree, dict) and tree.get("op") == "neg":
        c, fs = _factors(tree["args"][0])
        return -c, fs
    return 1.0, [tree]


def _terms(tree: Any) -> list[tuple[float, list]]:
    """tree as a sum of terms c·f1·f2·… (one term if it is no sum)."""
    if isinstance(tree, dict) and tree.get("op") == "add":
        return [t for a in tree["args"] for t in _terms(a)]
    if isinstance(tree, dict) and tree.get("op") == "sub" and len(tree["args"]) == 2:
        return _terms(tree["args"][0]) + [(-c, fs) for c, fs in _terms(tree["args"][1])]
    return [_factors(tree)]


def _sum(terms: list[tuple[float, list]]) -> Any:
    parts = [product([c] + fs) for c, fs in terms]
    return parts[0] if len(parts) == 1 else fold("add", parts)


def _sorted_key(fs: list) -> str:
    return _key(sorted(_key(f) for f in fs))


def distribute(tree: Any) -> Any:
    """c·(a + b)·g as c·a·g + c·b·g (one sum among the factors)."""
    c, fs = _factors(tree)
    sums = [i for i, f in enumerate(fs) if isinstance(f, dict) and f.get("op") in ("add", "sub")]
    if len(sums) != 1:
        return tree
    rest = fs[:sums[0]] + fs[sums[0] + 1:]
    return _sum([(c * ci, fi + rest) for ci, fi in _terms(fs[sums[0]])])


def _trig(f: Any, name: str) -> Optional[Any]:
    return f["args"][0] if isinstance(f, dict) and f.get("op") == name and len(f.get("args", [])) == 1 else None


def _split(fs: list, name: str) -> Optional[tuple[Any, list]]:
    """(u, the other factors) of factors holding one name(u)."""
    at = [i for i, f in enumerate(fs) if _trig(f, name) is not None]
    return (_trig(fs[at[0]], name), fs[:at[0]] + fs[at[0] + 1:]) if len(at) == 1 else None


def phase_amplitude(tree: Any) -> Any:
    """a·sin(u)·g + b·cos(u)·g as R·cos(u − φ)·g, R = √(a² + b²),
    φ = atan2(a, b), in a sum (the first such pair)."""
    terms = _terms(tree)
    for i, (a, fi) in enumerate(terms):
        s = _split(fi, "sin")
        if s is None:
            continue
        for j, (b, fj) in enumerate(terms):
            c = _split(fj, "cos")
            if c is None or _key(c[0]) != _key(s[0]) or _sorted_key(c[1]) != _sorted_key(s[1]):
                continue
            amp, phi = math.hypot(a, b), math.atan2(a, b)
            wave = op("cos", fold("add", [s[0], -phi]))
            new = [t for k, t in enumerate(terms) if k not in (i, j)] + [(amp, s[1] + [wave])]
            return _sum(new)
    return tree


def halved(w: Any) -> Any:
    """w/2, the half carried into a sum's terms and a product's coefficient."""
    if is_num(w):
        return w / 2
    if isinstance(w, dict) and w.get("op") == "add":
        return fold("add", [halved(a) for a in w["args"]])
    c, fs = _factors(w)
    return product([c / 2] + fs) if fs else c / 2


def half_angle(tree: Any) -> Any:
    """c·g + R·cos(w)·g as (c − R)·g + 2R·cos(w/2)²·g, in a sum (the first
    such pair)."""
    terms = _terms(tree)
    for j, (r, fj) in enumerate(terms):
        s = _split(fj, "cos")
        if s is None:
            continue
        for i, (c, fi) in enumerate(terms):
            if i != j and _sorted_key(fi) == _sorted_key(s[1]):
                square = op("pow", op("cos", halved(s[0])), 2.0)
                new = [t for k, t in enumerate(terms) if k not in (i, j)]
                return _sum(new + [(c - r, fi), (2 * r, s[1] + [square])])
    return tree


def _denominator(f: Any) -> Optional[tuple[float, Any]]:
    """(n, S) of a factor n/S or S^-1 (n = 1)."""
    if isinstance(f, dict) and f.get("op") == "div" and is_num(f["args"][0]):
        return float(f["args"][0]), f["args"][1]
    if isinstance(f, dict) and f.get("op") == "pow" and is_num(f["args"][1]) and f["args"][1] == -1:
        return 1.0, f["args"][0]
    return None


def reciprocal(tree: Any) -> Any:
    """c/(c0 + t1 + …)·g as (c/c0)/(1 + t1/c0 + …)·g: the constant term
    of a denominator pulled out (1/(0.001 + 1.51·e^(−t/2)/N0) is
    1000/(1 + 1510·e^(−t/2)/N0), the saturating form K/(1 + …) a law is
    written in)."""
    c, fs = _factors(tree)
    for k, f in enumerate(fs):
        d = _denominator(f)
        terms = _terms(d[1]) if d is not None else []
        const = [i for i, (ci, fi) in enumerate(terms) if not fi and ci != 0]
        if len(const) != 1 or len(terms) < 2 or terms[const[0]][0] == 1.0:
            continue
        c0 = terms[const[0]][0]
        inner = _sum([(1.0, [])] + [(ci / c0, fi) for i, (ci, fi) in enumerate(terms) if i != const[0]])
        return product([c * d[0] / c0, op("div", 1.0, inner)] + fs[:k] + fs[k + 1:])
    return tree


#: The rewrites, applied in turn: each one's result is a candidate.
REWRITES = (distribute, phase_amplitude, half_angle, reciprocal)


def _fixed(value: float, exponent: bool, integers: bool) -> bool:
    """Whether a number of a tree stays when its constants are refitted: a
    power's exponent (exponents are exact in a law), and an integer (with
    `integers`, only 0 and ±1: a larger integer may be a fitted constant
    rounded to one, as 4402 or 325 are)."""
    v = float(value)
    return exponent or (v.is_integer() and (not integers or abs(v) <= 1))


def _free(tree: Any, exponent: bool = False, integers: bool = False) -> list[float]:
    """The tree's fitted constants in order: the numbers that are not _fixed."""
    if is_num(tree):
        return [] if _fixed(tree, exponent, integers) else [float(tree)]
    if isinstance(tree, dict) and "op" in tree:
        return [c for k, a in enumerate(tree.get("args", []))
                for c in _free(a, exponent or (tree["op"] == "pow" and k == 1), integers)]
    return []


def _with(tree: Any, values: list[float], integers: bool = False) -> Any:
    """The tree with its free constants (_free order) replaced by values."""
    it = iter(values)

    def walk(t, exponent=False):
        if is_num(t):
            return t if _fixed(t, exponent, integers) else float(next(it))
        if isinstance(t, dict) and "op" in t:
            return {**t, "args": [walk(a, exponent or (t["op"] == "pow" and k == 1))
                                  for k, a in enumerate(t.get("args", []))]}
        return t
    return walk(tree)


def length(tree: Any) -> tuple[int, int]:
    """Description length: (fitted constants, their significant digits)."""
    free = _free(tree)
    return len(free), sum(len(f"{abs(v):.6g}".replace(".", "").replace("e", "").lstrip("0")) for v in free)


def _fitted(tree: Any, X: dict, y: np.ndarray, sw: np.ndarray, rel: float) -> list:
    """(0, the tree with its constants rounded to short decimals the
    readings support) and (1, the same after a refit to the readings),
    folded: the rounding alone keeps the found constants, which a refit of
    poorly determined ones would move."""
    theta0 = np.array(_free(tree))
    if len(theta0) == 0:
        return [(0, tree)]
    model = _model(tree)
    starts = [(0, theta0), (1, refine(model, theta0, X, y, sw, nfev=50))]
    return [(refitted, refold(_with(tree, list(snap_decimals(model, t, X, y, sw, rel)))))
            for refitted, t in starts if t is not None]


def _model(tree: Any, integers: bool = False):
    """The tree as a model of its free constants (_free), for fitting.refine."""
    def model(t, Xs):
        v = evaluate(_with(tree, list(t), integers), Xs)
        return np.full(len(next(iter(Xs.values()))), np.nan) if v is None else v
    return model


def refitted(tree: Any, X: dict, y: np.ndarray, sw: np.ndarray) -> Any:
    """The tree with its constants refitted to the readings, unrounded:
    every number but the exponents, 0 and ±1 (an integer such as 4402 may
    be a fitted constant rounded); the tree itself when it has none or the
    fit fails."""
    theta0 = np.array(_free(tree, integers=True))
    theta = refine(_model(tree, integers=True), theta0, X, y, sw, nfev=50) if len(theta0) else None
    return tree if theta is None else _with(tree, list(theta), integers=True)


def _errors(tree: Any, X: dict, y: np.ndarray, sw: np.ndarray) -> np.ndarray:
    return scaled_errors(evaluate(tree, X), y, sw)


def _alike(a: Any, b: Any, output: Output, check_X: dict) -> bool:
    """Trees a and b predict within DOMAIN tolerances of each other over the
    domain sample (b is defined wherever a is)."""
    p, q = evaluate(a, check_X), evaluate(b, check_X)
    return p is None or (q is not None and float(np.max(np.abs(q - p) / output.scale(p), initial=0.0)) <= DOMAIN)


def canonical_tree(tree: Any, output: Output, X: dict, y: np.ndarray, check_X: dict) -> Any:
    """The simplest equivalent of one output's law (module docstring), or
    the tree itself; `check_X`: the domain sample the new form must
    predict like the tree over."""
    if not X or len(y) == 0 or not isinstance(tree, dict):
        return tree
    sw = output.scale(y)
    base = evaluate(tree, X)
    if base is None:
        return tree
    old = _errors(tree, X, y, sw)
    rel = output.tol_rel / 2 if output.tol_rel > 0 else 1e-3
    candidates, current = [], tree
    for rewrite in REWRITES:
        new = rewrite(current)
        if _key(new) == _key(current):
            continue
        p = evaluate(new, X)
        if p is None or np.max(np.abs(p - base) / sw) > IDENTITY:
            continue  # not the identity it should be: no candidate
        current = new
        candidates.append(new)
        terms = _terms(new)
        if len(terms) > 1:
            candidates += [_sum(terms[:k] + terms[k + 1:]) for k in range(len(terms))]
    # fewest constants first, then the found constants kept (no refit), then fewest digits
    best, best_key = tree, (length(tree)[0], 0, length(tree)[1])
    for refitted, fitted in (f for cand in candidates for f in _fitted(cand, X, y, sw, rel)):
        e, key = _errors(fitted, X, y, sw), (length(fitted)[0], refitted, length(fitted)[1])
        if np.max(e) <= np.max(old) + SLACK and np.sum(e ** 2) <= np.sum(old ** 2) + SLACK \
                and length(fitted) < length(tree) and key < best_key and _alike(tree, fitted, output, check_X):
            best, best_key = fitted, key
    return best


def canonical(predictor: dict, outputs: list[Output], X: dict, Y: dict, check_X: dict) -> dict:
    """The predictor with each output's law in its canonical form
    (canonical_tree); the same dict when nothing changes."""
    out = dict(predictor)
    for o in outputs:
        if o.name in out and o.name in Y:
            with np.errstate(all="ignore"):
                out[o.name] = canonical_tree(out[o.name], o, X, np.asarray(Y[o.name], dtype=float), check_X)
    return out if any(_key(out[k]) != _key(predictor[k]) for k in predictor) else predictor


def canonical_hyp(hyp: Hyp, outputs: list[Output], X: dict, Y: dict, check_X: dict) -> tuple[Hyp, str]:
    """The hypothesis with its predictor in canonical form, its statement
    saying so, and a sentence for the explanation ("" when nothing changes)."""
    new = canonical(hyp.predictor, outputs, X, Y, check_X)
    if new is hyp.predictor:
        return hyp, ""
    statement, said = hyp.statement, []
    for name in sorted(new):
        if _key(new[name]) != _key(hyp.predictor[name]):
            old_text, new_text = f"{name} = {tree_text(hyp.predictor[name])}", f"{name} = {tree_text(new[name])}"
            statement = statement.replace(old_text, new_text) if old_text in statement else f"{statement}; {new_text}"
            said.append(f"{old_text} is written {new_text}")
    sentence = (" Written in canonical form: " + "; ".join(said) + " (an identity of the found form, its "
                "constants refitted to the measurements, which it reproduces at least as well).")
    return Hyp(statement + " (canonical form)", hyp.confidence, new, hyp.detail), sentence
