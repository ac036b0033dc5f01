"""Dimensional analysis against pint.

Random expressions over a few inputs with random units are written into a
card (`let e = EXPR`, `law y = k * e`) and computed independently with pint
quantities. The checker must accept exactly when pint does; when both do,
the let's dimension must equal pint's and the law's value (in the output's
unit) must equal pint's magnitude converted to that unit.

Modelling notes (legitimate differences between the language and pint):
- inputs are pint arrays of two distinct points, constants are scalars, so a
  non-constant exponent is an array exponent, which pint refuses on a
  dimensional base (LANGUAGE.md: a dimensional base needs a constant exponent);
- the checker's numeric lint (E7xx: undefined law, indistinguishable
  counterfactual) is not dimensional analysis; acceptance is judged by the
  static checker, and check_source may add E7xx errors only.
"""

from __future__ import annotations

import math

import numpy as np
import pint
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from scigame.compiler import check_source, parse_source
from scigame.compiler.checker import check_card
from scigame.compiler.diagnostics import Reporter
from scigame.compiler.source import SourceText
from scigame.compiler.units import Dim

UREG = pint.UnitRegistry()
Q = UREG.Quantity

UNITS = ["m", "s", "kg", "N", "J", "mol", "K", "deg", "cm", "mN", "1", "km/h", "kJ/mol", "rad"]
NAMES = ["a", "b", "c", "d"]
NUMBERS = [("0.5", 0.5), ("1.5", 1.5), ("2", 2.0), ("3", 3.0), ("0.25", 0.25), ("10", 10.0)]
LITERAL_UNITS = ["cm", "s", "N", "kg", "deg", "m"]
CONST_EXPONENTS = [("2", 2.0), ("3", 3.0), ("(-1)", -1.0), ("(1/2)", 0.5), ("0.5", 0.5),
                   ("(1/3)", 1 / 3), ("(-2)", -2.0), ("(2/3)", 2 / 3), ("0", 0.0), ("(1 + 1)", 2.0),
                   ("(3/2)", 1.5), ("-1", -1.0)]
FUNCS1 = ["sqrt", "cbrt", "sin", "exp", "log", "abs"]
FUNCS2 = ["min", "max", "atan2"]

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


# ---- expression trees --------------------------------------------------------------

def leaf(draw, names):
    kind = draw(st.sampled_from(["in", "in", "in", "num", "unum"]))
    if kind == "in":
        return ("in", draw(st.sampled_from(names)))
    text, value = draw(st.sampled_from(NUMBERS))
    unit = draw(st.sampled_from(LITERAL_UNITS)) if kind == "unum" else None
    return ("num", text, value, unit)


def same_dim(draw, t):
    """An expression with the dimension of t (to make sums etc. balance often)."""
    choice = draw(st.integers(0, 4))
    text, value = draw(st.sampled_from(NUMBERS))
    num = ("num", text, value, None)
    return [("bin", "*", t, num), ("neg", t), ("call", "abs", (t,)), ("bin", "/", t, num), t][choice]


@st.composite
def tree(draw, names, depth=3):
    if depth <= 0 or draw(st.integers(0, 4)) == 0:
        return leaf(draw, names)
    kind = draw(st.sampled_from(["bin", "bin", "neg", "pow", "pow", "call1", "call1", "call2"]))
    sub = tree(names, depth - 1)
    if kind == "neg":
        return ("neg", draw(sub))
    if kind == "bin":
        op = draw(st.sampled_from("+-*/"))
        left = draw(sub)
        right = same_dim(draw, left) if (op in "+-" and draw(st.booleans())) else draw(sub)
        return ("bin", op, left, right)
    if kind == "pow":
        base = draw(sub)
        if draw(st.integers(0, 3)) == 0:
            return ("pow", base, draw(sub))  # usually non-constant
        text, value = draw(st.sampled_from(CONST_EXPONENTS))
        return ("pow", base, ("num", text, value, None))
    if kind == "call1":
        fn = draw(st.sampled_from(FUNCS1))
        arg = draw(sub)
        if fn in ("sin", "exp", "log") and draw(st.booleans()):
            arg = ("bin", "/", arg, same_dim(draw, arg))  # a dimensionless ratio
        return ("call", fn, (arg,))
    fn = draw(st.sampled_from(FUNCS2))
    first = draw(sub)
    second = same_dim(draw, first) if draw(st.booleans()) else draw(sub)
    return ("call", fn, (first, second))


def render(t) -> str:
    kind = t[0]
    if kind == "in":
        return t[1]
    if kind == "num":
        return t[1] + (f" [{t[3]}]" if t[3] else "")
    if kind == "neg":
        return f"(-{render(t[1])})"
    if kind == "bin":
        return f"({render(t[2])} {t[1]} {render(t[3])})"
    if kind == "pow":
        return f"({render(t[1])})^{render(t[2]) if t[2][0] == 'num' else '(' + render(t[2]) + ')'}"
    return f"{t[1]}(" + ", ".join(render(a) for a in t[2]) + ")"


def has_input(t) -> bool:
    if t[0] == "in":
        return True
    if t[0] == "num":
        return False
    if t[0] == "neg":
        return has_input(t[1])
    if t[0] in ("bin",):
        return has_input(t[2]) or has_input(t[3])
    if t[0] == "pow":
        return has_input(t[1]) or has_input(t[2])
    return any(has_input(a) for a in t[2])


# ---- the pint oracle -----------------------------------------------------------------

class Rejected(Exception):
    pass


def _q(x):
    return x if isinstance(x, UREG.Quantity) else Q(x, "")


def _si(q):
    return np.asarray(_q(q).to_base_units().magnitude, dtype=float)


EPS = 2.2e-16


def pint_eval(t, env):
    """(Quantity, condition) where condition estimates how much the relative
    rounding error can be amplified (for the numeric comparison)."""
    kind = t[0]
    try:
        if kind == "in":
            return env[t[1]], np.ones(2)
        if kind == "num":
            # numpy scalars, so that (-0.5)^(1/2) is NaN as in the checker, not complex
            return Q(np.float64(t[2]), t[3] or ""), np.ones(2)
        if kind == "neg":
            v, c = pint_eval(t[1], env)
            return -v, c
        if kind == "bin":
            (l, cl), (r, cr) = pint_eval(t[2], env), pint_eval(t[3], env)
            op = t[1]
            with np.errstate(all="ignore"):
                if op == "+":
                    out = _q(l) + _q(r)
                elif op == "-":
                    out = _q(l) - _q(r)
                elif op == "*":
                    out = _q(l) * _q(r)
                else:
                    out = _q(l) / _q(r)
                if op in "+-":
                    sl, sr, so = np.abs(_si(l)), np.abs(_si(r)), np.abs(_si(out))
                    cond = (sl * cl + sr * cr) / so + 1
                else:
                    cond = cl + cr + 1
            return out, cond
        if kind == "pow":
            (b, cb), (p, cp) = pint_eval(t[1], env), pint_eval(t[2], env)
            pq = _q(p)
            if not has_input(t[2]):
                pq = np.float64(pq.to("").magnitude)  # a constant exponent is a plain number
            with np.errstate(all="ignore"):
                out = _q(b) ** pq
                pv = np.asarray(_q(pq).to("").magnitude, dtype=float)
                cond = np.abs(pv) * cb + np.abs(pv * np.log(np.abs(_si(b)))) * cp + 1
            return out, cond
        fn, args = t[1], t[2]
        vals = [pint_eval(a, env) for a in args]
        with np.errstate(all="ignore"):
            if fn in ("sqrt", "cbrt", "abs"):
                (x, cx), = vals
                out = {"sqrt": np.sqrt, "cbrt": np.cbrt, "abs": np.abs}[fn](_q(x))
                return out, cx + 1
            if fn in ("sin", "exp", "log"):
                (x, cx), = vals
                xq = _q(x)
                # pint raises DimensionalityError for a dimensional argument
                out = {"sin": np.sin, "exp": np.exp, "log": np.log}[fn](xq)
                xs = _si(xq)
                if fn == "sin":
                    cond = np.abs(xs * np.cos(xs) / np.sin(xs)) * cx + 1
                elif fn == "exp":
                    cond = np.abs(xs) * cx + 1
                else:
                    cond = cx / np.abs(np.log(xs)) + 1
                return _q(out), cond
            (x, cx), (y, cy) = vals
            if fn == "atan2":
                out = np.arctan2(_q(x), _q(y))
                xs, ys = _si(x), _si(y)
                cond = np.abs(xs * ys) / (xs ** 2 + ys ** 2) * (cx + cy) / np.abs(_si(out)) + 1
                return _q(out), cond
            out = (np.minimum if fn == "min" else np.maximum)(_q(x), _q(y))
            return out, np.maximum(cx, cy) + 1
    except pint.DimensionalityError as exc:
        raise Rejected(str(exc)) from None


# ---- the card ------------------------------------------------------------------------

_SI_SYMBOL = {"[length]": "m", "[mass]": "kg", "[time]": "s", "[substance]": "mol",
              "[temperature]": "K", "[current]": "A", "[luminosity]": "cd"}


def si_text(dimensionality) -> str:
    """The SI unit of a pint dimensionality, written by this test (not the compiler)."""
    from fractions import Fraction
    parts = []
    for name, power in sorted(dict(dimensionality).items()):
        if power == 0:
            continue
        p = Fraction(power).limit_denominator(1000)
        if abs(float(p) - power) > 1e-12 * max(1.0, abs(power)):
            parts.append(f"{_SI_SYMBOL[name]}^{float(power)!r}")  # e.g. x^(0.5 [deg])
        elif p.denominator != 1:
            parts.append(f"{_SI_SYMBOL[name]}^({p.numerator}/{p.denominator})")
        else:
            parts.append(f"{_SI_SYMBOL[name]}^{p.numerator}")
    return " ".join(parts) or "1"


def card_text(units: dict, expr: str, out_unit: str) -> str:
    inputs = "".join(f"  input {n} [{u}] in 0.5 .. 2\n" for n, u in units.items())
    out = "" if out_unit == "1" else f" [{out_unit}]"
    return (f'card t "dimension test" {{\n  collection historical\n  source "s"\n  background "b"\n'
            f"{inputs}  output y{out} tolerance abs 1e-300 rel 1%\n  param k = 1\n"
            f"  let e = {expr}\n  law y = k * e\n"
            f'  counterfactual "c" {{ scale k by 2 }}\n}}\n')


def static_check(text: str):
    """The static checker only (no numeric lint): (model or None, diagnostics)."""
    ast, diags = parse_source(text, "t.sci")
    assert ast is not None and not [d for d in diags if d.is_error], [(d.code, d.message) for d in diags]
    source = SourceText("t.sci", text)
    report = Reporter(source)
    model = check_card(ast, source, report)
    return model, report.sorted()


@st.composite
def scenario(draw):
    n = draw(st.integers(1, 4))
    names = NAMES[:n]
    units = {name: draw(st.sampled_from(UNITS)) for name in names}
    t = draw(tree(names, depth=draw(st.integers(1, 4))))
    points = draw(st.lists(st.tuples(st.floats(0.5, 1.2), st.floats(1.3, 2.0)).map(list),
                           min_size=n, max_size=n))
    scale = draw(st.sampled_from(["", " * percent", " * ppm", " * 1000"]))
    return units, t, points, scale


@SETTINGS
@given(scenario())
def test_checker_agrees_with_pint(data):
    units, t, points, scale = data
    expr = render(t)
    env = {name: Q(np.array(p, dtype=float), u if u != "1" else "") for (name, u), p in zip(units.items(), points)}
    try:
        value, cond = pint_eval(t, env)
        value = _q(value)
        pint_ok = True
    except Rejected as exc:
        pint_ok, reason = False, str(exc)

    if pint_ok:
        out_unit = si_text(value.dimensionality)
        if scale == " * 1000":
            out_unit = f"{out_unit} * km / m" if out_unit != "1" else "km/m"  # a factor of 1000
        elif scale and out_unit != "1":
            out_unit += scale
        elif scale:
            out_unit = scale.strip(" *")  # a dimensionless value shown in percent or ppm
    else:
        out_unit = "1"
    text = card_text(units, expr, out_unit)
    note(text)
    model, diags = static_check(text)
    errors = [d for d in diags if d.is_error]
    note([(d.code, d.message) for d in errors])
    let_line = text.split("\n").index(f"  let e = {expr}") + 1

    # check_source adds at most numeric-lint errors to the static ones. (A law that
    # uses no input and is not finite crashes the numeric lint: see
    # test_constant_non_finite_law_is_an_error_not_a_crash; such laws are skipped here.)
    if has_input(t) or not errors and not _constant_non_finite(model):
        full = check_source(text, "t.sci")
        extra = {d.code for d in full.errors} - {d.code for d in errors}
        assert all(code.startswith("E7") for code in extra), [(d.code, d.message) for d in full.errors]
        if errors:
            assert {d.code for d in full.errors} >= {d.code for d in errors}

    event("pint accepts" if pint_ok else "pint rejects")
    if not pint_ok:
        note(f"pint: {reason}")
        assert errors, f"pint rejects `{expr}` ({reason}) but the checker accepts it"
        # the fault is in the let itself, not (only) in the law's balance
        assert any(d.span.line == let_line for d in errors), [(d.code, d.span, d.message) for d in errors]
        return

    if not all(_simple(p) for p in dict(value.dimensionality).values()):
        # an irrational exponent, e.g. a^sin(0.5): no unit can be written that is exactly
        # the checker's rational dimension, so only the law may fail to balance
        event("irrational exponent")
        assert all(d.code == "E403" and d.span.line == let_line + 1 for d in errors), \
            [(d.code, d.span, d.message) for d in errors]
        return
    assert not errors, f"pint accepts `{expr}` as {value.dimensionality} but the checker says " + \
        "; ".join(f"{d.code} {d.message}" for d in errors)
    lets = dict(model.original.lets)
    assert lets["e"].dim == Dim.of(dict(value.dimensionality))

    inputs = {name: np.array(p, dtype=float) for name, p in zip(units, points)}
    got = np.broadcast_to(np.asarray(model.original.evaluate(model, inputs)["y"], dtype=float), (2,))
    got_cf = np.broadcast_to(np.asarray(model.counterfactual.evaluate(model, inputs)["y"], dtype=float), (2,))
    with np.errstate(all="ignore"):
        # value in SI over the output unit's SI factor (pint's `.to` can trip over
        # float exponents such as 0.3333333333333333 - 1 + 1)
        factor = float(Q(1.0, out_unit).to_base_units().magnitude)
        want = np.broadcast_to(np.asarray(value.to_base_units().magnitude, dtype=float) / factor, (2,))
    cond = np.broadcast_to(np.asarray(cond, dtype=float), (2,))
    for i in range(2):
        if not (math.isfinite(want[i]) and math.isfinite(cond[i])) or cond[i] * EPS > 1e-11:
            continue  # undefined, overflowed or ill-conditioned at this point
        if abs(want[i]) < 1e-280 or abs(want[i]) > 1e280:
            continue
        event("value compared")
        assert got[i] == pytest.approx(want[i], rel=1e-9), (i, expr, out_unit)
        assert got_cf[i] == pytest.approx(2 * want[i], rel=1e-9), (i, expr, out_unit)


def _simple(power) -> bool:
    from fractions import Fraction
    p = Fraction(float(power)).limit_denominator(1000)
    return abs(float(p) - power) <= 1e-12 * max(1.0, abs(power))


def _constant_non_finite(model) -> bool:
    out = model.original.evaluate(model, {n.name: np.array([1.0]) for n in model.inputs})["y"]
    return not np.all(np.isfinite(out))


# A regression test: the numeric lint once indexed the value of a constant law
# (a 0-d array), so a law that uses no input and is NaN/inf raised IndexError.
@pytest.mark.parametrize("law", ["k * sqrt(-1)", "k * log(0)", "k / 0"])
def test_constant_non_finite_law_is_an_error_not_a_crash(law):
    # the law uses no input (a and e are then merely unused: warnings)
    text = card_text({"a": "m"}, "a", "1").replace("law y = k * e", f"law y = {law}")
    result = check_source(text, "t.sci")
    assert result.card is None
    assert "E700" in {d.code for d in result.errors}


# ---- a few fixed cases, so the property's oracle is itself checked ---------------------

@pytest.mark.parametrize("expr,units,ok", [
    ("a + b", {"a": "m", "b": "cm"}, True),
    ("a + b", {"a": "m", "b": "s"}, False),
    ("(a)^(b)", {"a": "m", "b": "1"}, False),
    ("(a)^(b)", {"a": "1", "b": "1"}, True),
    ("(a)^(b)", {"a": "1", "b": "m"}, False),
    ("(a)^(1/2)", {"a": "m"}, True),
    ("sin(a)", {"a": "deg"}, True),
    ("sin(a)", {"a": "m"}, False),
    ("exp(a / b)", {"a": "m", "b": "cm"}, True),
    ("atan2(a, b)", {"a": "mN", "b": "N"}, True),
    ("atan2(a, b)", {"a": "mN", "b": "J"}, False),
    ("min(a, b)", {"a": "J", "b": "kJ/mol"}, False),
    ("cbrt(a * a * a)", {"a": "kg"}, True),
    ("(a)^(b / b)", {"a": "m", "b": "s"}, False),
])
def test_oracle_examples(expr, units, ok):
    env = {n: Q(np.array([0.7, 1.3]), u if u != "1" else "") for n, u in units.items()}
    try:
        # the oracle parses nothing: rebuild the same expression with pint directly
        value = eval(expr.replace("^", "**").replace("sin", "np.sin").replace("exp", "np.exp")
                     .replace("atan2", "np.arctan2").replace("min", "np.minimum")
                     .replace("cbrt", "np.cbrt"), {"np": np}, env)
        pint_ok = True
    except pint.DimensionalityError:
        pint_ok = False
    assert pint_ok == ok
    text = card_text(units, expr, si_text(_q(value).dimensionality) if ok else "1")
    model, diags = static_check(text)
    assert (model is not None) == ok, [(d.code, d.message) for d in diags]
