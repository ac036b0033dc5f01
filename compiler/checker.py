"""The checker: AST to typed model, or diagnostics.

It resolves names and units, enforces every dimensional rule of the language
in the original and in the counterfactual environment (typer.py), applies
and checks the counterfactual (counterfactual.py, counterfactual_checks.py),
and checks domains, outputs and protocol settings. It reports everything it
finds (not only the first problem) and never raises on a bad card. Every
message is written in diagnostics.py.
"""

from __future__ import annotations

import math
import pathlib
import re
from typing import Optional

from . import ast as A
from .assemble import checked_card
from .checkutil import Symbol, first_suggestion, names, outside_domain, suggest, walk
from .counterfactual import counterfactual_environment
from .counterfactual_checks import CounterfactualChecks
from .system_check import SystemChecks, SystemTyper
from .diagnostics import Reporter
from .functions import FUNCTIONS
from .model import CheckedCard, ConstraintModel, TExpr, law_uses, refs, transitive
from .limits import MAX_NOISE_ABS, MAX_NOISE_REL, widened_bounds
from .printer import format_expr
from .source import SourceText, Span
from .syntax import keywords
from .typer import EnvState, Typed, Typer, let_order
from .units import (DIMENSIONLESS_UNIT, Dim, Unit, UnitError, defined_unit, is_known_unit, known_unit_names,
                    resolve_card_unit)

_TODO = re.compile(r"\bTODO\b[^\n]*")

#: Measurement noise models an output may declare (`noise KIND rel R [abs A]`).
NOISE_KINDS = ("gaussian",)
COLLECTIONS = ("historical", "temporal")
#: Sizes beyond these are typos, and would only exhaust memory at compile time.
MAX_EVALUATION = 100_000
MAX_DESIGN = 10_000
MAX_SEED = 2**63 - 1
DESIGN_METHODS = ("sobol", "grid", "random")


def __getattr__(name: str):
    if name == "KEYWORDS":  # read from the grammar when first asked for
        return keywords()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def reserved_kind(name: str) -> Optional[str]:
    """What a name a card may not declare is ("keyword", "function",
    "constant"), or None: the one table lint and `scigame import` use."""
    if name in keywords():
        return "keyword"
    if name in FUNCTIONS:
        return "function"
    if name == "pi":
        return "constant"
    return None


#: Statements listed and declared as a symbol: class -> (the checker's list, the symbol's kind).
_DECLARED = {A.Input: ("inputs", "input"), A.Output: ("outputs", "output"), A.Param: ("params", "param")}
#: Statements a card has at most once: class -> (what a second one is called, the checker's attribute).
_SINGLE = {A.DesignGenerated: ("fixed design", "design"), A.DesignExplicit: ("fixed design", "design"),
           A.Evaluation: ("evaluation", "evaluation"), A.Identification: ("identification", "identification"),
           A.Adaptive: ("adaptive", "adaptive")}


class _Checker(CounterfactualChecks, SystemChecks):
    def __init__(self, card: A.Card, source: SourceText, report: Reporter):
        self.card, self.source, self.report = card, source, report
        self.symbols: dict[str, Symbol] = {}
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
        self.init_system()
        self.unit_definitions: list[A.UnitDefinition] = []
        #: units the card defines: name -> (unit, where its definition ends)
        self.card_units: dict[str, tuple[Unit, Span]] = {}

    # ---- helpers ---------------------------------------------------------------
    def unit(self, ref: Optional[A.UnitRef]) -> Optional[Unit]:
        """Resolve a unit, reporting a bad one once; None if it is bad."""
        if ref is None:
            return DIMENSIONLESS_UNIT
        if ref in self.units:
            return self.units[ref]
        before = {n: u for n, (u, end) in self.card_units.items()
                  if (end.end_line, end.end_column) <= (ref.span.line, ref.span.column)}
        words = set(re.findall(r"[A-Za-z_]\w*", ref.text))
        if any(d.name in words and d.name not in self.card_units and d.span.line <= ref.span.line
               for d in self.unit_definitions):
            self.units[ref] = None  # it uses a definition already reported as bad
            return None
        try:
            unit = resolve_card_unit(ref.text, before)
        except UnitError as exc:
            if exc.kind == "offset":
                self.report.offset_unit(ref.span, ref.text)
            else:
                later = [d for d in self.unit_definitions if d.name in words and d.name not in before]
                self.report.unknown_unit(ref.span, ref.text, str(exc), _close_units(ref.text, self.card_units),
                                         defined_later=later[0].span if later else None)
            unit = None
        self.units[ref] = unit
        return unit

    # ---- entry -------------------------------------------------------------------
    def run(self) -> Optional[CheckedCard]:
        self.collect()
        self.check_metadata()
        self.check_unit_definitions()
        self.check_declarations()
        self.check_system()
        self.check_inputs()
        self.check_outputs()
        self.check_settings()
        original = self.original_state()
        orig_typed = self.type_environment(original, self.report)
        self.check_law_called(orig_typed.system)
        self.check_laws_cover_outputs()
        constraints = self.check_constraints(original, orig_typed)
        cf = counterfactual_environment(self, original, orig_typed)
        self.check_shared_constraints(original, cf.env if cf else None)
        self.check_visible_text()
        self.check_usage(orig_typed, cf.typed if cf else None)
        if self.report.has_errors:
            return None
        return checked_card(self, original, orig_typed, cf, constraints)

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
            elif isinstance(st, A.UnitDefinition):
                self.unit_definitions.append(st)
            elif type(st) in _DECLARED:
                attr, kind = _DECLARED[type(st)]
                getattr(self, attr).append(st)
                self.declare(st.name, kind, st.name_span, st)
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
            elif type(st) in _SINGLE:
                self.single(*_SINGLE[type(st)], st)
            elif isinstance(st, (A.LawFunction, A.Argument, A.System)):
                self.collect_system(st)

    def single(self, what: str, attr: str, st) -> None:
        first = getattr(self, attr)
        if first is not None:
            self.report.repeated(st.span, what, first.span)
        else:
            setattr(self, attr, st)

    def declare(self, name: str, kind: str, span: Span, node) -> bool:
        taken = reserved_kind(name)
        if taken:
            self.report.reserved(span, name, taken)
        if name in self.symbols:
            first = self.symbols[name]
            self.report.duplicate(span, name, first.span, first.kind)
            return False
        self.symbols[name] = Symbol(name, kind, span, node)
        return True

    def check_metadata(self) -> None:
        head = self.card.name_span
        col = self.meta.get("collection")
        if col is None:
            self.report.missing(head, "collection")
        elif col.value not in COLLECTIONS:
            self.report.bad_choice(col.value_span, "collection", col.value, COLLECTIONS,
                                   first_suggestion(col.value, COLLECTIONS))
        if "source" not in self.meta:
            self.report.missing(head, "source")
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
        def look(span, place: str, name: str, text: str) -> None:
            m = _TODO.search(text)
            if m:
                self.report.placeholder(span, place, name, (m.group(0)[:40] + "...") if len(m.group(0)) > 40
                                        else m.group(0))
        look(self.card.name_span, "title", "", self.card.title)
        for st in self.card.statements:
            if isinstance(st, A.Meta):
                look(st.value_span, "meta", st.key, st.value)
            elif isinstance(st, (A.Input, A.Output, A.Param)):
                look(st.name_span, "description", st.name, st.description)
            elif isinstance(st, A.Counterfactual):
                look(st.label_span, "label", "", st.label)

    def check_unit_definitions(self) -> None:
        """`unit NAME = VALUE [UNIT]`, in card order: each may use the units
        defined before it; a name pint already knows, or a second definition
        of a name, is refused, as is a value that is not positive."""
        first: dict[str, A.UnitDefinition] = {}
        for d in sorted(self.unit_definitions, key=lambda d: (d.span.line, d.span.column)):
            if d.name in first:
                self.report.duplicate(d.name_span, d.name, first[d.name].name_span, "unit")
                continue
            first[d.name] = d
            if is_known_unit(d.name):
                self.report.bad_unit_definition(d.name_span, d.name, "known")
                continue
            unit = self.unit(d.unit)
            if unit is None:
                continue
            if not d.value.value > 0:
                self.report.bad_unit_definition(d.value.span, d.name, "value", d.value.text)
                continue
            self.card_units[d.name] = (defined_unit(d.name, d.value.value, unit), d.span)

    def check_declarations(self) -> None:
        for sym in self.symbols.values():
            if sym.kind == "input":
                unit = self.unit(sym.node.unit)
                sym.dim = unit.dim if unit else None
            elif sym.kind in ("output", "param"):
                unit = self.unit(sym.node.unit)
                sym.dim = unit.dim if unit else None

    def check_inputs(self) -> None:
        for inp in self.inputs + list(self.arguments.values()):
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
                self.report.empty_domain(d.span, inp.name, d.lo.text, d.hi.text)
            elif d.kind == "log" and lo <= 0:
                self.report.log_domain(d.lo.span, inp.name, d.lo.text)
            elif d.kind == "integer" and math.ceil(lo) > math.floor(hi):
                self.report.empty_domain(d.span, inp.name, d.lo.text, d.hi.text, integer=True)

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
            self.report.bad_choice(noise.kind_span, "noise", noise.kind, NOISE_KINDS,
                                   first_suggestion(noise.kind, NOISE_KINDS))
        for which, lit, most in (("rel", noise.rel, MAX_NOISE_REL), ("abs", noise.abs, MAX_NOISE_ABS)):
            if lit is not None and not 0 <= lit.value <= most:
                self.report.bad_noise(lit.span, output, which, lit.text, most)

    def check_ood_widening(self, ood: A.Literal) -> None:
        """The out-of-domain factor must leave every widened domain finite."""
        for inp in self.inputs:
            d = inp.domain
            if not isinstance(d, A.RangeDomain) or (d.kind == "log" and not 0 < d.lo.value < d.hi.value):
                continue  # a set is kept as it is; a bad log domain has its own error
            try:
                widened_bounds(d.kind, d.lo.value, d.hi.value, ood.value)
            except (OverflowError, ValueError):
                self.report.bad_ood_factor(ood.span, ood.text, inp.name)
                return

    def whole(self, lit: Optional[A.Literal], what: str, minimum: int,
              maximum: Optional[int] = None) -> Optional[int]:
        if lit is None:
            return None
        if lit.value != int(lit.value):
            self.report.not_whole(lit.span, what, lit.text)
            return None
        if lit.value < minimum or (maximum is not None and lit.value > maximum):
            self.report.out_of_range(lit.span, what, lit.text, minimum, maximum)
            return None
        return int(lit.value)

    def check_settings(self) -> None:
        d = self.design
        if isinstance(d, A.DesignGenerated):
            self.whole(d.count, "design_size", 1, MAX_DESIGN)
            self.whole(d.seed, "seed", 0, MAX_SEED)
            if d.method not in DESIGN_METHODS:
                self.report.bad_choice(d.method_span, "design", d.method, DESIGN_METHODS,
                                       first_suggestion(d.method, DESIGN_METHODS))
        elif isinstance(d, A.DesignExplicit):
            self.check_explicit_design(d)
        if self.evaluation is not None:
            self.whole(self.evaluation.count, "evaluation_size", 1, MAX_EVALUATION)
            self.whole(self.evaluation.seed, "seed", 0, MAX_SEED)
            ood = self.evaluation.ood
            if ood is not None and not ood.value > 1:
                self.report.bad_ood_factor(ood.span, ood.text)
            elif ood is not None:
                self.check_ood_widening(ood)
        if self.identification is not None and self.identification.value not in ("yes", "no"):
            self.report.bad_choice(self.identification.value_span, "interpolate",
                                   self.identification.value, ("yes", "no"))
        if self.adaptive is not None:
            tau = self.adaptive.threshold
            if not 0 < tau.value <= 1:
                self.report.out_of_range(tau.span, "threshold", tau.text)
            self.whole(self.adaptive.max_steps, "max_steps", 1)

    def check_explicit_design(self, d: A.DesignExplicit) -> None:
        inputs = {i.name: i for i in self.inputs}
        for point, pspan in zip(d.points, d.point_spans):
            given: dict[str, A.Assignment] = {}
            for a in point:
                if a.name not in inputs:
                    self.report.bad_design(a.span, "not_input", a.name)
                    continue
                if a.name in given:
                    self.report.bad_design(a.span, "twice", a.name)
                    continue
                given[a.name] = a
                why = outside_domain(inputs[a.name].domain, a.value.value)
                if why:
                    self.report.bad_design(a.value.span, "outside", a.name, a.value.text, outside=why)
            missing = [n for n in inputs if n not in given]
            if missing:
                self.report.bad_design(pspan, "missing", missing=missing)

    # ---- environments ---------------------------------------------------------------
    def original_state(self) -> EnvState:
        values, dims, exact = {}, {}, {}
        for p in self.params:
            unit = self.unit(p.unit)
            values[p.name] = p.value.value * (unit.si_factor if unit else 1.0)
            dims[p.name] = unit.dim if unit else None
            if p.value.exact is not None and unit is not None and unit.si_factor == 1.0:
                exact[p.name] = p.value.exact
        return EnvState("original", "", values, dims, dict(self.lets), dict(self.laws), exact)

    def type_environment(self, env: EnvState, report: Reporter, solve: bool = False) -> Typed:
        typer = (SystemTyper if self.law_functions or self.system else Typer)(self, env, report, solve)
        for name in let_order(env.lets, report):
            typer.typed_lets[name] = typer.expr(env.lets[name].expr)
        laws: dict[str, TExpr] = {}
        wheres: dict[str, ConstraintModel] = {}
        for name, law in env.laws.items():
            if isinstance(law, A.LawFunction):
                continue  # typed with the system, below
            sym = self.symbols.get(name)
            if sym is None or sym.kind != "output":
                if env.name == "original":
                    self.report_stray_law(law, sym, report)
                continue
            typed = typer.expr(law.expr)
            laws[name] = typed
            if law.where is not None:
                wheres[name] = self.typed_condition(typer, law.where, report, env.note)
            unit_text = sym.node.unit.text if sym.node.unit else "1"
            typer.same(typed.dim, sym.dim, f"law {name}",
                       lambda typed=typed, law=law, sym=sym, unit_text=unit_text: report.law_mismatch(
                           law.expr.span, law.name, unit_text, typed.dim, sym.dim, env.note,
                           hints=self.law_hints(env, law, typed.dim, sym.dim, solve)))
        system = self.type_system(typer, env, report) if isinstance(typer, SystemTyper) else None
        if system is not None and not solve:
            self.system_worlds.setdefault(env.name, system)
        return Typed(typer.typed_lets, laws, tuple(typer.equations), system=system, wheres=wheres)

    def law_hints(self, env: EnvState, law: A.Law, got: Dim, want: Dim, solving: bool) -> list[str]:
        """Which factor to change in a law that does not balance: for the
        original's laws and a law the counterfactual block writes (a law a
        mutation unbalanced gets the block's own hint, `rebalance`)."""
        if solving or not (env.name == "original" or law is not self.laws.get(law.name)):
            return []
        from .law_hints import law_mismatch_hints
        return law_mismatch_hints(self, env, law, got, want)

    def typed_condition(self, typer: Typer, w: A.Where, report: Reporter, note: Optional[str]) -> ConstraintModel:
        """The typed `where` of a law: both sides of one dimension, like a
        constraint's, but evaluated in each world (it may use params and lets)."""
        left, right = typer.expr(w.left), typer.expr(w.right)
        typer.same(left.dim, right.dim, "where", lambda: report.mismatch(
            w.span, "where", w.op, left.dim, right.dim, note))
        text = f"{format_expr(w.left)} {w.op} {format_expr(w.right)}"
        return ConstraintModel(left, w.op, right, w.reason, text, w.span)

    def report_stray_law(self, law: A.Law, sym: Optional[Symbol], report: Reporter) -> None:
        outputs = [s.name for s in self.symbols.values() if s.kind == "output"]
        report.stray_law(law.name_span, law.name, None if sym is None else sym.kind,
                         suggest(law.name, outputs) if sym is None else [])

    def check_laws_cover_outputs(self) -> None:
        for out in self.outputs:
            if self.system is not None:
                break  # a system's outputs are its states and lets (E803)
            if out.name not in self.laws and self.symbols.get(out.name, None) is not None \
                    and self.symbols[out.name].node is out:
                self.report.no_law(out.name_span, out.name)

    def check_constraints(self, env: EnvState, typed: Typed) -> list[ConstraintModel]:
        typer = Typer(self, env, self.report, typed_lets=typed.lets)
        out = []
        for c in self.constraints:
            left, right = typer.expr(c.left), typer.expr(c.right)
            for side in (c.left, c.right):
                for node in walk(side):
                    sym = self.symbols.get(node.name) if isinstance(node, A.Name) else None
                    if sym is not None and sym.kind == "let":
                        self.report.wrong_kind(node.span, node.name, "constraint")
            typer.same(left.dim, right.dim, "constraint",
                       lambda c=c, left=left, right=right: self.report.mismatch(
                           c.span, "constraint", c.op, left.dim, right.dim))
            text = f"{format_expr(c.left)} {c.op} {format_expr(c.right)}"
            out.append(ConstraintModel(left, c.op, right, c.message, text, c.span))
        self.typed_constraints = out
        return out

    # ---- usage -----------------------------------------------------------------------
    def check_usage(self, orig_typed: Typed, cf_typed: Optional[Typed]) -> None:
        used: set[str] = set()
        for typed in (orig_typed, cf_typed):
            if typed is None:
                continue
            used |= law_uses(typed.laws.values(), typed.lets)
            used |= transitive(self.system_uses(typed.system),
                               lambda n, lets=typed.lets: refs(lets[n]) if n in lets else ())
        for c in self.constraints:
            used |= names(c.left) | names(c.right)
        for law in self.laws.values():
            if law.where is not None:
                used |= names(law.where.left) | names(law.where.right)
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


def _close_units(text: str, card_units) -> list[str]:
    """A unit name close to an unknown one: for names longer than four
    letters only a close match (`solar_mass` is not `planck_mass`)."""
    import difflib
    if not text.isidentifier():
        return []
    found = suggest(text, [*card_units, *known_unit_names()])
    cutoff = 0.6 if len(text) <= 4 else 0.75
    return [s for s in found if s.lower() == text.lower()
            or difflib.SequenceMatcher(None, s.lower(), text.lower()).ratio() >= cutoff]


def check_card(card: A.Card, source: SourceText, report: Reporter) -> Optional[CheckedCard]:
    """Check a card's AST; report every problem; return the typed model if
    there are no errors."""
    return _Checker(card, source, report).run()
