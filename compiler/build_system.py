"""What a system card adds to its compiled folder: the law's trees over its
arguments in their declared units (the reference for PS, weak and strict),
the law's hidden evaluation set, its tolerance, and the system's part of the
public view.

A law of named arguments declares no unit: its value is in the SI unit of
its dimension (`SystemSpec.law_unit`), and its tolerance is
system_law.law_tolerance's (computed by system_emit.system_spec).
"""

from __future__ import annotations

from .artifact import LawEvaluationSet, SystemSpec
from .system_law import law_points, law_values


def declared_law_tree(spec: SystemSpec, world: str):
    """The law of `world` as a tree over its arguments in declared units (the
    shape of a player's predictor)."""
    factors = {f"arg:{a.name}": a for a in spec.arguments}

    def walk(t):
        if isinstance(t, dict) and "var" in t:
            a = factors[t["var"]]
            return {"var": a.name} if a.si_factor == 1.0 else {"op": "mul", "args": [{"var": a.name}, a.si_factor]}
        if isinstance(t, dict) and "op" in t:
            return {"op": t["op"], "args": [walk(x) for x in t["args"]]}
        return t

    return walk(spec.worlds[world].law)


def law_evaluation(card, spec: SystemSpec) -> LawEvaluationSet:
    """The hidden set of the law's arguments and the law's values in each world."""
    pts = law_points(spec.arguments, card.evaluation_size, card.evaluation_seed + 1)
    outputs = {w: {spec.law: [float(x) for x in law_values(spec.arguments, spec.worlds[w].law, pts)]}
               for w in spec.worlds}
    return LawEvaluationSet(inputs={k: [float(x) for x in v] for k, v in pts.items()}, outputs=outputs)


def public_system(spec: SystemSpec) -> dict:
    """The system as a player sees it: states, their initial values and rates
    as the card writes them, and what to submit. The law's body is hidden."""
    return {
        "time": spec.time,
        "states": [{"name": s.name, "unit": s.unit, "si_factor": s.si_factor, "initial": s.initial_text,
                    "rate": s.rate_text, "description": s.description} for s in spec.states],
        "lets": [{"name": n, "text": t} for n, t in spec.let_texts.items()],
        "outputs": dict(spec.outputs),
        "law": {"name": spec.law, "arguments": [a.public() for a in spec.arguments], "unit": spec.law_unit,
                "dimension": dict(spec.law_dimension),
                "tolerance": {"abs": spec.law_tol_abs, "rel": spec.law_tol_rel}},
        "submit": (f"a predictor for `{spec.law}` only: a tree over its arguments "
                   f"({', '.join(a.name for a in spec.arguments)}) in their units, giving the law's value in "
                   f"[{spec.law_unit}]"),
        # SI trees for players that simulate the system themselves (the law stays a call)
        "trees": None if spec.hidden_rates else {
            "initial": list(spec.worlds["original"].initial),
            "lets": [[n, t] for n, t in spec.worlds["original"].lets],
            "rates": list(spec.worlds["original"].rates)},
        "rtol": spec.rtol,
    }


def law_view_data(data):
    """A system card's data as the scorer sees it: the law's arguments as
    the inputs, the law as the one output (its trees are the worlds' laws)."""
    from .artifact import OutputSpec
    spec = data.system
    law = OutputSpec(name=spec.law, unit=spec.law_unit, si_factor=1.0, dimension=dict(spec.law_dimension),
                     resolution=None, tol_abs=spec.law_tol_abs, tol_rel=spec.law_tol_rel,
                     description=f"the law acting inside the system, {spec.law}("
                                 + ", ".join(a.name for a in spec.arguments) + ")")
    return data.model_copy(update={"inputs": list(spec.arguments), "outputs": [law], "constraints": []})


def system_simulator(card, data) -> tuple[str, list]:
    """simulator.py of a system card (system_emit.card_module_source) and
    its source map (none: the card's lines become one function)."""
    from .system_emit import card_module_source
    return card_module_source(card, data.system), []
