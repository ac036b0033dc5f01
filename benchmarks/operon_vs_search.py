"""Operon's symbolic regression against the baseline's own search, on the same data.

    pip install -e '.[operon]'     # pyoperon, the C++ genetic-programming library
    python benchmarks/operon_vs_search.py [-v] [--more N] [--evaluations E] [--scaled] [PATH ...]

PATH defaults to benchmarks/feynman/ (47 textbook laws; `cards/historical`
works too). For every card, in the original world and the Discovery
setting, one Fixed episode at B = 8 is played by the baseline through the
real runner (scigame.protocols.play_episode, seed 1), and then:

  search   the baseline's submission (its own enumerative search)
  operon   pyoperon's SymbolicRegressor fitted on exactly the 8 observations
           the baseline was given (`episode.given`), one output at a time
  operonN  the same regressor on N points (--more, default 64) drawn
           uniformly over the card's domains and observed through the card's
           own simulator, with its measurement noise (what operon needs)
  ...-c    the same operon fit without its additive constant, where dropping
           it moves no prediction at the fitted points by more than half the
           output's tolerance: operon's linear scaling always adds one, and
           the strict check never forgives `law + 1e-9`

Operon's best model is printed as an infix string, read by sympy, turned
into a predictor tree of the predictor language (compiler/predictor_ops.py)
and validated (scigame.predictor.validate_predictor). Every answer is
scored by the card's own scorer, `card.score(predictor, "original")`; a
model that cannot be converted (an op outside the language, a non-finite
constant) is a counted miss with its reason. Times are wall seconds: the
player's turn for the search, fit plus conversion for operon (threads = 1
for both, so it is fair on a shared 2-core machine). Prints the strict
and weak counts and the median and total time per method, measured in one
run, and with -v one line per card (S strict, w weak only, - neither)
with each method's law or the reason it has none.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import sympy
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

REPO = Path(__file__).resolve().parent.parent
ENV = "original"
BUDGET = 8
SEED = 1

#: Operon's settings: the predictor language's ops that operon also has, a
#: fixed seed, one thread and a modest budget of fitness evaluations.
OPERON = dict(allowed_symbols="add,sub,mul,div,constant,variable,exp,log,sin,cos,tan,sqrt,square,pow,tanh",
              population_size=500, generations=1000, max_length=30, max_depth=10,
              n_threads=1, random_state=SEED)
EVALUATIONS = 50_000


class Unconvertible(Exception):
    """An operon model that is no predictor tree (the reason says why)."""


def _function_ops() -> dict[type, str]:
    """sympy function class -> op name, for the predictor language's unary
    ops whose sympy meaning is one sympy function applied to the argument
    (exp, log, sin, ..., abs); derived from the op table, not written out."""
    from scigame.compiler.predictor_ops import OP_TABLE
    x = sympy.Symbol("x", real=True)
    found: dict[type, str] = {}
    for row in OP_TABLE.values():
        if row.min_args != 1 or row.max_args != 1:
            continue
        e = row.sympy(sympy, x)
        if isinstance(e, sympy.Function) and e.args == (x,):
            found.setdefault(e.func, row.name)
    return found


def sympy_to_tree(expr: sympy.Expr, names: Mapping[sympy.Symbol, str], ops: Optional[dict] = None) -> Any:
    """A predictor tree with the meaning of `expr`, its symbols renamed by
    `names`. Raises Unconvertible for anything outside the language."""
    ops = _function_ops() if ops is None else ops
    if expr.is_Symbol:
        if expr not in names:
            raise Unconvertible(f"unknown variable {expr}")
        return {"var": names[expr]}
    if expr.is_number:
        value = complex(expr.evalf())
        if value.imag != 0 or not np.isfinite(value.real):
            raise Unconvertible(f"the constant {expr} is not a finite real number")
        return float(value.real)
    args = [sympy_to_tree(a, names, ops) for a in expr.args]
    if expr.is_Add:
        return {"op": "add", "args": args}
    if expr.is_Mul:
        return {"op": "mul", "args": args}
    if expr.is_Pow:
        base, exponent = args
        if exponent == 0.5:
            return {"op": "sqrt", "args": [base]}
        return {"op": "pow", "args": [base, exponent]}
    if expr.func in ops:
        return {"op": ops[expr.func], "args": args}
    raise Unconvertible(f"`{expr.func.__name__}` is not an op of the predictor language")


def read_infix(text: str, names: Sequence[str]) -> sympy.Expr:
    """The sympy expression of an operon infix model (`^` is a power) over
    real symbols named `names`. Raises Unconvertible."""
    symbols = {k: sympy.Symbol(k, real=True) for k in names}
    known = {f.__name__: f for f in _function_ops()}
    known.update(sqrt=sympy.sqrt, Abs=sympy.Abs, abs=sympy.Abs)
    try:
        expr = parse_expr(text, local_dict={**known, **symbols}, global_dict={"Float": sympy.Float,
                          "Integer": sympy.Integer, "Rational": sympy.Rational, "Symbol": sympy.Symbol,
                          "Function": sympy.Function},
                          transformations=standard_transformations + (convert_xor,))
    except Exception as exc:  # sympy's parser raises anything from SyntaxError to TypeError
        raise Unconvertible(f"sympy cannot read the model: {type(exc).__name__}: {exc}") from None
    if not isinstance(expr, sympy.Expr):
        raise Unconvertible(f"the model is not an expression: {text[:60]}")
    return expr


def infix_to_tree(text: str, names: Mapping[str, str]) -> Any:
    """A predictor tree from an operon infix model, its variables `names`
    (operon's name -> the card's). Raises Unconvertible."""
    expr = read_infix(text, list(names))
    return sympy_to_tree(expr, {sympy.Symbol(k, real=True): v for k, v in names.items()})


def without_intercept(card, out: str, expr: sympy.Expr, names: Mapping[str, str],
                      xs: Mapping[str, np.ndarray]) -> Optional[sympy.Expr]:
    """`expr` without its additive constant (operon's linear scaling always
    adds one, and the strict check never forgives `law + 1e-9`), when that
    moves no prediction at the fitted points by more than half the output's
    tolerance (public, in the task); else None."""
    intercept, rest = expr.as_coeff_Add()
    if intercept == 0 or rest == 0:
        return None
    spec = next(o for o in card.data.outputs if o.name == out)
    point = {sympy.Symbol(k, real=True): np.asarray(xs[v], dtype=float) for k, v in names.items()}
    try:
        with np.errstate(all="ignore"):
            full = np.asarray(sympy.lambdify(list(point), expr, "numpy")(*point.values()), dtype=float)
    except (TypeError, ValueError, ArithmeticError):
        return None  # not a number at the points: keep the model as printed
    allowed = spec.tol_abs + spec.tol_rel * np.abs(full)
    return rest if np.all(abs(float(intercept)) <= 0.5 * allowed) else None


@dataclass
class Answer:
    """One method's answer on one card."""

    strict: bool = False
    weak: bool = False
    seconds: float = 0.0
    note: str = ""  # the law, or why there is none


def judged(card, predictor: Any, seconds: float, law: str) -> Answer:
    """The card's own verdict on a predictor."""
    from scigame.predictor import PredictorInvalid, validate_predictor
    try:
        predictor = validate_predictor(predictor, card.input_names, card.output_names)
    except PredictorInvalid as exc:
        return Answer(seconds=seconds, note=f"invalid predictor: {exc}")
    try:
        score = card.score(predictor, ENV)
    except Exception as exc:  # a miss with its reason, never a traceback
        return Answer(seconds=seconds, note=f"the scorer failed: {type(exc).__name__}: {exc}")
    note = law if score.valid else f"not valid: {score.reason}"
    if score.weak and score.strict is not True:
        note += f"  [not strict: {score.strict_reason or 'undecided'}]"
    return Answer(strict=score.strict is True, weak=bool(score.weak), seconds=seconds, note=note)


def baseline_answer(card) -> tuple[Answer, list]:
    """The baseline's Fixed B = 8 answer, and the observations it was given."""
    from scigame.players.baseline import BaselinePlayer
    from scigame.protocols import play_episode
    from scigame.records import EpisodeKey
    key = EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment=ENV, setting="discovery",
                     protocol="fixed", budget=BUDGET, repetition=0, player="baseline")
    with warnings.catch_warnings():  # scipy's overflow warnings on far-off trial laws
        warnings.simplefilter("ignore", RuntimeWarning)
        ep = asyncio.run(play_episode(card, key, BaselinePlayer, seed=SEED, max_steps=card.data.max_steps))
    seconds = ep.outcome.wall_time
    action = next((t.action for t in ep.turns if t.action and t.action.submission), None)
    if action is None:
        return Answer(seconds=seconds, note=f"no submission: {ep.error or ep.outcome.reason}"), ep.given
    law = action.hypotheses[action.submission.selected].statement
    return judged(card, action.submission.predictor, seconds, law), ep.given


def fit_operon(X: np.ndarray, y: np.ndarray, names: list[str], evaluations: int) -> str:
    """Operon's best model of y(X) as an infix string over `names`."""
    from pyoperon.sklearn import SymbolicRegressor
    reg = SymbolicRegressor(**OPERON, max_evaluations=evaluations)
    with warnings.catch_warnings():  # "Model contains no variables": a constant is a model too
        warnings.simplefilter("ignore")
        reg.fit(X, y)
        return reg.get_model_string(reg.model_, precision=17, names=names)


def decade(values: np.ndarray) -> float:
    """The power of ten nearest the median magnitude of the values (1 for zeros)."""
    m = float(np.median(np.abs(values)))
    return 10.0 ** round(np.log10(m)) if m > 0 and np.isfinite(m) else 1.0


def operon_answers(card, xs: Mapping[str, np.ndarray], ys: Mapping[str, np.ndarray],
                   evaluations: int, scaled: bool = False) -> tuple[Answer, Answer]:
    """Operon's answer from the points (xs, ys), one output at a time, as
    printed and with its intercept dropped where the points allow
    (`without_intercept`; the same fit, so the same time). `scaled`: every
    input and output is divided by its `decade` for the fit (operon computes
    in single precision) and the model is written back in the card's units."""
    placeholders = {f"x{i}": name for i, name in enumerate(card.input_names)}  # card names may be `lambda`
    symbols = {sympy.Symbol(k, real=True): v for k, v in placeholders.items()}
    scale = {n: decade(np.asarray(v, dtype=float)) if scaled else 1.0 for n, v in {**xs, **ys}.items()}
    X = np.column_stack([np.asarray(xs[n], dtype=float) / scale[n] for n in card.input_names])
    unscale = {sym: sym / scale[name] for sym, name in symbols.items()}
    started = time.perf_counter()
    full, pruned = {}, {}
    for out in card.output_names:
        try:
            text = fit_operon(X, np.asarray(ys[out], dtype=float) / scale[out], list(placeholders), evaluations)
        except Exception as exc:  # operon refuses data it cannot fit (non-finite, too few rows)
            miss = Answer(seconds=time.perf_counter() - started, note=f"operon failed: {type(exc).__name__}: {exc}")
            return miss, miss
        try:
            expr = read_infix(text, list(placeholders))
            expr = expr.xreplace(unscale) * scale[out] if scaled else expr
            full[out] = sympy_to_tree(expr, symbols)
            pruned[out] = sympy_to_tree(without_intercept(card, out, expr, placeholders, xs) or expr, symbols)
        except Unconvertible as exc:
            miss = Answer(seconds=time.perf_counter() - started, note=f"not converted: {exc}")
            return miss, miss
    seconds = time.perf_counter() - started
    return tuple(judged(card, p, seconds, _law_text(p, card)) for p in (full, pruned))


def _law_text(predictor: Mapping[str, Any], card) -> str:
    from scigame.symbolic import tree_to_sympy
    symbols = {n: sympy.Symbol(n) for n in card.input_names}
    return "; ".join(f"{k} = {sympy.sstr(tree_to_sympy(t, symbols), full_prec=False)}"
                     for k, t in predictor.items())


def given_points(card, given: Sequence) -> tuple[dict, dict]:
    """The Fixed observations as arrays (the baseline's names are the card's)."""
    xs = {n: np.array([o.inputs[n] for o in given]) for n in card.input_names}
    ys = {n: np.array([o.outputs[n] for o in given]) for n in card.output_names}
    return xs, ys


def drawn_points(card, n: int) -> tuple[dict, dict]:
    """n points drawn over the card's domains and observed (the card's noise,
    seeded); points the card refuses (a constraint, a non-finite law) are
    drawn again, at most 20·n draws."""
    from scigame.controls import draw
    from scigame.oracle import Rejection
    rng = np.random.default_rng([SEED, n])
    xs: dict[str, list] = {k: [] for k in card.input_names}
    ys: dict[str, list] = {k: [] for k in card.output_names}
    for i in range(20 * n):
        point = {s.name: float(draw(s, rng, 1)[0]) for s in card.data.inputs}
        try:
            seen = card.simulate(ENV, point, seed=[SEED, n, i])
        except Rejection:
            continue
        for k, v in point.items():
            xs[k].append(v)
        for k, v in seen.items():
            ys[k].append(float(v[0]))
        if len(next(iter(ys.values()))) == n:
            break
    return {k: np.array(v) for k, v in xs.items()}, {k: np.array(v) for k, v in ys.items()}


def summary(name: str, answers: list[Answer], search: list[Answer]) -> str:
    """One method's totals; for operon also the laws it recovers strictly
    and the search does not (what it would add as a candidate generator)."""
    times = [a.seconds for a in answers]
    extra = sum(a.strict and not b.strict for a, b in zip(answers, search))
    return (f"{name:<10} strict {sum(a.strict for a in answers):>3}/{len(answers)}  "
            f"weak {sum(a.weak for a in answers):>3}/{len(answers)}  "
            f"median {np.median(times):6.2f} s  total {sum(times):7.1f} s"
            + (f"  strict where the search is not: {extra}" if answers is not search else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(REPO / "benchmarks" / "feynman")])
    ap.add_argument("--more", type=int, default=64, metavar="N",
                    help="points of the data-rich operon run (default 64; 0: skip it)")
    ap.add_argument("--evaluations", type=int, default=EVALUATIONS,
                    help=f"operon's budget of fitness evaluations per output (default {EVALUATIONS})")
    ap.add_argument("--scaled", action="store_true",
                    help="fit operon on every input and output divided by its power of ten")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    try:
        import pyoperon  # noqa: F401
    except ImportError:
        print("operon_vs_search: pyoperon is not installed (pip install -e '.[operon]')", file=sys.stderr)
        return 2
    if args.more < 0 or args.evaluations < 1:
        print("operon_vs_search: --more must be >= 0 and --evaluations >= 1", file=sys.stderr)
        return 2
    import scigame
    from scigame.card import CardError
    files = sorted(f for p in args.paths for f in (Path(p).rglob("*.sci") if Path(p).is_dir() else [Path(p)]))
    if not files:
        print(f"operon_vs_search: no .sci cards under {' '.join(args.paths)}", file=sys.stderr)
        return 2
    methods = ["search", "operon", "operon-c"] + ([f"operon{args.more}", f"operon{args.more}-c"] if args.more else [])
    results: dict[str, list[Answer]] = {m: [] for m in methods}
    print(f"{len(files)} cards, {ENV} world, Fixed B = {BUDGET}, seed {SEED}; operon: "
          f"{OPERON['allowed_symbols']}, population {OPERON['population_size']}, "
          f"{args.evaluations} evaluations, max length {OPERON['max_length']}, 1 thread"
          + (", data scaled by powers of ten" if args.scaled else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            try:
                card = scigame.load_card(f, cache_dir=tmp)
            except (CardError, OSError) as exc:  # a card that does not compile, an unreadable file
                print(f"operon_vs_search: {str(exc).splitlines()[0]}", file=sys.stderr)
                return 2
            search, given = baseline_answer(card)
            row = {"search": search}
            row["operon"], row["operon-c"] = operon_answers(card, *given_points(card, given), args.evaluations,
                                                            args.scaled)
            if args.more:
                row[methods[3]], row[methods[4]] = operon_answers(card, *drawn_points(card, args.more),
                                                                  args.evaluations, args.scaled)
            for m in methods:
                results[m].append(row[m])
            if args.verbose:
                marks = "  ".join(f"{m}={'S' if a.strict else 'w' if a.weak else '-'} {a.seconds:5.2f}s"
                                  for m, a in row.items())
                print(f"  {card.name:<24} {marks}")
                for m, a in row.items():
                    print(f"      {m:<11} {a.note[:150]}")
    for m in methods:
        print(summary(m, results[m], results["search"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
