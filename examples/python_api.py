"""Check a card from Python, look at the checked model, and evaluate both worlds.

Run from the repository root:

    python examples/python_api.py [CARD]

CARD defaults to cards/historical/gravitation.sci; the experiment evaluated
below is the default card's (m1 = 100 kg, m2 = 200 kg, r = 2 m). For another
card, the middle of every input's domain is used instead (the geometric
middle of a `log` domain, the middle of what is sampled).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scigame import check_file, render

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CARD = REPO / "cards" / "historical" / "gravitation.sci"


def describe_domain(spec) -> str:
    if spec.kind == "set":
        return "{" + ", ".join(f"{v:g}" for v in spec.values) + "}"
    prefix = {"range": "", "log": "log ", "integer": "integer "}[spec.kind]
    return f"{prefix}{spec.lo:g} .. {spec.hi:g}"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT_CARD
    result = check_file(path)

    # A card with errors has no model; print the findings the way lint does.
    if not result.ok:
        for diagnostic in result.diagnostics:
            print(render(diagnostic, result.source))
        return 1
    card = result.card

    print(f"card {card.name}: {card.title} ({card.collection}, {card.field})")
    print(f"counterfactual: {card.counterfactual_label}")
    for mutation in card.mutations:
        print(f"  mutation ({mutation.kind}): {mutation.text}")

    print("\ninputs (declared units):")
    for spec in card.inputs:
        print(f"  {spec.name} [{spec.unit.text}] in {describe_domain(spec)}  {spec.description}")

    print("\noutputs:")
    for spec in card.outputs:
        resolution = "exact" if spec.resolution is None else f"resolution {spec.resolution:g}"
        print(f"  {spec.name} [{spec.unit.text}]  {resolution}, "
              f"tolerance abs {spec.tol_abs:g} rel {spec.tol_rel:g}")

    # Param values are stored in SI base units; unit_text is the unit they are
    # shown in (the SI base unit a `rebalance` gave them, in the counterfactual).
    print("\nparams:")
    for env in (card.original, card.counterfactual):
        for name, param in env.params.items():
            print(f"  {env.name:>14}: {name} = {param.value:g} [{param.unit_text}]")

    # One experiment, in the inputs' declared units.
    if path.resolve() == DEFAULT_CARD:
        point = {"m1": 100.0, "m2": 200.0, "r": 2.0}
    else:
        # the middle of each domain: geometric on a `log` domain, as it is sampled
        point = {s.name: s.middle for s in card.inputs}
    print("\nexperiment: " + ", ".join(f"{k} = {v:g}" for k, v in point.items()))

    # evaluate() is the reference evaluator: inputs in declared units in,
    # outputs in declared units out (numpy arrays; scalars here).
    original = card.original.evaluate(card, point)
    counterfactual = card.counterfactual.evaluate(card, point)
    for spec in card.outputs:
        print(f"  original       {spec.name} = {float(original[spec.name]):.10g} {spec.unit.text}")
        print(f"  counterfactual {spec.name} = {float(counterfactual[spec.name]):.10g} {spec.unit.text}")

    # Arrays work too: one call evaluates many experiments at once.
    first = card.inputs[0]
    sweep = dict(point)
    sweep[first.name] = [first.lo, first.middle, first.hi]
    values = card.original.evaluate(card, sweep)
    out = card.outputs[0].name
    print(f"\noriginal {out} with {first.name} at its low, middle and high value: "
          + ", ".join(f"{v:.4g}" for v in values[out]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
