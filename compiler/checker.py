"""The checker: AST to typed model, or diagnostics.

It resolves names and units, enforces every dimensional rule of the language
in the original and in the counterfactual environment, solves `rebalance`,
and checks domains, outputs and protocol settings. It reports everything it
finds (not only the first problem) and never raises on a bad card.

A dimension of `None` means "unknown, already reported": operations on it
stay silent, so one bad unit does not produce a cascade of mismatches.
"""

from __future__ import annotations

import difflib
import math
import pathlib
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional

import numpy as np

from . import ast as A
from .counterfactual_checks import CounterfactualChecks
from .diagnostics import Reporter, register_function_names
from .model import (CheckedCard, ConstraintModel, Environment, InputModel, Mutation,
                    OutputModel, ParamValue, TBinary, TCall, TConst, TExpr, TRef, TUnary,
                    evaluate, refs)
from .printer import format_expr
from .source import SourceText, Span, content_hash
from .units import (DIMENSIONLESS, DIMENSIONLESS_UNIT, Dim, Unit, UnitError, format_si_unit,
                    known_unit_names, resolve_unit)

#: name -> (min args, max args or None); dimension rules are in _Typer.call.
FUNCTIONS: dict[str, tuple[int, Optional[int]]] = {
    **{f: (1, 1) for f in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                           "tanh", "exp", "log", "log10", "sqrt", "cbrt", "abs", "step", "sign")},
    "atan2": (2, 2), "min": (2, None), "max": (2, None),
}
_DIMENSIONLESS_FUNCTIONS = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                            "tanh", "exp", "log", "log10"}
register_function_names(FUNCTIONS)

_TODO = re.compile(r"\bTODO\b[^\n]*")

KEYWORDS = frozenset("""
    card collection field source doi published preprint background conditions input in log
    integer output resolution tolerance abs rel param let law constraint counterfactual set
    scale by rebalance fixed design seed evaluation identification interpolate adaptive
    threshold max_steps noise ood at magnitude differs""".split())
#: Measurement noise models an output may declare (`noise KIND rel R [abs A]`).
NOISE_KINDS = ("gaussian",)
_SINGLETONS = ("collection", "field", "source", "doi", "published", "preprint", "background")
COLLECTIONS = ("historical", "temporal")
#: Sizes beyond these are typos, and would only exhaust memory at compile time.
MAX_EVALUATION = 100_000
MAX_DESIGN = 10_000
MAX_SEED = 2**63 - 1
DESIGN_METHODS = ("sobol", "grid", "random")


def _suggest(name: str, options) -> list[str]:
    """The closest option, ignoring case (`g` finds `G`)."""
    options = sorted(options)
    exact_case = [o for o in options if o.lower() == name.lower() and o != name]
    if exact_case:
        return exact_case[:1]
    lowered = {o.lower(): o for o in options}
    return [lowered[m] for m in difflib.get_close_matches(name.lower(), sorted(lowered), n=1, cutoff=0.6)]


def _num(value: float) -> str:
    return f"{value:g}"


@dataclass
class _Symbol:
    name: str
    kind: str  # input output param let
    span: Span
    node: object
    dim: Optional[Dim] = None


@dataclass
class _EnvState:
    """What the typer needs to know about one environment."""

    name: str
    label: str  # "" for the original, the counterfactual's label otherwise
    param_values: dict[str, float]
    param_dims: dict[str, Optional[Dim]]
    lets: dict[str, A.Let]  # the definitions in force
    laws: dict[str, A.Law]
    typed_lets: dict[str, TExpr] = field(default_factory=dict)

    @property
    def note(self) -> Optional[str]:
        return f'in the counterfactual "{self.label}"' if self.name == "counterfactual" else None


class _Typer:
    """Types expressions of one environment.

    With `solve` set it records dimension equations that involve the
    placeholder dimensions of rebalanced params instead of reporting them
    (see `_solve_rebalance`).
    """

    def __init__(self, checker: "_Checker", env: _EnvState, report: Reporter,
                 solve: bool = False):
        self.c, self.env, self.report, self.solve = checker, env, report, solve
        self.equations: list[tuple[Dim, str]] = []  # (lhs/rhs must be dimensionless, where)

    # dimension equality, or an equation while solving -----------------------
    def same(self, a: Optional[Dim], b: Optional[Dim], where: str, fail: Callable[[], None]) -> bool:
        if a is None or b is None:
            return True
        if self.solve and _has_placeholder(a / b):
            self.equations.append((a / b, where))
            return True
        if a != b:
            fail()
            return False
        return True

    def expr(self, e: A.Expr) -> TExpr:
        if isinstance(e, A.Number):
            if e.unit is None:
                return TConst(e.value, DIMENSIONLESS, e.span)
            unit = self.c.unit(e.unit)
            if unit is None:
                return TConst(e.value, None, e.span)
            return TConst(e.value * unit.si_factor, unit.dim, e.span)
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.Unary):
            inner = self.expr(e.operand)
            return TUnary("neg", inner, inner.dim, e.span)
        if isinstance(e, A.Binary):
            return self.binary(e)
        return self.call(e)

    def name(self, e: A.Name) -> TExpr:
        if e.name == "pi":
            return TConst(math.pi, DIMENSIONLESS, e.span)
        sym = self.c.symbols.get(e.name)
        if sym is None:
            if e.name in FUNCTIONS:
                self.report.wrong_kind(e.span, e.name, "a function", "call it with parentheses",
                                       f"`{e.name}(...)`")
            else:
                self.report.unknown_name(e.span, e.name, _suggest(e.name, self.c.symbols))
            return TRef(e.name, "unknown", None, e.span)
        if sym.kind == "output":
            self.report.wrong_kind(e.span, e.name, "an output", "outputs cannot appear in expressions",
                                   "write the quantity you need as a `let` and use it in both laws")
            return TRef(e.name, "output", None, e.span)
        if sym.kind == "param":
            return TRef(e.name, "param", self.env.param_dims.get(e.name), e.span)
        if sym.kind == "let":
            typed = self.env.typed_lets.get(e.name)
            return TRef(e.name, "let", typed.dim if typed is not None else None, e.span)
        return TRef(e.name, "input", sym.dim, e.span)

    def binary(self, e: A.Binary) -> TExpr:
        left, right = self.expr(e.left), self.expr(e.right)
        if e.op in ("add", "sub"):
            word = "`+`" if e.op == "add" else "`-`"
            ok = self.same(left.dim, right.dim, f"{word} at {e.span.line}:{e.span.column}",
                           lambda: self.report.mismatch(e.span, word, left.dim, right.dim, self.env.note))
            # after a mismatch (or an operand already in error) the sum has no known
            # dimension, so later `+`s and the law's balance stay quiet: one mistake, one error
            dim = left.dim if ok and left.dim is not None and right.dim is not None else None
            return TBinary(e.op, left, right, dim, e.span)
        if e.op in ("mul", "div"):
            dim = None
            if left.dim is not None and right.dim is not None:
                dim = left.dim * right.dim if e.op == "mul" else left.dim / right.dim
            return TBinary(e.op, left, right, dim, e.span)
        return self.power(e, left, right)

    def power(self, e: A.Binary, base: TExpr, exponent: TExpr) -> TExpr:
        if exponent.dim is not None and not exponent.dim.dimensionless:
            if not (self.solve and _has_placeholder(exponent.dim)):
                self.report.dimensional_exponent(e.right.span, exponent.dim, self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        if base.dim is None or exponent.dim is None:
            return TBinary("pow", base, exponent, None, e.span)
        if base.dim.dimensionless:
            return TBinary("pow", base, exponent, DIMENSIONLESS, e.span)
        if not self.c.is_constant(exponent, self.env):
            self.report.variable_exponent(e.right.span, base.dim, self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        value = self.c.constant_value(exponent, self.env)
        if value is None or not math.isfinite(value):
            self.report.bad_exponent_value(e.right.span, "it is not a finite number", self.env.note)
            return TBinary("pow", base, exponent, None, e.span)
        return TBinary("pow", base, exponent, base.dim ** value, e.span)

    def call(self, e: A.Call) -> TExpr:
        args = tuple(self.expr(a) for a in e.args)
        if e.name not in FUNCTIONS:
            self.report.unknown_function(e.name_span, e.name, _suggest(e.name, FUNCTIONS))
            return TCall(e.name, args, None, e.span)
        lo, hi = FUNCTIONS[e.name]
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = (f"{lo} argument" + ("s" if lo > 1 else "")) if lo == hi else f"{lo} or more arguments"
            self.report.arity(e.span, e.name, want, len(args))
            return TCall(e.name, args, None, e.span)
        dims = [a.dim for a in args]
        if e.name in _DIMENSIONLESS_FUNCTIONS:
            d = dims[0]
            self.same(d, DIMENSIONLESS, f"`{e.name}` at {e.span.line}:{e.span.column}",
                      lambda: self.report.needs_dimensionless(e.args[0].span, e.name, d, self.env.note))
            return TCall(e.name, args, DIMENSIONLESS, e.span)
        if e.name in ("sqrt", "cbrt"):
            dim = dims[0] ** Fraction(1, 2 if e.name == "sqrt" else 3) if dims[0] is not None else None
            return TCall(e.name, args, dim, e.span)
        if e.name == "abs":
            return TCall(e.name, args, dims[0], e.span)
        if e.name in ("step", "sign"):
            return TCall(e.name, args, DIMENSIONLESS, e.span)
        # atan2, min, max: all arguments share one dimension
        first = dims[0]
        for arg, d in zip(e.args[1:], dims[1:]):
            self.same(first, d, f"`{e.name}` at {e.span.line}:{e.span.column}",
                      lambda d=d, arg=arg: self.report.mismatch(e.span, f"`{e.name}`", first, d, self.env.note))
        if e.name == "atan2":
            return TCall(e.name, args, DIMENSIONLESS, e.span)
        return TCall(e.name, args, first, e.span)


_PLACEHOLDER = "[rebalance "


def _placeholder(name: str) -> Dim:
    return Dim.of({f"{_PLACEHOLDER}{name}]": 1})


def _has_placeholder(dim: Dim) -> bool:
    return any(k.startswith(_PLACEHOLDER) for k, _ in dim.items)


class _Checker(CounterfactualChecks):
    def __init__(self, card: A.Card, source: SourceText, report: Reporter):
        self.card, self.source, self.report = card, source, report
        self.symbols: dict[str, _Symbol] = {}
        self.units: dict[A.UnitRef, Optional[Unit]] = {}
        self.inputs: list[A.Input] = []
        self.outputs: list[A.Output] = []
        self.params: list[A.Param] = []
        self.lets: dict[str, A.Let] = {}
        self.laws: dict[str, A.Law] = {}
        self.constraints: list[A.Constraint] = []
        self.counterfactual: Optional[A.Counterfactual] = None
        self.meta: dict[str, A.Meta] = {}
        self.conditions: list[str] = []
        self.design: Optional[A.Statement] = None
        self.evaluation: Optional[A.Evaluation] = None
        self.identification: Optional[A.Identification] = None
        self.adaptive: Optional[A.Adaptive] = None
        self.typed_constraints: list[ConstraintModel] = []
        self.magnitude: Optional[A.MagnitudeDiffers] = None

    # ---- helpers ---------------------------------------------------------------
    def unit(self, ref: Optional[A.UnitRef]) -> Optional[Unit]:
        """Resolve a unit, reporting a bad one once; None if it is bad."""
        if ref is None:
            return DIMENSIONLESS_UNIT
        if ref in self.units:
            return self.units[ref]
        try:
            unit = resolve_unit(ref.text)
        except UnitError as exc:
            if exc.kind == "offset":
                self.report.offset_unit(ref.span, ref.text)
            else:
                self.report.unknown_unit(ref.span, ref.text, str(exc),
                                         _suggest(ref.text, known_unit_names()) if ref.text.isidentifier() else [])
            unit = None
        self.units[ref] = unit
        return unit

    def is_constant(self, e: TExpr, env: _EnvState) -> bool:
        if isinstance(e, TConst):
            return True
        if isinstance(e, TRef):
            if e.role == "param":
                return True
            if e.role == "let":
                typed = env.typed_lets.get(e.name)
                return typed is not None and self.is_constant(typed, env)
            return False
        if isinstance(e, TUnary):
            return self.is_constant(e.operand, env)
        if isinstance(e, TBinary):
            return self.is_constant(e.left, env) and self.is_constant(e.right, env)
        return all(self.is_constant(a, env) for a in e.args)

    def constant_value(self, e: TExpr, env: _EnvState) -> Optional[float]:
        values: dict[str, object] = dict(env.param_values)
        needed = refs(e, "let")
        for name in list(needed):
            typed = env.typed_lets.get(name)
            if typed is None:
                return None
        try:
            with np.errstate(all="ignore"):
                for name, typed in env.typed_lets.items():
                    if self.is_constant(typed, env):
                        values[name] = evaluate(typed, values)
                return float(evaluate(e, values))
        except (KeyError, TypeError, ValueError, OverflowError):
            return None

    # ---- entry -------------------------------------------------------------------
    def run(self) -> Optional[CheckedCard]:
        self.collect()
        self.check_metadata()
        self.check_declarations()
        self.check_inputs()
        self.check_outputs()
        self.check_settings()
        original = self.original_state()
        orig_typed = self.type_environment(original, self.report)
        self.check_laws_cover_outputs()
        constraints = self.check_constraints(original)
        cf_state, cf_typed, mutations = self.counterfactual_environment(original, orig_typed)
        self.check_shared_constraints(original, cf_state)
        self.check_visible_text()
        self.check_usage(orig_typed, cf_typed)
        if self.report.has_errors:
            return None
        return self.model(original, orig_typed, cf_state, cf_typed, constraints, mutations)

    # ---- statements ----------------------------------------------------------------
    def collect(self) -> None:
        for st in self.card.statements:
            if isinstance(st, A.Meta):
                if st.key == "conditions":
                    self.conditions.append(st.value)
                elif st.key in self.meta:
                    self.report.repeated(st.span, st.key, self.meta[st.key].span)
                else:
                    self.meta[st.key] = st
            elif isinstance(st, A.Input):
                self.inputs.append(st)
                self.declare(st.name, "input", st.name_span, st)
            elif isinstance(st, A.Output):
                self.outputs.append(st)
                self.declare(st.name, "output", st.name_span, st)
            elif isinstance(st, A.Param):
                self.params.append(st)
                self.declare(st.name, "param", st.name_span, st)
            elif isinstance(st, A.Let):
                if self.declare(st.name, "let", st.name_span, st):
                    self.lets[st.name] = st
            elif isinstance(st, A.Law):
                if st.name in self.laws:
                    self.report.second_law(st.span, st.name, self.laws[st.name].span)
                else:
                    self.laws[st.name] = st
            elif isinstance(st, A.Constraint):
                self.constraints.append(st)
            elif isinstance(st, A.Counterfactual):
                if self.counterfactual is not None:
                    self.report.second_counterfactual(st.span, self.counterfactual.span)
                else:
                    self.counterfactual = st
            elif isinstance(st, (A.DesignGenerated, A.DesignExplicit)):
                self.single("fixed design", "design", st)
            elif isinstance(st, A.Evaluation):
                self.single("evaluation", "evaluation", st)
            elif isinstance(st, A.Identification):
                self.single("identification", "identification", st)
            elif isinstance(st, A.Adaptive):
                self.single("adaptive", "adaptive", st)

    def single(self, what: str, attr: str, st) -> None:
        first = getattr(self, attr)
        if first is not None:
            self.report.repeated(st.span, what, first.span)
        else:
            setattr(self, attr, st)

    def declare(self, name: str, kind: str, span: Span, node) -> bool:
        if name in KEYWORDS:
            self.report.reserved(span, name, "a keyword of the language")
        elif name in FUNCTIONS:
            self.report.reserved(span, name, "a function name")
        elif name == "pi":
            self.report.reserved(span, name, "the constant π")
        if name in self.symbols:
            first = self.symbols[name]
            self.report.duplicate(span, name, first.span, f"{'an' if first.kind[0] in 'aeiou' else 'a'} {first.kind}")
            return False
        self.symbols[name] = _Symbol(name, kind, span, node)
        return True

    def check_metadata(self) -> None:
        head = self.card.name_span
        col = self.meta.get("collection")
        if col is None:
            self.report.missing(head, "collection", "collection historical")
        elif col.value not in COLLECTIONS:
            self.report.bad_choice(col.value_span, "collection", col.value, COLLECTIONS,
                                   (_suggest(col.value, COLLECTIONS) or [None])[0])
        if "source" not in self.meta:
            self.report.missing(head, "source", 'source "A. Author, Journal 1, 1 (1900)"')
        if "background" not in self.meta:
            self.report.no_background(head)
        if col is not None and col.value == "temporal":
            for key in ("published", "preprint"):
                if key not in self.meta:
                    self.report.missing_dates(head, key)
        stem = pathlib.PurePath(self.source.path).stem
        if self.source.path.endswith(".sci") and stem != self.card.name:
            self.report.stem_mismatch(head, stem, self.card.name)
        self.check_placeholders()

    def check_placeholders(self) -> None:
        """Text still holding a `TODO` (as `scigame new` writes the skeleton)."""
        def look(span, what: str, text: str) -> None:
            m = _TODO.search(text)
            if m:
                self.report.placeholder(span, what, (m.group(0)[:40] + "...") if len(m.group(0)) > 40
                                        else m.group(0))
        look(self.card.name_span, "the title", self.card.title)
        for st in self.card.statements:
            if isinstance(st, A.Meta):
                look(st.value_span, f"`{st.key}`", st.value)
            elif isinstance(st, (A.Input, A.Output, A.Param)):
                look(st.name_span, f"the description of `{st.name}`", st.description)
            elif isinstance(st, A.Counterfactual):
                look(st.label_span, "the counterfactual's label", st.label)

    def check_declarations(self) -> None:
        for sym in self.symbols.values():
            if sym.kind == "input":
                unit = self.unit(sym.node.unit)
                sym.dim = unit.dim if unit else None
            elif sym.kind in ("output", "param"):
                unit = self.unit(sym.node.unit)
                sym.dim = unit.dim if unit else None

    def check_inputs(self) -> None:
        for inp in self.inputs:
            d = inp.domain
            if isinstance(d, A.SetDomain):
                seen: dict[float, A.Literal] = {}
                for v in d.values:
                    if v.value in seen:
                        self.report.repeated_value(v.span, inp.name, v.text)
                    seen[v.value] = v
                continue
            lo, hi = d.lo.value, d.hi.value
            if not lo < hi:
                self.report.empty_domain(d.span, inp.name, f"the lower bound {d.lo.text} is not below "
                                                           f"the upper bound {d.hi.text}")
            elif d.kind == "log" and lo <= 0:
                self.report.log_domain(d.lo.span, inp.name, d.lo.text)
            elif d.kind == "integer" and math.ceil(lo) > math.floor(hi):
                self.report.empty_domain(d.span, inp.name, f"no integer lies in {d.lo.text} .. {d.hi.text}")

    def check_outputs(self) -> None:
        for out in self.outputs:
            if out.resolution is not None and out.resolution.value <= 0:
                self.report.bad_resolution(out.resolution.span, out.name, out.resolution.text)
            if out.tol_abs.value <= 0:
                self.report.bad_tolerance(out.tol_abs.span, out.name, "abs", out.tol_abs.text)
            if out.tol_rel.value < 0:
                self.report.bad_tolerance(out.tol_rel.span, out.name, "rel", out.tol_rel.text)
            if (out.resolution is not None and out.resolution.value > 0 and out.tol_abs.value > 0
                    and out.resolution.value > out.tol_abs.value):
                self.report.coarse_resolution(out.resolution.span, out.name, out.resolution.text,
                                              out.tol_abs.text)
            if out.noise is not None:
                self.check_noise(out.name, out.noise)

    def check_noise(self, output: str, noise: A.Noise) -> None:
        if noise.kind not in NOISE_KINDS:
            self.report.bad_choice(noise.kind_span, "noise model", noise.kind, NOISE_KINDS,
                                   (_suggest(noise.kind, NOISE_KINDS) or [None])[0])
        for which, lit in (("rel", noise.rel), ("abs", noise.abs)):
            if lit is not None and lit.value < 0:
                self.report.bad_noise(lit.span, output, which, lit.text)

    def whole(self, lit: Optional[A.Literal], what: str, minimum: int,
              maximum: Optional[int] = None) -> Optional[int]:
        if lit is None:
            return None
        if lit.value != int(lit.value):
            self.report.not_whole(lit.span, what, lit.text)
            return None
        if lit.value < minimum or (maximum is not None and lit.value > maximum):
            allowed = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
            self.report.out_of_range(lit.span, what, lit.text, allowed)
            return None
        return int(lit.value)

    def check_settings(self) -> None:
        d = self.design
        if isinstance(d, A.DesignGenerated):
            self.whole(d.count, "the design size", 1, MAX_DESIGN)
            self.whole(d.seed, "the seed", 0, MAX_SEED)
            if d.method not in DESIGN_METHODS:
                self.report.bad_choice(d.method_span, "design method", d.method, DESIGN_METHODS,
                                       (_suggest(d.method, DESIGN_METHODS) or [None])[0])
        elif isinstance(d, A.DesignExplicit):
            self.check_explicit_design(d)
        if self.evaluation is not None:
            self.whole(self.evaluation.count, "the evaluation size", 1, MAX_EVALUATION)
            self.whole(self.evaluation.seed, "the seed", 0, MAX_SEED)
            ood = self.evaluation.ood
            if ood is not None and not ood.value > 1:
                self.report.bad_ood_factor(ood.span, ood.text)
        if self.identification is not None and self.identification.value not in ("yes", "no"):
            self.report.bad_choice(self.identification.value_span, "value for `interpolate`",
                                   self.identification.value, ("yes", "no"))
        if self.adaptive is not None:
            tau = self.adaptive.threshold
            if not 0 < tau.value <= 1:
                self.report.out_of_range(tau.span, "the adaptive threshold", tau.text,
                                         "above 0 and at most 1")
            self.whole(self.adaptive.max_steps, "max_steps", 1)

    def check_explicit_design(self, d: A.DesignExplicit) -> None:
        inputs = {i.name: i for i in self.inputs}
        for point, pspan in zip(d.points, d.point_spans):
            given: dict[str, A.Assignment] = {}
            for a in point:
                if a.name not in inputs:
                    self.report.bad_design(a.span, f"`{a.name}` is not an input")
                    continue
                if a.name in given:
                    self.report.bad_design(a.span, f"`{a.name}` is given twice in one experiment")
                    continue
                given[a.name] = a
                why = _outside_domain(inputs[a.name].domain, a.value.value)
                if why:
                    self.report.bad_design(a.value.span, f"{a.name} = {a.value.text} {why}")
            missing = [n for n in inputs if n not in given]
            if missing:
                self.report.bad_design(pspan, "this experiment does not set " +
                                       ", ".join(f"`{m}`" for m in missing))

    # ---- environments ---------------------------------------------------------------
    def original_state(self) -> _EnvState:
        values, dims = {}, {}
        for p in self.params:
            unit = self.unit(p.unit)
            values[p.name] = p.value.value * (unit.si_factor if unit else 1.0)
            dims[p.name] = unit.dim if unit else None
        return _EnvState("original", "", values, dims, dict(self.lets),
                         {k: v for k, v in self.laws.items()})

    def let_order(self, env: _EnvState, report: Reporter) -> list[str]:
        """Lets in dependency order. A cycle is reported once; its lets, and
        lets that depend on them, are left out (they stay untyped)."""
        deps = {name: {n for n in _names(let.expr) if n in env.lets} for name, let in env.lets.items()}
        order: list[str] = []
        state: dict[str, int] = {}  # 1 on the current path, 2 done
        cyclic: set[str] = set()
        for root in sorted(env.lets, key=lambda n: (env.lets[n].span.line, env.lets[n].span.column)):
            if state.get(root):
                continue
            stack = [(root, iter(sorted(deps[root])))]
            path = [root]
            state[root] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    path.pop()
                    state[node] = 2
                    order.append(node)
                elif state.get(nxt) == 1:
                    cyc = path[path.index(nxt):] + [nxt]
                    report.cycle(env.lets[nxt].name_span, cyc)
                    cyclic.update(cyc)
                elif not state.get(nxt):
                    state[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, iter(sorted(deps[nxt]))))
        tainted = set(cyclic)
        for name in order:  # dependency order: a let that uses a tainted one is tainted
            if deps[name] & tainted:
                tainted.add(name)
        return [n for n in order if n not in tainted]

    def type_environment(self, env: _EnvState, report: Reporter,
                         solve: bool = False) -> tuple[dict[str, TExpr], dict[str, TExpr], _Typer]:
        typer = _Typer(self, env, report, solve)
        env.typed_lets = {}
        for name in self.let_order(env, report):
            env.typed_lets[name] = typer.expr(env.lets[name].expr)
        laws: dict[str, TExpr] = {}
        for name, law in env.laws.items():
            sym = self.symbols.get(name)
            if sym is None or sym.kind != "output":
                if env.name == "original":
                    self.report_stray_law(law, sym, report)
                continue
            typed = typer.expr(law.expr)
            laws[name] = typed
            unit_text = sym.node.unit.text if sym.node.unit else "1"
            typer.same(typed.dim, sym.dim, f"law {name}",
                       lambda typed=typed, law=law, sym=sym, unit_text=unit_text: report.law_mismatch(
                           law.expr.span, law.name, unit_text, typed.dim, sym.dim, env.note))
        return env.typed_lets, laws, typer

    def report_stray_law(self, law: A.Law, sym: Optional[_Symbol], report: Reporter) -> None:
        kind = None if sym is None else f"{'an' if sym.kind[0] in 'aeiou' else 'a'} {sym.kind}"
        outputs = [s for s in self.symbols.values() if s.kind == "output"]
        report.stray_law(law.name_span, law.name, kind,
                         _suggest(law.name, [o.name for o in outputs]) if sym is None else [])

    def check_laws_cover_outputs(self) -> None:
        for out in self.outputs:
            if out.name not in self.laws and self.symbols.get(out.name, None) is not None \
                    and self.symbols[out.name].node is out:
                self.report.no_law(out.name_span, out.name)

    def check_constraints(self, env: _EnvState) -> list[ConstraintModel]:
        typer = _Typer(self, env, self.report)
        out = []
        for c in self.constraints:
            left, right = typer.expr(c.left), typer.expr(c.right)
            for side in (c.left, c.right):
                for node in _walk(side):
                    sym = self.symbols.get(node.name) if isinstance(node, A.Name) else None
                    if sym is not None and sym.kind == "let":
                        self.report.wrong_kind(node.span, node.name, "a let",
                                               "a constraint may use inputs and params only",
                                               "write the let's expression out in the constraint")
            typer.same(left.dim, right.dim, "constraint",
                       lambda c=c, left=left, right=right: self.report.mismatch(
                           c.span, f"the constraint's `{c.op}`", left.dim, right.dim))
            text = f"{format_expr(c.left)} {c.op} {format_expr(c.right)}"
            out.append(ConstraintModel(left, c.op, right, c.message, text, c.span))
        self.typed_constraints = out
        return out

    # ---- the counterfactual ------------------------------------------------------------
    def counterfactual_environment(self, original: _EnvState, orig_typed):
        cf = self.counterfactual
        if cf is None:
            self.report.no_counterfactual(self.card.name_span)
            return None, None, []
        env = _EnvState("counterfactual", cf.label, dict(original.param_values),
                        dict(original.param_dims), dict(original.lets), dict(original.laws))
        if not cf.mutations:
            self.report.empty_counterfactual(cf.span, cf.label)
            return None, None, []
        mutations: list[Mutation] = []
        rebalanced: dict[str, A.RebalanceMutation] = {}
        changed_by: dict[str, A.Mutation] = {}  # param -> last set/scale/rebalance
        for m in cf.mutations:
            if isinstance(m, (A.SetMutation, A.ScaleMutation, A.RebalanceMutation)):
                verb = {A.SetMutation: "set", A.ScaleMutation: "scale", A.RebalanceMutation: "rebalance"}[type(m)]
                sym = self.symbols.get(m.name)
                if sym is None:
                    self.report.unknown_name(m.name_span, m.name,
                                             _suggest(m.name, [p.name for p in self.params]))
                    continue
                if sym.kind != "param":
                    self.report.bad_target(m.name_span, f"`{verb} {m.name}`: `{m.name}` is {_article(sym.kind)}, "
                                                        "but only params can be changed this way",
                                           ["use `law` or `let` inside the counterfactual to replace an expression"])
                    continue
                changed_by[m.name] = m
                if isinstance(m, A.SetMutation):
                    unit = self.unit(m.unit)
                    old_dim = env.param_dims.get(m.name)
                    if unit is None:
                        env.param_dims[m.name] = None
                        continue
                    if m.unit is None and old_dim is not None and not old_dim.dimensionless and m.value.value != 0:
                        self.report.set_unit(m.value.span, m.name, old_dim, DIMENSIONLESS)
                        continue
                    env.param_values[m.name] = m.value.value * unit.si_factor
                    if m.unit is not None:
                        env.param_dims[m.name] = unit.dim
                    mutations.append(Mutation("set", m.name, f"set {m.name} = {m.value.text}"
                                              + (f" [{m.unit.text}]" if m.unit else ""), m.span))
                elif isinstance(m, A.ScaleMutation):
                    if m.factor.value == 0:
                        self.report.out_of_range(m.factor.span, "a scale factor", m.factor.text, "non-zero")
                        continue
                    env.param_values[m.name] *= m.factor.value
                    mutations.append(Mutation("scale", m.name, f"scale {m.name} by {m.factor.text}", m.span))
                else:
                    rebalanced[m.name] = m
                    mutations.append(Mutation("rebalance", m.name, _mutation_text(m), m.span))
            elif isinstance(m, A.MagnitudeDiffers):
                self.acknowledge_magnitude(m)
            elif isinstance(m, A.Let):
                if m.name not in original.lets:
                    sym = self.symbols.get(m.name)
                    why = (f"`{m.name}` is {_article(sym.kind)}" if sym else f"`{m.name}` is not declared")
                    self.report.bad_target(m.name_span, f"a counterfactual `let` replaces an existing let, but {why}",
                                           [f"declare `let {m.name} = ...` in the card, or change a param instead"])
                    continue
                env.lets[m.name] = m
                mutations.append(Mutation("let", m.name, f"let {m.name} = {format_expr(m.expr)}", m.span))
            elif isinstance(m, A.Law):
                sym = self.symbols.get(m.name)
                if sym is None or sym.kind != "output":
                    self.report_stray_law(m, sym, self.report)
                    continue
                env.laws[m.name] = m
                mutations.append(Mutation("law", m.name, f"law {m.name} = {format_expr(m.expr)}", m.span))

        if rebalanced:
            self._solve_rebalance(env, rebalanced)

        cf_report = Reporter(self.source)
        typed_lets, laws, _ = self.type_environment(env, cf_report)
        self._merge_counterfactual_report(cf_report, env, changed_by, rebalanced)
        self.solve_references(original, orig_typed, env, (typed_lets, laws), rebalanced)

        if not self.report.has_errors and orig_typed is not None:
            self._check_noop(cf, original, env)
        return env, (typed_lets, laws), mutations

    def _solve_rebalance(self, env: _EnvState, rebalanced: dict[str, A.RebalanceMutation]) -> None:
        """Find the unit of each rebalanced param that makes every law balance.

        Each rebalanced param gets a placeholder base dimension; typing the
        environment then yields equations `X · P^k = 1`; one unknown with a
        non-zero power in an equation is solved, substituted, and so on.
        """
        old = {n: env.param_dims.get(n) for n in rebalanced}
        trial = _EnvState(env.name, env.label, dict(env.param_values), dict(env.param_dims),
                          dict(env.lets), dict(env.laws))
        for name in rebalanced:
            trial.param_dims[name] = _placeholder(name)
        silent = Reporter(self.source)
        _, _, typer = self.type_environment(trial, silent, solve=True)
        solved, where = _solve(typer.equations, list(rebalanced))
        for name, m in rebalanced.items():
            if name in where and where[name] == "conflict":
                self.report.rebalance_failed(m.span, name, "the laws ask for different units; "
                                             "no single unit balances them all")
                env.param_dims[name] = None
                continue
            if name not in solved and m.reference:
                env.param_dims[name] = old[name]  # `at` alone moves the value; the unit may stay
                continue
            if name not in solved:
                self.report.rebalance_failed(m.span, name, f"the unit of `{name}` does not affect whether "
                                             "any law balances, so there is nothing to rebalance")
                env.param_dims[name] = None
                continue
            env.param_dims[name] = solved[name]
            if solved[name] != old[name]:
                before = format_si_unit(old[name]) if old[name] is not None else "?"
                self.report.rebalanced(m.span, name, before, format_si_unit(solved[name]))

    def _merge_counterfactual_report(self, cf_report: Reporter, env: _EnvState,
                                     changed_by: dict, rebalanced: dict) -> None:
        """Keep the counterfactual's own findings: not those the original has
        already reported. A law or `+` the mutations unbalanced is reported
        at the mutation, with the law as the second place and a rebalance hint."""
        seen = {(d.code, d.span) for d in self.report.items}
        for d in cf_report.items:
            if (d.code, d.span) in seen:
                continue
            if d.code in ("E402", "E403") and not self._in_counterfactual_block(d.span):
                culprit = self._culprit(d.span, env, changed_by)
                if culprit is not None:
                    hint = self._rebalance_hint(env, rebalanced, exclude={culprit.name})
                    hints = ([f"add `rebalance {hint}` to the counterfactual block so `{hint}` takes "
                              "the unit that balances the law"] if hint else []) + list(d.hints)
                    mtext = _mutation_text(culprit)
                    self.report.items.append(d.model_copy(update={
                        "span": culprit.span,
                        "notes": d.notes + (f"`{mtext}` changes the dimension of this expression",),
                        "hints": tuple(hints),
                        "related": d.related + (_related(d.span, "this no longer balances"),),
                    }))
                    continue
            self.report.items.append(d)

    def _in_counterfactual_block(self, span: Span) -> bool:
        cf = self.counterfactual
        return cf is not None and (cf.span.line, cf.span.column) <= (span.line, span.column) <= \
            (cf.span.end_line, cf.span.end_column)

    def _culprit(self, span: Span, env: _EnvState, changed_by: dict):
        """The last set/scale of a param used inside the expression at `span`."""
        names = set()
        for law in env.laws.values():
            for node in _walk(law.expr):
                if node.span == span:
                    names = _names(node)
        for let in env.lets.values():
            for node in _walk(let.expr):
                if node.span == span:
                    names = _names(node)
        reached = _closure(names, env)
        hits = [m for p, m in changed_by.items() if p in reached and isinstance(m, A.SetMutation)]
        return max(hits, key=lambda m: (m.span.line, m.span.column)) if hits else None

    def _rebalance_hint(self, env: _EnvState, rebalanced: dict, exclude: set[str]) -> Optional[str]:
        """A param whose rebalancing would make every law balance, if one
        exists (never the param the culprit mutation changed: rebalancing it
        would undo that change)."""
        candidates = [p.name for p in self.params
                      if p.name not in rebalanced and p.name not in exclude
                      and env.param_dims.get(p.name) is not None
                      and not env.param_dims[p.name].dimensionless]
        for name in candidates:
            trial = _EnvState(env.name, env.label, dict(env.param_values), dict(env.param_dims),
                              dict(env.lets), dict(env.laws))
            trial.param_dims[name] = _placeholder(name)
            silent = Reporter(self.source)
            _, _, typer = self.type_environment(trial, silent, solve=True)
            if silent.has_errors:
                continue
            solved, where = _solve(typer.equations, [name])
            if name in solved and where.get(name) != "conflict":
                return name
        return None

    def _check_noop(self, cf: A.Counterfactual, original: _EnvState, env: _EnvState) -> None:
        reach = _reachable(env) | _reachable(original)
        changed = [n for n in env.param_values
                   if (env.param_values[n] != original.param_values[n]
                       or env.param_dims.get(n) != original.param_dims.get(n)) and n in reach]
        changed += [n for n in env.lets if format_expr(env.lets[n].expr) != format_expr(original.lets[n].expr)
                    and n in reach]
        changed += [n for n in env.laws
                    if n in original.laws and format_expr(env.laws[n].expr) != format_expr(original.laws[n].expr)]
        if not changed:
            self.report.noop_counterfactual(cf.label_span, cf.label,
                                            "no law, let or param that a law uses is changed")

    # ---- usage -----------------------------------------------------------------------
    def check_usage(self, orig_typed, cf_typed) -> None:
        used: set[str] = set()
        for typed in (orig_typed, cf_typed):
            if typed is None:
                continue
            lets, laws = typed[0], typed[1]
            frontier = set()
            for law in laws.values():
                frontier |= refs(law)
            while frontier:
                n = frontier.pop()
                if n in used:
                    continue
                used.add(n)
                if n in lets:
                    frontier |= refs(lets[n])
        for c in self.constraints:
            used |= _names(c.left) | _names(c.right)
        if self.report.has_errors:
            return  # unused-name warnings are noise next to errors
        for sym in self.symbols.values():
            if sym.name in used:
                continue
            if sym.kind == "input":
                self.report.unused_input(sym.span, sym.name)
            elif sym.kind == "param":
                self.report.unused_param(sym.span, sym.name)
            elif sym.kind == "let":
                self.report.unused_let(sym.span, sym.name)

    # ---- the model --------------------------------------------------------------------
    def model(self, original, orig_typed, cf_env, cf_typed, constraints, mutations) -> CheckedCard:
        def environment(state: _EnvState, typed) -> Environment:
            lets, laws = typed[0], typed[1]
            order = [n for n in self.let_order(state, Reporter(self.source)) if n in lets]
            params = {}
            for p in self.params:
                dim = state.param_dims[p.name]
                own_unit = self.unit(p.unit)
                unit_text = (p.unit.text if p.unit else "1") if dim == own_unit.dim else format_si_unit(dim)
                params[p.name] = ParamValue(p.name, state.param_values[p.name], dim, unit_text, p.span)
            return Environment(state.name, params, tuple((n, lets[n]) for n in order), dict(laws))

        inputs = []
        for i in self.inputs:
            unit = self.unit(i.unit)
            d = i.domain
            if isinstance(d, A.SetDomain):
                vals = tuple(sorted(v.value for v in d.values))
                inputs.append(InputModel(i.name, unit, "set", vals[0], vals[-1], vals, i.description, i.span))
            else:
                inputs.append(InputModel(i.name, unit, d.kind, d.lo.value, d.hi.value, (), i.description, i.span))
        outputs = [OutputModel(o.name, self.unit(o.unit), o.resolution.value if o.resolution else None,
                               o.tol_abs.value, o.tol_rel.value, o.description, o.span,
                               o.noise.rel.value if o.noise else None,
                               o.noise.abs.value if o.noise and o.noise.abs else 0.0,
                               o.noise.span if o.noise else None)
                   for o in self.outputs]
        meta = {k: v.value for k, v in self.meta.items()}
        d = self.design
        if isinstance(d, A.DesignExplicit):
            points = tuple({a.name: a.value.value for a in p} for p in d.points)
            method, size, seed = None, len(points), 0
        else:
            points = ()
            method = d.method if d else "sobol"
            size = int(d.count.value) if d else 4
            seed = int(d.seed.value) if d and d.seed else 0
        ev = self.evaluation
        ad = self.adaptive
        return CheckedCard(
            name=self.card.name, title=self.card.title, path=self.source.path,
            content_hash=content_hash(self.source.text),
            collection=meta.get("collection", ""), field=meta.get("field", ""),
            source=meta.get("source", ""), doi=meta.get("doi", ""),
            published=meta.get("published"), preprint=meta.get("preprint"),
            background=meta.get("background", ""), conditions=tuple(self.conditions),
            inputs=tuple(inputs), outputs=tuple(outputs), constraints=tuple(constraints),
            original=environment(original, orig_typed), counterfactual=environment(cf_env, cf_typed),
            counterfactual_label=self.counterfactual.label, mutations=tuple(mutations),
            design_method=method, design_size=size, design_seed=seed, design_points=points,
            evaluation_size=int(ev.count.value) if ev else 256,
            evaluation_seed=int(ev.seed.value) if ev and ev.seed else 0,
            evaluation_ood=ev.ood.value if ev and ev.ood else None,
            interpolate=(self.identification.value == "yes") if self.identification else False,
            threshold=ad.threshold.value if ad else 0.9,
            max_steps=int(ad.max_steps.value) if ad and ad.max_steps else None,
            counterfactual_span=self.counterfactual.label_span,
            magnitude_reason=self.magnitude.reason if self.magnitude else None,
            magnitude_span=self.magnitude.span if self.magnitude else None,
            law_spans={**{("original", n): law.span for n, law in original.laws.items()},
                       **{("counterfactual", n): law.span for n, law in cf_env.laws.items()}},
        )


# ---- small helpers -----------------------------------------------------------------

def _article(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _related(span: Span, message: str):
    from .diagnostics import Related
    return Related(span=span, message=message)


def _mutation_text(m) -> str:
    if isinstance(m, A.SetMutation):
        return f"set {m.name} = {m.value.text}" + (f" [{m.unit.text}]" if m.unit else "")
    if isinstance(m, A.ScaleMutation):
        return f"scale {m.name} by {m.factor.text}"
    if isinstance(m, A.RebalanceMutation) and m.reference:
        return f"rebalance {m.name} at " + ", ".join(
            f"{r.name} = {r.value.text}" + (f" [{r.unit.text}]" if r.unit else "") for r in m.reference)
    return f"rebalance {m.name}"


def _walk(e: A.Expr):
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, A.Unary):
            stack.append(n.operand)
        elif isinstance(n, A.Binary):
            stack.extend((n.left, n.right))
        elif isinstance(n, A.Call):
            stack.extend(n.args)


def _names(e: A.Expr) -> set[str]:
    return {n.name for n in _walk(e) if isinstance(n, A.Name)}


def _closure(names: set[str], env: _EnvState) -> set[str]:
    """The names given and every name the lets among them use, transitively."""
    frontier, seen = set(names), set()
    while frontier:
        n = frontier.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in env.lets:
            frontier |= _names(env.lets[n].expr)
    return seen


def _reachable(env: _EnvState) -> set[str]:
    """Every name the laws of an environment use, through lets."""
    return _closure(set().union(*(_names(law.expr) for law in env.laws.values())), env)


def _outside_domain(d: A.Domain, v: float) -> Optional[str]:
    if isinstance(d, A.SetDomain):
        allowed = [x.value for x in d.values]
        return None if v in allowed else "is not one of " + ", ".join(x.text for x in d.values)
    if not d.lo.value <= v <= d.hi.value:
        return f"is outside {d.lo.text} .. {d.hi.text}"
    if d.kind == "integer" and v != int(v):
        return "is not an integer"
    return None


def _solve(equations: list[tuple[Dim, str]], unknowns: list[str]):
    """Solve `X · Π P_i^k_i = dimensionless` equations for the placeholder
    dimensions P_i. Returns (solutions, flags) where flags marks conflicts."""
    solved: dict[str, Dim] = {}
    flags: dict[str, str] = {}
    keys = {f"{_PLACEHOLDER}{n}]": n for n in unknowns}
    pending = list(equations)
    progress = True
    while pending and progress:
        progress = False
        rest = []
        for eq, where in pending:
            # substitute what is known
            known = Dim.of({k: v for k, v in eq.items if k not in keys})
            unknown_powers = {}
            for k, v in eq.items:
                if k in keys:
                    name = keys[k]
                    if name in solved:
                        known = known * solved[name] ** v
                    else:
                        unknown_powers[name] = v
            if not unknown_powers:
                if not known.dimensionless:
                    for n in unknowns:
                        if n in solved and f"{_PLACEHOLDER}{n}]" in dict(eq.items):
                            flags[n] = "conflict"
                continue
            if len(unknown_powers) > 1:
                rest.append((eq, where))
                continue
            (name, power), = unknown_powers.items()
            solved[name] = Dim.of({k: -v / power for k, v in known.items})
            progress = True
        pending = rest
    return solved, flags


def check_card(card: A.Card, source: SourceText, report: Reporter) -> Optional[CheckedCard]:
    """Check a card's AST; report every problem; return the typed model if
    there are no errors."""
    return _Checker(card, source, report).run()
