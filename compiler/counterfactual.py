"""The counterfactual pass: the card's counterfactual block applied to the
original environment, one immutable step per mutation, then `rebalance`
solved, the counterfactual typed, and its findings merged into the card's.

Each step takes the state so far (`Applied`) and one mutation, reports what
is wrong with it, and returns a new state; `STEPS` maps each kind of
mutation to its step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from . import ast as A
from .checkutil import closure, mutation_text, names, reachable, suggest, walk
from .diagnostics import Reporter
from .model import Mutation
from .printer import format_expr
from .source import Span, node
from .system_check import apply_law_function
from .typer import EnvState, Typed, placeholder, solve_placeholders
from .units import DIMENSIONLESS, format_si_unit

if TYPE_CHECKING:
    from .checker import _Checker


@node
class Applied:
    """The counterfactual environment after some of its mutations."""

    env: EnvState
    mutations: tuple[Mutation, ...] = ()
    rebalanced: Mapping[str, A.RebalanceMutation] = field(default_factory=dict)
    changed_by: Mapping[str, A.Mutation] = field(default_factory=dict)  # param -> last set/scale/rebalance

    def add(self, kind: str, m, text: str, env: Optional[EnvState] = None, **more) -> "Applied":
        """A new state recording mutation `m` (and the environment it makes)."""
        return dataclasses.replace(self, env=env or self.env,
                                   mutations=self.mutations + (Mutation(kind, m.name, text, m.span),), **more)


@node
class Counterfactual:
    """The outcome of the pass: the environment, typed, and its mutations."""

    env: EnvState
    typed: Typed
    mutations: tuple[Mutation, ...]


Step = Callable[["_Checker", Applied, object], Applied]


def _on_param(step: Step) -> Step:
    """`set`, `scale` and `rebalance` change a param: anything else is reported."""
    def checked(c: "_Checker", s: Applied, m) -> Applied:
        sym = c.symbols.get(m.name)
        if sym is None:
            c.report.unknown_name(m.name_span, m.name, suggest(m.name, [p.name for p in c.params]))
            return s
        if sym.kind != "param":
            c.report.bad_target(m.name_span, m.name, sym.kind, _VERBS[type(m)])
            return s
        return step(c, dataclasses.replace(s, changed_by={**s.changed_by, m.name: m}), m)
    return checked


@_on_param
def apply_set(c: "_Checker", s: Applied, m: A.SetMutation) -> Applied:
    unit = c.unit(m.unit)
    old_dim = s.env.param_dims.get(m.name)
    if unit is None:
        return dataclasses.replace(s, env=s.env.with_param(m.name, dim=None))
    if m.unit is None and old_dim is not None and not old_dim.dimensionless and m.value.value != 0:
        c.report.set_unit(m.value.span, m.name, old_dim, DIMENSIONLESS)
        return s
    dim = {"dim": unit.dim} if m.unit is not None else {}
    exact = m.value.exact if unit.si_factor == 1.0 else None
    return s.add("set", m, mutation_text(m),
                 s.env.with_param(m.name, m.value.value * unit.si_factor, exact=exact, **dim))


@_on_param
def apply_scale(c: "_Checker", s: Applied, m: A.ScaleMutation) -> Applied:
    if m.factor.value == 0:
        c.report.out_of_range(m.factor.span, "scale", m.factor.text)
        return s
    env = s.env.with_param(m.name, s.env.param_values[m.name] * m.factor.value)
    return s.add("scale", m, mutation_text(m), env)


@_on_param
def apply_rebalance(c: "_Checker", s: Applied, m: A.RebalanceMutation) -> Applied:
    return s.add("rebalance", m, mutation_text(m), rebalanced={**s.rebalanced, m.name: m})


def apply_let(c: "_Checker", s: Applied, m: A.Let) -> Applied:
    if m.name not in c.lets:
        sym = c.symbols.get(m.name)
        c.report.bad_target(m.name_span, m.name, sym.kind if sym else None)
        return s
    return s.add("let", m, f"let {m.name} = {format_expr(m.expr)}", s.env.with_let(m))


def apply_law(c: "_Checker", s: Applied, m: A.Law) -> Applied:
    sym = c.symbols.get(m.name)
    if sym is None or sym.kind != "output":
        c.report_stray_law(m, sym, c.report)
        return s
    return s.add("law", m, f"law {m.name} = {format_expr(m.expr)}", s.env.with_law(m))


def apply_magnitude(c: "_Checker", s: Applied, m: A.MagnitudeDiffers) -> Applied:
    c.acknowledge_magnitude(m)
    return s


_VERBS = {A.SetMutation: "set", A.ScaleMutation: "scale", A.RebalanceMutation: "rebalance"}
STEPS: dict[type, Step] = {A.SetMutation: apply_set, A.ScaleMutation: apply_scale,
                           A.RebalanceMutation: apply_rebalance, A.Let: apply_let, A.Law: apply_law,
                           A.MagnitudeDiffers: apply_magnitude, A.LawFunction: apply_law_function}


def counterfactual_environment(c: "_Checker", original: EnvState, orig_typed: Typed) -> Optional[Counterfactual]:
    """Apply the counterfactual block; None (after reporting) without one."""
    cf = c.counterfactual
    if cf is None:
        c.report.no_counterfactual(c.card.name_span)
        return None
    if not cf.mutations:
        c.report.empty_counterfactual(cf.span, cf.label)
        return None
    s = Applied(dataclasses.replace(original, name="counterfactual", label=cf.label))
    for m in cf.mutations:
        s = STEPS[type(m)](c, s, m)
    env = solve_rebalance(c, s.env, s.rebalanced) if s.rebalanced else s.env
    cf_report = Reporter(c.source)
    typed = c.type_environment(env, cf_report)
    _merge_report(c, cf_report, env, s.changed_by, s.rebalanced)
    env = c.solve_references(original, orig_typed, env, typed, s.rebalanced)
    if not c.report.has_errors and orig_typed is not None:
        _check_noop(c, cf, original, env)
    return Counterfactual(env, typed, s.mutations)


def solve_rebalance(c: "_Checker", env: EnvState, rebalanced: Mapping[str, A.RebalanceMutation]) -> EnvState:
    """The environment with each rebalanced param in the unit that makes
    every law balance: typed with placeholder dimensions, the environment
    yields equations `X · P^k = 1` (see `typer.solve_placeholders`)."""
    old = {n: env.param_dims.get(n) for n in rebalanced}
    trial = env.with_dims({n: placeholder(n) for n in rebalanced})
    typed = c.type_environment(trial, Reporter(c.source), solve=True)
    solved, conflicts = solve_placeholders(typed.equations, list(rebalanced))
    dims = {}
    joint = _jointly_determined(typed.equations, rebalanced, solved)
    if joint:
        _report_underdetermined(c, typed.equations, rebalanced, joint)
    for name, m in rebalanced.items():
        if name in joint:
            dims[name] = None
        elif name in conflicts or (name not in solved and not m.reference):
            c.report.rebalance_failed(m.span, name, "conflict" if name in conflicts else "no_effect")
            dims[name] = None
        elif name not in solved:
            dims[name] = old[name]  # `at` alone moves the value; the unit may stay
        else:
            dims[name] = solved[name]
            if solved[name] != old[name]:
                before = format_si_unit(old[name]) if old[name] is not None else "?"
                c.report.rebalanced(m.span, name, before, format_si_unit(solved[name]))
    return env.with_dims(dims)


def _jointly_determined(equations, rebalanced: Mapping[str, A.RebalanceMutation],
                        solved: Mapping[str, object]) -> list[str]:
    """The rebalanced params, in card order, left in an equation with
    another unsolved one: their units are fixed only together (`q · a` is
    known, neither alone), so the laws balance for many choices."""
    from .typer import _PLACEHOLDER
    keys = {f"{_PLACEHOLDER}{n}]": n for n in rebalanced}
    joint: set[str] = set()
    for eq, _ in equations:
        left = {keys[k] for k, _ in eq.items if k in keys and keys[k] not in solved}
        if len(left) > 1:
            joint |= left
    return [n for n in rebalanced if n in joint]


def _report_underdetermined(c: "_Checker", equations, rebalanced: Mapping[str, A.RebalanceMutation],
                            joint: list[str]) -> None:
    """E408 at the first of the jointly determined rebalances: which param
    to keep fixed so that the others are solved (one without `at` first,
    so the reference point stays)."""
    def solves_the_rest(keep: str) -> bool:
        rest = [n for n in rebalanced if n != keep]
        trial = [(eq * placeholder(keep) ** -dict(eq.items).get(f"[rebalance {keep}]", 0), w)
                 for eq, w in equations]
        solved, conflicts = solve_placeholders(trial, rest)
        return not conflicts and all(n in solved for n in joint if n != keep)
    order = sorted(joint, key=lambda n: bool(rebalanced[n].reference))
    fix = next((n for n in order if solves_the_rest(n)), None)
    first = rebalanced[joint[0]]
    c.report.rebalance_failed(first.span, joint[0], "underdetermined", group=joint, fix=fix,
                              related=[(rebalanced[n].span, f"`{n}` is fixed only together with it")
                                       for n in joint[1:]])


def _merge_report(c: "_Checker", cf_report: Reporter, env: EnvState,
                  changed_by: Mapping, rebalanced: Mapping) -> None:
    """Keep the counterfactual's own findings: not those the original has
    already reported. A law or `+` the mutations unbalanced is reported at
    the mutation, with the law as the second place and a rebalance hint."""
    seen = {(d.code, d.span) for d in c.report.items}
    for d in cf_report.items:
        if (d.code, d.span) in seen:
            continue
        culprit = None
        if d.code in ("E402", "E403") and not _in_block(c.counterfactual, d.span):
            culprit = _culprit(d.span, env, changed_by)
        if culprit is None:
            c.report.items.append(d)
            continue
        hint = _rebalance_hint(c, env, rebalanced, exclude={culprit.name})
        c.report.blame_mutation(d, culprit.span, mutation_text(culprit), hint)


def _in_block(cf: A.Counterfactual, span: Span) -> bool:
    return cf is not None and (cf.span.line, cf.span.column) <= (span.line, span.column) <= \
        (cf.span.end_line, cf.span.end_column)


def _culprit(span: Span, env: EnvState, changed_by: Mapping):
    """The last set/scale of a param used inside the expression at `span`."""
    used: set[str] = set()
    for expr in [law.expr for law in env.laws.values()] + [let.expr for let in env.lets.values()]:
        for node in walk(expr):
            if node.span == span:
                used = names(node)
    reached = closure(used, env.lets)
    hits = [m for p, m in changed_by.items() if p in reached and isinstance(m, A.SetMutation)]
    return max(hits, key=lambda m: (m.span.line, m.span.column)) if hits else None


def _rebalance_hint(c: "_Checker", env: EnvState, rebalanced: Mapping, exclude: set[str]) -> Optional[str]:
    """A param whose rebalancing would make every law balance, if one
    exists (never the param the culprit mutation changed: rebalancing it
    would undo that change)."""
    candidates = [p.name for p in c.params
                  if p.name not in rebalanced and p.name not in exclude
                  and env.param_dims.get(p.name) is not None
                  and not env.param_dims[p.name].dimensionless]
    for name in candidates:
        silent = Reporter(c.source)
        typed = c.type_environment(env.with_dims({name: placeholder(name)}), silent, solve=True)
        if silent.has_errors:
            continue
        solved, conflicts = solve_placeholders(typed.equations, [name])
        if name in solved and name not in conflicts:
            return name
    return None


def _check_noop(c: "_Checker", cf: A.Counterfactual, original: EnvState, env: EnvState) -> None:
    reach = reachable(env.lets, env.laws) | reachable(original.lets, original.laws)
    changed = [n for n in env.param_values
               if (env.param_values[n] != original.param_values[n]
                   or env.param_dims.get(n) != original.param_dims.get(n)) and n in reach]
    changed += [n for n in env.lets if format_expr(env.lets[n].expr) != format_expr(original.lets[n].expr)
                and n in reach]
    changed += [n for n in env.laws
                if n in original.laws and format_expr(env.laws[n].expr) != format_expr(original.laws[n].expr)]
    if not changed:
        c.report.noop_counterfactual(cf.label_span, cf.label)
