"""Checking a card's system: `law NAME(ARGS) = ...`, `argument ...` and
`system { time ...; state ...; let ...; rate ... }`.

`SystemChecks` is mixed into the checker: it collects the statements,
checks what needs no types (E802, E803, E804, E805, E807) and types each
world's law and system with `SystemTyper` (E800, E801, E806), whose
dimension equations also feed `rebalance`. Every message is written in
diagnostics.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import ast as A
from .checkutil import Symbol, names, outside_domain, suggest
from .model import TConst, TRef, evaluate
from .system_model import ArgumentModel, StateModel, SystemInfo, SystemWorld, TLawCall, system_nodes
from .typer import EnvState, Typer, let_order
from .units import DIMENSIONLESS, DIMENSIONLESS_UNIT, resolve_unit

if TYPE_CHECKING:
    from .checker import _Checker


def time_dim():
    return resolve_unit("s").dim


class SystemTyper(Typer):
    """A typer that knows the scopes of a system card: inside a law of
    named arguments only its arguments and params; inside the system the
    states, the system's lets, the time and law calls besides the card's
    names."""

    def __init__(self, checker, env, report, solve=False, typed_lets=None):
        super().__init__(checker, env, report, solve, typed_lets)
        self.scope: Optional[str] = None  # None (card), "system", or the law's name
        self.law_params: dict[str, object] = {}
        self.functions: dict[str, tuple[tuple[str, ...], object]] = {}
        self.system_lets: dict[str, object] = {}

    def name(self, e: A.Name):
        sym = self.c.symbols.get(e.name)
        if self.scope == "system" and e.name in self.c.system_symbols:
            sym = self.c.system_symbols[e.name]
        if self.scope is not None and self.scope != "system":  # a law's body
            if e.name in self.law_params:
                return TRef(e.name, "argument", self.law_params[e.name], e.span)
            if sym is not None and sym.kind != "param" and e.name != "pi":
                self.report.law_scope(e.span, self.scope, e.name, "scope")
                return TRef(e.name, "unknown", None, e.span)
            return super().name(e)
        if sym is not None and sym.kind in ("state", "system_let", "law", "argument"):
            if self.scope != "system":
                self.report.wrong_kind(e.span, e.name, "system")
                return TRef(e.name, "unknown", None, e.span)
            if sym.kind == "state":
                return TRef(e.name, "state", sym.dim, e.span)
            if sym.kind == "system_let":
                typed = self.system_lets.get(e.name)
                return TRef(e.name, "system_let", typed.dim if typed is not None else None, e.span)
            if sym.kind == "law":
                self.report.law_call(e.span, e.name, "a law is called with its arguments, `NAME(...)`")
                return TRef(e.name, "unknown", None, e.span)
        if self.scope == "system" and sym is not None and e.name == self.c.system_time_name:
            return TRef(e.name, "time", sym.dim, e.span)
        return super().name(e)

    def call(self, e: A.Call):
        if e.name not in self.functions or self.scope != "system":
            return super().call(e)
        params, body = self.functions[e.name]
        args = tuple(self.expr(a) for a in e.args)
        if len(args) != len(params):
            self.report.law_call(e.span, e.name, f"takes {len(params)} argument(s) "
                                 f"({', '.join(params)}), but {len(args)} are given", self.env.note)
            return TLawCall(e.name, args, None, e.span)
        from .units import describe_dim
        for p, a, node in zip(params, args, e.args):
            want = self.c.argument_dim(p)
            self.same(a.dim, want, f"argument {p} of `{e.name}` at {node.span.line}:{node.span.column}",
                      lambda a=a, p=p, want=want, node=node: self.report.law_call(
                          node.span, e.name, f"argument `{p}` must be {describe_dim(want)}, but this is "
                          f"{describe_dim(a.dim)}", self.env.note))
        return TLawCall(e.name, args, body.dim if body is not None else None, e.span)


class SystemChecks:
    """Mixin of the checker (see the module docstring)."""

    def init_system(self) -> None:
        self.system: Optional[A.System] = None
        self.law_functions: dict[str, A.LawFunction] = {}
        self.arguments: dict[str, A.Argument] = {}
        self.states: dict[str, A.State] = {}
        self.system_lets: dict[str, A.Let] = {}
        self.rates: dict[str, A.Rate] = {}
        self.system_time_name: Optional[str] = None
        self.system_worlds: dict[str, SystemWorld] = {}
        #: states and the system's lets: an output may share a name with one (it is that quantity)
        self.system_symbols: dict = {}

    # ---- collecting -----------------------------------------------------------
    def collect_system(self, st) -> None:
        if isinstance(st, A.LawFunction):
            if self.declare(st.name, "law", st.name_span, st):
                self.law_functions[st.name] = st
                self.laws[st.name] = st  # the worlds' law mappings carry it (counterfactual `law` replaces it)
        elif isinstance(st, A.Argument):
            if self.declare(st.name, "argument", st.name_span, st):
                self.arguments[st.name] = st
        elif self.system is not None:
            self.report.repeated(st.span, "system", self.system.span)
        else:
            self.system = st
            self._collect_items(st)

    def _collect_items(self, st: A.System) -> None:
        time = None
        for item in st.items:
            if isinstance(item, A.SystemTime):
                if time is not None:
                    self.report.bad_time(item.span, item.name, "twice")
                time = item
            elif isinstance(item, (A.State, A.Let)):
                kind = "state" if isinstance(item, A.State) else "system_let"
                first = self.system_symbols.get(item.name)
                if first is not None:
                    self.report.duplicate(item.name_span, item.name, first.span, first.kind.replace("_", " "))
                    continue
                self.system_symbols[item.name] = Symbol(item.name, kind, item.name_span, item)
                (self.states if kind == "state" else self.system_lets)[item.name] = item
            elif isinstance(item, A.Rate):
                if item.name in self.rates:
                    self.report.stray_rate(item.name_span, item.name, "twice", first=self.rates[item.name].span)
                else:
                    self.rates[item.name] = item
        self._time = time
        self.system_time_name = time.name if time is not None else None

    # ---- checks that need no types ---------------------------------------------
    def check_system(self) -> None:
        for law in self.law_functions.values():
            if self.system is None:
                self.report.law_scope(law.name_span, law.name, law.name, "no_system")
            seen = set()
            for p, span in law.params:
                if p in seen:
                    self.report.law_scope(span, law.name, p, "twice")
                seen.add(p)
                sym = self.symbols.get(p)
                if sym is None or sym.kind not in ("input", "argument"):
                    self.report.law_scope(span, law.name, p, "no_unit")
        for a in self.arguments.values():
            unit = self.unit(a.unit)
            self.symbols[a.name].dim = unit.dim if unit else None
        if self.system is None:
            return
        for name, sym in self.system_symbols.items():
            first = self.symbols.get(name)
            if first is not None and first.kind != "output":
                self.report.duplicate(sym.span, name, first.span, first.kind)
            if sym.kind == "state":
                unit = self.unit(sym.node.unit)
                sym.dim = unit.dim if unit else None
        self._check_time()
        for name, rate in self.rates.items():
            if name not in self.states:
                self.report.stray_rate(rate.name_span, name, "undeclared", suggest(name, self.states))
        for name, s in self.states.items():
            if name not in self.rates:
                self.report.state_without_rate(s.name_span, name)
        for out in self.outputs:
            sym = self.symbols.get(out.name)
            if out.name in self.laws and isinstance(self.laws[out.name], A.Law):
                continue  # a law of its own: reported as a stray law below
            if out.name not in self.system_symbols and (sym is None or sym.node is out):
                self.report.output_not_state(out.name_span, out.name)

    def _check_time(self) -> None:
        t = self._time
        if t is None:
            self.report.bad_time(self.system.span, "", "missing")
            return
        sym = self.symbols.get(t.name)
        if sym is None or sym.kind != "input":
            self.report.bad_time(t.name_span, t.name, "not_input")
        elif sym.dim is not None and sym.dim != time_dim():
            self.report.bad_time(t.name_span, t.name, "dimension", sym.dim)

    def argument_dim(self, name: str):
        sym = self.symbols.get(name)
        return sym.dim if sym is not None and sym.kind in ("input", "argument") else None

    # ---- typing one world ----------------------------------------------------------
    def type_system(self, typer: SystemTyper, env: EnvState, report) -> Optional[SystemWorld]:
        """Type the laws of named arguments and the system of one world;
        the outputs' units are checked against their states and lets."""
        for name, law in env.laws.items():
            if not isinstance(law, A.LawFunction):
                continue
            typer.scope, typer.law_params = name, {p: self.argument_dim(p) for p, _ in law.params}
            typer.functions[name] = (tuple(p for p, _ in law.params), typer.expr(law.expr))
        typer.scope, typer.law_params = "system", {}
        if self.system is None:
            return None
        initial = []
        for name, s in self.states.items():
            typed = typer.expr(s.init)
            unit = self.unit(s.unit)
            if unit is not None:
                typer.same(typed.dim, unit.dim, f"state {name}", lambda typed=typed, s=s, unit=unit: report.initial_mismatch(
                    s.init.span, s.name, s.unit.text if s.unit else "1", typed.dim, unit.dim))
            initial.append((name, typed))
        lets = []
        for name in let_order(self.system_lets, report):
            typer.system_lets[name] = typer.expr(self.system_lets[name].expr)
            lets.append((name, typer.system_lets[name]))
        rates = []
        for name, rate in self.rates.items():
            if name not in self.states:
                continue
            typed = typer.expr(rate.expr)
            sdim = self.system_symbols[name].dim
            tsym = self.symbols.get(self.system_time_name or "")
            # a time already reported (E802) checks no rate
            tdim = tsym.dim if tsym is not None and tsym.kind == "input" and tsym.dim == time_dim() else None
            if sdim is not None and tdim is not None:
                want = sdim / tdim
                typer.same(typed.dim, want, f"rate {name}", lambda typed=typed, name=name, rate=rate, want=want:
                           report.rate_mismatch(rate.expr.span, name, typed.dim, want, env.note))
            rates.append((name, typed))
        self._check_output_dims(typer, report)
        law = next((n for n, v in env.laws.items() if isinstance(v, A.LawFunction)), None)
        if law is None:
            return None
        params, body = typer.functions[law]
        return SystemWorld(params, body, env.laws[law].span, tuple(initial), tuple(lets), tuple(rates))

    def _check_output_dims(self, typer: SystemTyper, report) -> None:
        for out in self.outputs:
            sym = self.system_symbols.get(out.name)
            if sym is None:
                continue
            got = sym.dim if sym.kind == "state" else getattr(typer.system_lets.get(out.name), "dim", None)
            want = self.unit(out.unit)
            if got is not None and want is not None and got != want.dim:
                report.law_mismatch(out.name_span, out.name, out.unit.text if out.unit else "1", got, want.dim)

    def check_law_called(self, world: Optional[SystemWorld]) -> None:
        if world is None:
            return
        called = {e.law for _, r in world.rates + world.lets for e in system_nodes(r) if isinstance(e, TLawCall)}
        for name, law in self.law_functions.items():
            if name not in called:
                self.report.law_scope(law.name_span, name, name, "not_called")

    def system_uses(self, world: Optional[SystemWorld]) -> set[str]:
        """The card's names a world's system uses (for W100/W101)."""
        if world is None:
            return set()
        exprs = [world.law_body] + [e for _, e in world.initial + world.lets + world.rates]
        used = {e.name for e in system_nodes(*exprs) if isinstance(e, TRef)}
        return used | {self.system_time_name or ""}

    def system_info(self) -> Optional[SystemInfo]:
        if self.system is None or not self.law_functions:
            return None
        law = next(iter(self.law_functions.values()))
        world = self.system_worlds.get("original")
        args = []
        for p, span in law.params:
            sym = self.symbols[p]
            node = sym.node
            unit = self.unit(node.unit) or DIMENSIONLESS_UNIT
            d = node.domain
            if isinstance(d, A.SetDomain):
                vals = tuple(sorted(v.value for v in d.values))
                args.append(ArgumentModel(p, unit, "set", vals[0], vals[-1], vals, node.description, span,
                                          is_input=sym.kind == "input"))
            else:
                args.append(ArgumentModel(p, unit, d.kind, d.lo.value, d.hi.value, (), node.description, span,
                                          is_input=sym.kind == "input"))
        states = tuple(StateModel(s.name, self.unit(s.unit) or DIMENSIONLESS_UNIT, s.description, s.span)
                       for s in self.states.values())
        from .printer import format_expr
        outputs = {o.name: ("state" if o.name in self.states else "let", o.name) for o in self.outputs}
        texts = {**{f"init:{n}": format_expr(s.init) for n, s in self.states.items()},
                 **{f"rate:{n}": format_expr(r.expr) for n, r in self.rates.items()},
                 **{f"let:{n}": format_expr(v.expr) for n, v in self.system_lets.items()}}
        return SystemInfo(self.system_time_name, states, law.name, tuple(args),
                          world.law_body.dim if world is not None and world.law_body.dim is not None
                          else DIMENSIONLESS, outputs, self.system.span, texts)

    # ---- `rebalance ... at` with law arguments ---------------------------------------------
    def system_reference_point(self, m: A.RebalanceMutation):
        """The law's arguments at the reference point of `m` (unlisted ones at
        the middle of their domains), in SI and as text; None after a report."""
        from .counterfactual_checks import _middle
        law = next(iter(self.law_functions.values()))
        params = [p for p, _ in law.params]
        given = {}
        for ref in m.reference:
            if ref.name not in params:
                self.report.bad_reference(ref.name_span, m.name, "not_input", ref.name,
                                          kind=getattr(self.symbols.get(ref.name), "kind", None),
                                          suggestion=suggest(ref.name, params)[0] if suggest(ref.name, params) else None)
                return None
            node = self.symbols[ref.name].node
            value = self.reference_in(self.unit(node.unit) or DIMENSIONLESS_UNIT, m, ref)
            if value is None:
                return None
            why = outside_domain(node.domain, value)
            if why:
                self.report.bad_reference(ref.value.span, m.name, "outside", ref.name, value=value, outside=why)
                return None
            given[ref.name] = value
        point, text = {}, []
        for p in params:
            node = self.symbols[p].node
            own = self.unit(node.unit) or DIMENSIONLESS_UNIT
            v = given.get(p, _middle(node.domain))
            point[p] = v * own.si_factor
            text.append(f"{p} = {v:g}" + (f" [{node.unit.text}]" if node.unit else ""))
        return point, ", ".join(text)

    def solve_system_reference(self, original: EnvState, env: EnvState, rebalanced: dict) -> EnvState:
        """`rebalance P at ARG = V, ...` on a system card: P's value makes both
        worlds' laws agree at the arguments' reference point."""
        import numpy as np

        from .reference import ReferenceUnsolvable, solve_factor
        at = [m for m in rebalanced.values() if m.reference]
        if not at or self.report.has_errors:
            return env
        m = at[0]
        found = self.system_reference_point(m)
        if found is None:
            return env
        point, where = found
        law = next(iter(self.law_functions))

        def value(state: EnvState) -> dict[str, float]:
            typer = SystemTyper(self, state, _Silent(self.source))
            typed = self.type_environment_system_only(typer, state)
            with np.errstate(all="ignore"):
                return {law: float(evaluate(typed, {**point, **state.param_values}))}

        target = value(original)
        try:
            factor = solve_factor(target, lambda f: value(env.with_param(m.name, env.param_values[m.name] * f)))
        except ReferenceUnsolvable as exc:
            self.report.bad_reference(m.span, m.name, "unsolvable", where=where, why=str(exc))
            return env
        old = env.param_values[m.name]
        self.report.reference_solved(m.span, m.name, f"{old:.6g}", f"{old * factor:.6g}", where)
        return env.with_param(m.name, old * factor)

    def type_environment_system_only(self, typer: SystemTyper, state: EnvState):
        law = state.laws[next(iter(self.law_functions))]
        typer.scope, typer.law_params = law.name, {p: self.argument_dim(p) for p, _ in law.params}
        body = typer.expr(law.expr)
        # argument refs are looked up by name in `evaluate`
        return body


class _Silent:
    """A reporter that keeps nothing (for re-typing a world already checked)."""

    def __init__(self, source):
        self.source = source

    def __getattr__(self, name):
        return lambda *a, **k: None


def apply_law_function(c: "_Checker", s, m: A.LawFunction):
    """`law NAME(ARGS) = ...` in a counterfactual: replace the law of named arguments."""
    from .printer import format_expr
    law = c.law_functions.get(m.name)
    if law is None:
        sym = c.symbols.get(m.name)
        c.report_stray_law(m, sym, c.report)
        return s
    if tuple(p for p, _ in m.params) != tuple(p for p, _ in law.params):
        c.report.law_call(m.span, m.name, f"the counterfactual's law must take the same arguments "
                          f"({', '.join(p for p, _ in law.params)})")
        return s
    text = f"law {m.name}({', '.join(p for p, _ in m.params)}) = {format_expr(m.expr)}"
    return s.add("law", m, text, s.env.with_law(m))


__all__ = ["SystemChecks", "SystemTyper", "apply_law_function", "TConst", "names"]
