"""Equivalent rewrites and wrong-but-close variants of laws, for testing
the strict matcher (`tests/test_strict_suite.py`, `benchmarks/strict_suite.py`).

Every bundled card's law in both worlds, and a broader table of textbook
laws (`TEXTBOOK`), is rewritten with sympy the ways a player might write it
(expanded, factored, over a common denominator, trig and exponential
identities, roots split, π and unit factors moved, constants rounded within
the tolerance) and spoiled the ways a near-miss looks (an exponent off by
1 %, a tiny extra term, a constant outside the tolerance). Trees go out with
float literals, π as 3.141592653589793, exactly as a player's JSON has them.
"""

from __future__ import annotations

import ast
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import sympy

from ..symbolic import Variable, evaluate_tree, sample_domain, symbols_for, tree_to_sympy

__all__ = ["Case", "TEXTBOOK", "card_cases", "infix_tree", "sympy_tree", "textbook_cases"]


@dataclass(frozen=True)
class Case:
    law_id: str
    kind: str           # the rewrite or the spoiling applied
    candidate: object   # tree
    reference: object   # tree
    variables: tuple[Variable, ...]
    rel_tol: float
    expected: bool


# ---------------------------------------------------------------------------
# infix text and sympy expressions -> trees
# ---------------------------------------------------------------------------

_BIN = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}


def infix_tree(text: str) -> object:
    """A tree from Python-style infix text (`^` is a power), floats kept bit
    for bit: `I0*(1+cos(2*theta*0.017453292519943295))/2`."""
    def go(n: ast.AST) -> object:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return float(n.value)
        if isinstance(n, ast.Name):
            return {"var": n.id}
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return {"op": "neg", "args": [go(n.operand)]}
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
            return {"op": _BIN[type(n.op)], "args": [go(n.left), go(n.right)]}
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            return {"op": n.func.id, "args": [go(a) for a in n.args]}
        raise ValueError(f"not a tree expression: {ast.dump(n)[:60]}")
    return go(ast.parse(text.replace("^", "**"), mode="eval").body)


_FUNCS = {sympy.exp: "exp", sympy.log: "log", sympy.sin: "sin", sympy.cos: "cos",
          sympy.tan: "tan", sympy.asin: "asin", sympy.acos: "acos", sympy.atan: "atan",
          sympy.sinh: "sinh", sympy.cosh: "cosh", sympy.tanh: "tanh", sympy.Abs: "abs"}


def sympy_tree(e: sympy.Expr) -> object:
    """A tree for a sympy expression; every constant becomes a float."""
    if not e.free_symbols:
        return float(e)
    if isinstance(e, sympy.Symbol):
        return {"var": e.name}
    if isinstance(e, sympy.Add):
        return {"op": "add", "args": [sympy_tree(a) for a in e.args]}
    if isinstance(e, sympy.Mul):
        return {"op": "mul", "args": [sympy_tree(a) for a in e.args]}
    if isinstance(e, sympy.Pow):
        if e.exp == sympy.Rational(1, 2):
            return {"op": "sqrt", "args": [sympy_tree(e.base)]}
        return {"op": "pow", "args": [sympy_tree(e.base), sympy_tree(e.exp)]}
    if e.func in _FUNCS:
        return {"op": _FUNCS[e.func], "args": [sympy_tree(a) for a in e.args]}
    raise ValueError(f"no tree op for {e.func}")


# ---------------------------------------------------------------------------
# rewrites (equivalent) and spoilings (not the law)
# ---------------------------------------------------------------------------

def _split_roots(e):
    return e.replace(lambda x: isinstance(x, sympy.Pow) and x.exp == sympy.Rational(1, 2)
                     and isinstance(x.base, sympy.Mul),
                     lambda x: sympy.Mul(*(sympy.sqrt(f) for f in x.base.args), evaluate=False))


def _diff_squares(e):
    """sqrt(a^2 - b^2) -> sqrt(a - b)*sqrt(a + b)."""
    def split(x):
        f = sympy.factor(x.base)
        if isinstance(f, sympy.Mul) and len([a for a in f.args if a.free_symbols]) == 2:
            return sympy.Mul(*(sympy.sqrt(a) for a in f.args), evaluate=False)
        return x
    return e.replace(lambda x: isinstance(x, sympy.Pow) and x.exp == sympy.Rational(1, 2)
                     and isinstance(x.base, sympy.Add), split)


def _exp_as_cosh_sinh(e):
    return e.replace(lambda x: isinstance(x, sympy.exp) and x.args[0].free_symbols,
                     lambda x: sympy.cosh(x.args[0]) + sympy.sinh(x.args[0]))


def _double_angle(e):
    e = e.replace(lambda x: isinstance(x, sympy.Pow) and x.exp == 2 and isinstance(x.base, sympy.cos),
                  lambda x: (1 + sympy.cos(2 * x.base.args[0])) / 2)
    return e.replace(lambda x: isinstance(x, sympy.Pow) and x.exp == 2 and isinstance(x.base, sympy.sin),
                     lambda x: (1 - sympy.cos(2 * x.base.args[0])) / 2)


def _log_ratio(e):
    return sympy.expand_log(e, force=True)


def _move_pi(e):
    """π (or a unit factor) moved: c·f written as f / (1/c) for the
    first constant factor c of a product, π spelled out as a float."""
    c, rest = e.as_independent(*e.free_symbols, as_Add=False)
    if c == 1 or isinstance(e, sympy.Add):
        return sympy.Mul(sympy.pi, e, sympy.Pow(sympy.pi, -1, evaluate=False), evaluate=False)
    return sympy.Mul(rest, sympy.Pow(1 / c, -1, evaluate=False), evaluate=False)


def _round_constants(e, tol):
    digits = 6 if tol < 0.01 else 5
    mapping = {}
    for n in e.atoms(sympy.Number):
        if n.is_Integer or (n.is_Rational and n.q <= 12):
            continue
        v = float(n)
        r = float(f"{v:.{digits}g}")
        if r != v and abs(r - v) <= tol / 10 * abs(v):
            mapping[n] = sympy.Float(r)
    return e.xreplace(mapping)


def _scale_out_of_roots(e, tol):
    """(a·x + b)^e written a^e·(x + b/a)^e, the two numbers rounded as a
    player prints them (_round_constants): a root of a sum with its scale
    taken out, a taken as the coefficient of largest size."""
    def out(p):
        base = sympy.expand(p.base)
        if not isinstance(base, sympy.Add):
            return p
        a = max((t.as_independent(*t.free_symbols)[0] for t in base.args), key=lambda c: abs(float(c)))
        if not a.is_number or abs(a) == 1 or a == 0:
            return p
        a = abs(a)
        return (sympy.Pow(_round_constants(a, tol), p.exp)
                * sympy.Pow(_round_constants(sympy.expand(base / a), tol), p.exp, evaluate=False))
    return e.replace(lambda x: isinstance(x, sympy.Pow) and x.exp.is_number and not x.exp.is_integer
                     and isinstance(sympy.expand(x.base), sympy.Add), out)


REWRITES: dict[str, Callable] = {
    "expand": sympy.expand, "factor": sympy.factor, "cancel": sympy.cancel,
    "together": sympy.together, "trigsimp": sympy.trigsimp, "expand_trig": sympy.expand_trig,
    "rewrite(exp)": lambda e: e.rewrite(sympy.exp) if not e.has(sympy.sin, sympy.cos, sympy.tan) else e,
    "powsimp": sympy.powsimp, "split sqrt": _split_roots, "sqrt of a difference of squares": _diff_squares,
    "exp as cosh+sinh": _exp_as_cosh_sinh, "double angle": _double_angle, "log of a ratio": _log_ratio,
    "pi or unit factor moved": _move_pi,
}


def _bump_exponent(e):
    pows = [p for p in sympy.preorder_traversal(e)
            if isinstance(p, sympy.Pow) and p.exp.is_Number and p.base.free_symbols]
    if pows:
        p = pows[0]
        return e.xreplace({p: sympy.Pow(p.base, sympy.Float(float(p.exp) * 1.01))})
    s = sorted(e.free_symbols, key=str)[0]
    return e.xreplace({s: s ** sympy.Float(1.01)})


def _tiny_term(e, variables):
    """law + 1e-6·x^3·sqrt(y) (or 1e-6·x^(7/2)): a term of a shape no law
    has, so that it cannot merge into a law term as a rounded constant."""
    syms = symbols_for(variables)
    first = syms[variables[0].name]
    other = sympy.sqrt(syms[variables[1].name] if len(variables) > 1 else first)
    return e + sympy.Float(1e-6) * first ** 3 * other


def _outside_tolerance(e, tol):
    return e * sympy.Float(1 + 4 * tol)


# ---------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------

class _TooSlow(Exception):
    pass


@contextmanager
def _time_limit(seconds: float):
    """Give up a sympy rewrite that takes longer than `seconds` (some, like
    factor of a nested exponential, can run for minutes)."""
    def stop(signum, frame):
        raise _TooSlow
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _numerically_sound(tree, law_tree, variables, rel_tol) -> bool:
    """Whether a rewrite, evaluated in floating point as a scorer would,
    still agrees with the law (within a tenth of the tolerance)."""
    points = sample_domain(variables, 64, 0)
    with np.errstate(all="ignore"):
        got, want = evaluate_tree(tree, points), evaluate_tree(law_tree, points)
    ok = np.isfinite(want)
    return bool(np.all(np.isfinite(got[ok])) and np.all(
        np.abs(got[ok] - want[ok]) <= rel_tol / 10 * np.abs(want[ok]) + 1e-300))


def _cases(law_id: str, law_tree: object, variables: tuple[Variable, ...],
           rel_tol: float) -> Iterator[Case]:
    symbols = symbols_for(variables)
    law = tree_to_sympy(law_tree, symbols, exact=True)
    seen = set()
    forms = {name: f for name, f in REWRITES.items()}
    forms["constants rounded"] = lambda e: _round_constants(e, rel_tol)
    forms["scale out of a root, rounded"] = lambda e: _scale_out_of_roots(e, rel_tol)
    for name, rewrite in forms.items():
        try:
            with _time_limit(2.0):
                form = rewrite(law)
            tree = sympy_tree(form)
        except (ValueError, TypeError, sympy.PolynomialError, _TooSlow):
            continue
        if not _numerically_sound(tree, law_tree, variables, rel_tol):
            continue  # e.g. cosh(-32) + sinh(-32) is 0 in floating point, not exp(-32)
        key = sympy.srepr(form)
        if key in seen and name != "pi or unit factor moved":
            continue
        seen.add(key)
        yield Case(law_id, name, tree, law_tree, variables, rel_tol, True)
    for name, spoil in (("exponent off by 1%", _bump_exponent),
                        ("tiny extra term", lambda e: _tiny_term(e, variables)),
                        ("constant outside the tolerance", lambda e: _outside_tolerance(e, rel_tol))):
        try:
            yield Case(law_id, name, sympy_tree(spoil(law)), law_tree, variables, rel_tol, False)
        except (ValueError, TypeError):
            continue


def card_cases(paths: list[Path]) -> Iterator[Case]:
    """Cases for every output's law of every card, in both worlds."""
    import scigame
    for path in paths:
        card = scigame.load_card(path)
        variables = tuple(Variable(s.name, s.domain.lo, s.domain.hi, s.domain.kind == "integer")
                          for s in card.data.inputs)
        for env in ("original", "counterfactual"):
            for o in card.data.outputs:
                law = card.data.environments[env].laws[o.name]
                yield from _cases(f"{card.data.name}/{env}/{o.name}", law, variables,
                                  max(o.tol_rel, 1e-9))


def _v(name, lo, hi):
    return Variable(name, lo, hi)


#: Textbook laws (many from the Feynman lectures' table used in symbolic
#: regression benchmarks) as infix text with their variables' domains.
TEXTBOOK: list[tuple[str, str, tuple[Variable, ...]]] = [
    ("gaussian", "exp(-theta^2/2)/sqrt(2*3.141592653589793)", (_v("theta", -3, 3),)),
    ("gaussian-sigma", "exp(-(theta/sigma)^2/2)/(sqrt(2*3.141592653589793)*sigma)",
     (_v("theta", -3, 3), _v("sigma", 1, 3))),
    ("distance", "sqrt((x2-x1)^2+(y2-y1)^2)", (_v("x1", 1, 5), _v("x2", 6, 9), _v("y1", 1, 5), _v("y2", 6, 9))),
    ("relativistic-mass", "m0/sqrt(1-v^2/c^2)", (_v("m0", 1, 5), _v("v", 1, 2), _v("c", 3, 10))),
    ("coulomb", "q1*q2/(4*3.141592653589793*8.8541878128e-12*r^2)", (_v("q1", 1, 5), _v("q2", 1, 5), _v("r", 1, 5))),
    ("planck", "6.62607015e-34*omega^3/(3.141592653589793^2*c^2*(exp(6.62607015e-34*omega/(1.380649e-23*T))-1))",
     (_v("omega", 1e12, 1e14), _v("c", 1, 3), _v("T", 100, 1000))),
    ("bose-einstein", "1/(exp(omega/T)-1)", (_v("omega", 1, 5), _v("T", 1, 5))),
    ("fermi-dirac", "1/(exp((E-mu)/T)+1)", (_v("E", 1, 5), _v("mu", 1, 5), _v("T", 1, 5))),
    ("boltzmann", "n0*exp(-m*g*x/(k*T))", (_v("n0", 1, 5), _v("m", 1, 2), _v("g", 1, 2), _v("x", 1, 2), _v("k", 1, 2), _v("T", 1, 2))),
    ("kinetic", "m*(v^2+u^2+w^2)/2", (_v("m", 1, 5), _v("v", 1, 5), _v("u", 1, 5), _v("w", 1, 5))),
    ("interference", "I1+I2+2*sqrt(I1*I2)*cos(delta)", (_v("I1", 1, 5), _v("I2", 1, 5), _v("delta", 1, 5))),
    ("diffraction", "I0*sin(n*theta/2)^2/sin(theta/2)^2", (_v("I0", 1, 5), _v("n", 1, 5), _v("theta", 1, 5))),
    ("larmor", "q^2*a^2/(6*3.141592653589793*eps*c^3)", (_v("q", 1, 5), _v("a", 1, 5), _v("eps", 1, 5), _v("c", 1, 5))),
    ("doppler", "omega0/(1-v/c)", (_v("omega0", 1, 5), _v("v", 1, 2), _v("c", 3, 10))),
    ("lorentz-x", "(x-u*t)/sqrt(1-u^2/c^2)", (_v("x", 5, 10), _v("u", 1, 2), _v("t", 1, 2), _v("c", 3, 10))),
    ("oscillator-energy", "m*(omega^2+omega0^2)*x^2/4", (_v("m", 1, 5), _v("omega", 1, 5), _v("omega0", 1, 5), _v("x", 1, 5))),
    ("nernst", "k*T/q*log(n1/n2)", (_v("k", 1, 5), _v("T", 1, 5), _v("q", 1, 5), _v("n1", 6, 9), _v("n2", 1, 5))),
    ("magnetisation", "n*mu*tanh(mu*B/(k*T))", (_v("n", 1, 5), _v("mu", 1, 5), _v("B", 1, 5), _v("k", 1, 5), _v("T", 1, 5))),
    ("catenary", "a*cosh(x/a)", (_v("a", 1, 5), _v("x", 1, 5))),
    ("entropy-isothermal", "n*k*log(V2/V1)", (_v("n", 1, 5), _v("k", 1, 5), _v("V1", 1, 5), _v("V2", 6, 9))),
    ("pendulum", "2*3.141592653589793*sqrt(L/g)", (_v("L", 1, 5), _v("g", 1, 5))),
    ("kepler", "sqrt(4*3.141592653589793^2*a^3/(G*(m1+m2)))", (_v("a", 1, 5), _v("G", 1, 5), _v("m1", 1, 5), _v("m2", 1, 5))),
    ("wave", "A*cos(k*x-omega*t)", (_v("A", 1, 5), _v("k", 1, 5), _v("x", 1, 5), _v("omega", 1, 5), _v("t", 1, 5))),
    ("compton", "h/(m*c)*(1-cos(theta))", (_v("h", 1, 5), _v("m", 1, 5), _v("c", 1, 5), _v("theta", 1, 3))),
    ("dipole-field", "3*p*cos(theta)*sin(theta)/(4*3.141592653589793*eps*r^3)",
     (_v("p", 1, 5), _v("theta", 0.1, 1.5), _v("eps", 1, 5), _v("r", 1, 5))),
    ("malus", "I0*cos(theta)^2", (_v("I0", 1, 5), _v("theta", 0, 1.5))),
    ("projectile-height", "v^2*sin(theta)^2/(2*9.81)", (_v("v", 1, 10), _v("theta", 0.2, 1.3))),
    ("projectile-range", "v^2*sin(2*theta)/9.81", (_v("v", 1, 10), _v("theta", 0.2, 1.3))),
    ("standing-wave", "sin(2*3.141592653589793*x)^2", (_v("x", 0.05, 0.45),)),
    ("hyperbola", "sqrt(x^2-3.141592653589793^2*z^2)", (_v("x", 5, 10), _v("z", 0, 1))),
    ("rocket", "u*log(m0/m1)", (_v("u", 1, 5), _v("m0", 6, 9), _v("m1", 1, 5))),
    ("rayleigh", "8*3.141592653589793*nu^2*k*T/c^3", (_v("nu", 1, 5), _v("k", 1, 5), _v("T", 1, 5), _v("c", 1, 5))),
    ("lens", "1/(1/f-1/d)", (_v("f", 1, 2), _v("d", 3, 5))),
    ("drag-terminal", "sqrt(2*m*g/(rho*A*C))", (_v("m", 1, 5), _v("g", 1, 5), _v("rho", 1, 5), _v("A", 1, 5), _v("C", 1, 5))),
    ("damped", "A*exp(-g*t)*cos(omega*t)", (_v("A", 1, 5), _v("g", 0.1, 1), _v("t", 0, 5), _v("omega", 1, 5))),
]


def textbook_cases(rel_tol: float = 0.01) -> Iterator[Case]:
    for law_id, text, variables in TEXTBOOK:
        yield from _cases(law_id, infix_tree(text), variables, rel_tol)
