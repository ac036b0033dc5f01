"""Score a hand-written predictor with scigame, then redo the arithmetic by hand.

Run from the repository root:

    python examples/score_by_hand.py

The pendulum card's original law is T = 2*pi*sqrt(L / g) with g = 9.81 m/s^2
(L in metres, T in seconds). We write that law as a predictor tree, let
`card.score` score it in both worlds, and recompute the scaled errors e, the
prediction score PS and weak success from the card's stored evaluation set
with plain numpy. Then we submit a predictor that takes the log of a
negative number, to see how an invalid predictor is reported.

The card is compiled into the user cache on first use ($SCIGAME_CACHE, else
~/.cache/scigame/cards); nothing is written into the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import scigame

REPO = Path(__file__).resolve().parent.parent
CARD = REPO / "cards" / "historical" / "pendulum.sci"

PI = 3.141592653589793
G = 9.81

# T = 2 * pi * sqrt(L / g), as a tree: mul(2, pi, sqrt(div(L, g))).
ORIGINAL_LAW = {
    "T": {"op": "mul", "args": [
        2.0,
        PI,
        {"op": "sqrt", "args": [{"op": "div", "args": [{"var": "L"}, G]}]},
    ]},
}

# log(L - 3): L is at most 2 m on this card, so the argument is always negative.
INVALID = {
    "T": {"op": "log", "args": [{"op": "sub", "args": [{"var": "L"}, 3.0]}]},
}


def by_hand(card, env: str) -> dict:
    """e, PS and weak from the stored evaluation set, with plain numpy."""
    L = np.asarray(card.evaluation.inputs["L"], dtype=float)
    predicted = 2.0 * PI * np.sqrt(L / G)          # the same formula as the tree
    errors = []
    for out in card.data.outputs:                   # this card has one output, T
        truth = np.asarray(card.evaluation.outputs[env][out.name], dtype=float)
        e = np.abs(predicted - truth) / (out.tol_abs + out.tol_rel * np.abs(truth))
        errors.append(e)
    every_e = np.concatenate(errors)
    return {
        "max_e": float(max(e.max() for e in errors)),
        "mean_e": float(every_e.mean()),
        "ps": float(1.0 / (1.0 + every_e.mean())),
        "weak": bool(all(e.max() <= 1.0 for e in errors)),
    }


def main() -> int:
    card = scigame.load_card(CARD)
    out = card.data.outputs[0]
    print(f"card {card.name}: inputs {card.input_names}, outputs {card.output_names}")
    print(f"output {out.name} [{out.unit}]: tolerance abs {out.tol_abs:g}, rel {out.tol_rel:g}; "
          f"{len(card.evaluation.inputs['L'])} evaluation points")
    print("predictor: T = 2*pi*sqrt(L/9.81)")
    print()
    print(f"{'':16}{'library':>24}{'by hand':>24}")
    for env in ("original", "counterfactual"):
        score = card.score(ORIGINAL_LAW, env)
        hand = by_hand(card, env)
        print(f"{env}")
        print(f"  {'max e':14}{score.outputs['T'].max_error:>24.17g}{hand['max_e']:>24.17g}")
        print(f"  {'mean e':14}{score.outputs['T'].mean_error:>24.17g}{hand['mean_e']:>24.17g}")
        print(f"  {'PS':14}{score.ps:>24.17g}{hand['ps']:>24.17g}")
        print(f"  {'weak':14}{str(score.weak):>24}{str(hand['weak']):>24}")
        print(f"  {'strict':14}{str(score.strict):>24}{'(sympy only)':>24}")
        print(f"  strict reason: {score.strict_reason}")
        if abs(score.ps - hand["ps"]) > 1e-12 or score.weak != hand["weak"]:
            print("  MISMATCH between the library and the hand computation", file=sys.stderr)
            return 1
    print()

    bad = card.score(INVALID, "original")
    print("predictor: T = log(L - 3)")
    print(f"  valid = {bad.valid}, PS = {bad.ps}, weak = {bad.weak}, strict = {bad.strict}")
    print(f"  reason: {bad.reason}")
    print(f"  path:   {bad.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
