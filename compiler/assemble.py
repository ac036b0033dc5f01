"""The typed model of a card that checked without errors (`CheckedCard`),
put together from the checker's statements and its two typed environments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .diagnostics import Reporter
from .model import CheckedCard, ConstraintModel, Environment, InputModel, OutputModel, ParamValue
from .source import content_hash
from .typer import EnvState, Typed, let_order
from .units import format_si_unit

if TYPE_CHECKING:
    from .checker import _Checker
    from .counterfactual import Counterfactual


def checked_card(c: "_Checker", original: EnvState, orig_typed: Typed, cf: "Counterfactual",
                 constraints: list[ConstraintModel]) -> CheckedCard:
    meta = {k: v.value for k, v in c.meta.items()}
    method, size, seed, points = _design(c.design)
    ev, ad = c.evaluation, c.adaptive
    return CheckedCard(
        name=c.card.name, title=c.card.title, path=c.source.path,
        content_hash=content_hash(c.source.text),
        collection=meta.get("collection", ""), field=meta.get("field", ""),
        source=meta.get("source", ""), doi=meta.get("doi", ""),
        published=meta.get("published"), preprint=meta.get("preprint"),
        background=meta.get("background", ""), conditions=tuple(c.conditions),
        inputs=tuple(_input(c, i) for i in c.inputs), outputs=tuple(_output(c, o) for o in c.outputs),
        constraints=tuple(constraints),
        original=_environment(c, original, orig_typed), counterfactual=_environment(c, cf.env, cf.typed),
        counterfactual_label=c.counterfactual.label, mutations=cf.mutations,
        design_method=method, design_size=size, design_seed=seed, design_points=points,
        evaluation_size=int(ev.count.value) if ev else 256,
        evaluation_seed=int(ev.seed.value) if ev and ev.seed else 0,
        evaluation_ood=ev.ood.value if ev and ev.ood else None,
        interpolate=(c.identification.value == "yes") if c.identification else False,
        threshold=ad.threshold.value if ad else 0.9,
        max_steps=int(ad.max_steps.value) if ad and ad.max_steps else None,
        counterfactual_span=c.counterfactual.label_span,
        magnitude_reason=c.magnitude.reason if c.magnitude else None,
        magnitude_span=c.magnitude.span if c.magnitude else None,
        law_spans={**{("original", n): law.span for n, law in original.laws.items()},
                   **{("counterfactual", n): law.span for n, law in cf.env.laws.items()}},
        design_point_spans=c.design.point_spans if isinstance(c.design, A.DesignExplicit) else (),
    )


def _environment(c: "_Checker", state: EnvState, typed: Typed) -> Environment:
    lets, laws = typed.lets, typed.laws
    order = [n for n in let_order(state.lets, Reporter(c.source)) if n in lets]
    params = {}
    for p in c.params:
        dim = state.param_dims[p.name]
        own_unit = c.unit(p.unit)
        unit_text = (p.unit.text if p.unit else "1") if dim == own_unit.dim else format_si_unit(dim)
        params[p.name] = ParamValue(p.name, state.param_values[p.name], dim, unit_text, p.span,
                                    state.param_exact.get(p.name))
    return Environment(state.name, params, tuple((n, lets[n]) for n in order), dict(laws), dict(typed.wheres))


def _input(c: "_Checker", i: A.Input) -> InputModel:
    unit, d = c.unit(i.unit), i.domain
    if isinstance(d, A.SetDomain):
        vals = tuple(sorted(v.value for v in d.values))
        return InputModel(i.name, unit, "set", vals[0], vals[-1], vals, i.description, i.span)
    return InputModel(i.name, unit, d.kind, d.lo.value, d.hi.value, (), i.description, i.span)


def _output(c: "_Checker", o: A.Output) -> OutputModel:
    return OutputModel(o.name, c.unit(o.unit), o.resolution.value if o.resolution else None,
                       o.tol_abs.value, o.tol_rel.value, o.description, o.span,
                       o.noise.rel.value if o.noise else None,
                       o.noise.abs.value if o.noise and o.noise.abs else 0.0,
                       o.noise.span if o.noise else None)


def _design(d):
    """(method, size, seed, explicit points) of the Fixed protocol's design."""
    if isinstance(d, A.DesignExplicit):
        points = tuple({a.name: a.value.value for a in p} for p in d.points)
        return None, len(points), 0, points
    return (d.method if d else "sobol", int(d.count.value) if d else 4,
            int(d.seed.value) if d and d.seed else 0, ())
