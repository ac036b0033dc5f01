"""A player written in Python: fit a power law with numpy, and play it over a card.

Run from the repository root:

    python examples/custom_player.py [CARD]

CARD defaults to cards/historical/gravitation.sci. The example plays every
setting, world and protocol once (12 episodes) into a temporary run folder,
prints the submitted law of each episode and the summary rows, and deletes
the folder. See docs/models.md ("Writing your own player") for the
interface.

The player is deliberately simple:

* Discovery: it fits log y = log c + sum_i p_i log x_i by least squares over
  the observations, rounds each exponent to the nearest half when it is
  that close, and refits the coefficient c with the exponents fixed. With
  too few observations it guesses a constant.
* Identification: it tries the two members of the candidate family (s = 0
  and s = 1) and keeps the one closer to the observations (s = 0 when there
  are none).
* Adaptive protocol: it measures random points of the domain until it has
  a few more observations than unknowns, reporting two hypotheses at equal
  confidence (below the threshold tau) with a prediction under each, then
  submits with confidence max(tau, 0.95) on its best hypothesis.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from scigame import (Action, EpisodeState, EvalConfig, Experiment, Hypothesis, Player, PredictorInvalid, Store,
                     Submission, Usage, evaluate_predictor, run_eval, summarize)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CARD = REPO / "cards" / "historical" / "gravitation.sci"


# -- small helpers on expression trees -------------------------------------------------

def var(name: str) -> dict:
    return {"var": name}


def op(name: str, *args) -> dict:
    return {"op": name, "args": list(args)}


def substitute(tree, name: str, value: float):
    """The tree with the variable `name` replaced by a number."""
    if isinstance(tree, dict) and "var" in tree:
        return float(value) if tree["var"] == name else tree
    if isinstance(tree, dict):
        return op(tree["op"], *[substitute(a, name, value) for a in tree["args"]])
    return tree


def evaluate(predictor: dict, points: dict[str, list[float]]) -> dict[str, np.ndarray] | None:
    """The predictor's values at the points, or None if it is not defined there."""
    try:
        out = evaluate_predictor(predictor, {k: np.asarray(v, float) for k, v in points.items()})
    except (PredictorInvalid, ValueError):
        return None
    return out if all(np.all(np.isfinite(v)) for v in out.values()) else None


# -- the player -----------------------------------------------------------------------

class PowerLawPlayer(Player):
    """Fits y = c * prod x_i^p_i per output (discovery) or picks s (identification)."""

    name = "powerlaw"

    async def act(self, state: EpisodeState) -> tuple[Action, Usage]:
        task = state.task
        inputs = task["inputs"]
        outputs = [o["name"] for o in task["outputs"]]
        X = {i["name"]: [ob.inputs[i["name"]] for ob in state.observations] for i in inputs}
        Y = {o: [ob.outputs[o] for ob in state.observations] for o in outputs}

        if state.setting == "identification":
            hypotheses = self.identify(task, outputs, X, Y)
        else:
            hypotheses = self.discover(inputs, outputs, X, Y)

        wanted = len(inputs) + 3  # observations before trusting a fit
        if state.protocol == "adaptive" and not state.must_submit and len(state.observations) < wanted:
            point = self.random_point(inputs, state.seed + len(state.turns))
            predictions = []
            for _, predictor in hypotheses:
                values = evaluate(predictor, {k: [v] for k, v in point.items()})
                predictions.append({o: float(values[o][0]) if values else 0.0 for o in outputs})
            return Action(
                hypotheses=[Hypothesis(statement=text, confidence=0.5) for text, _ in hypotheses],
                experiment=Experiment(inputs=point, outputs=outputs, predictions=predictions),
                notes="collecting data before fitting"), Usage()

        top = min(1.0, max(float(state.threshold), 0.95))
        text, predictor = hypotheses[0]
        return Action(
            hypotheses=[Hypothesis(statement=hypotheses[0][0], confidence=top),
                        Hypothesis(statement=hypotheses[1][0], confidence=1.0 - top)],
            submission=Submission(
                selected=0, predictor=predictor,
                explanation=f"{text} (from {len(state.observations)} observations).",
                applicability="Within the measured ranges of the inputs, under the stated conditions."),
            notes="submitting the best fit"), Usage()

    @staticmethod
    def identify(task, outputs, X, Y) -> list[tuple[str, dict]]:
        """Both members of the candidate family, the better match first."""
        members = []
        for s in (0.0, 1.0):
            predictor = {o: substitute(task["candidates"][o]["tree"], "s", s) for o in outputs}
            error = 0.0
            values = evaluate(predictor, X) if X and len(next(iter(X.values()))) else None
            for o in outputs:
                if values is not None:
                    y = np.asarray(Y[o])
                    error += float(np.mean(((values[o] - y) / np.maximum(np.abs(y), 1e-300)) ** 2))
            members.append((error, f"the candidate law with s = {s:g}", predictor))
        members.sort(key=lambda m: m[0])  # stable: s = 0 first when there is no data
        return [(text, predictor) for _, text, predictor in members]

    @staticmethod
    def discover(inputs, outputs, X, Y) -> list[tuple[str, dict]]:
        """A fitted power law and a constant, per output."""
        names = [i["name"] for i in inputs]
        fitted, constant, texts = {}, {}, []
        for o in outputs:
            y = np.asarray(Y[o], float)
            columns = [np.asarray(X[n], float) for n in names]
            usable = len(y) >= len(names) + 1 and np.all(y > 0) and all(np.all(c > 0) for c in columns)
            mean = float(np.mean(y)) if len(y) else 1.0
            constant[o] = mean
            if not usable:
                fitted[o] = op("mul", *[var(n) for n in names]) if len(names) > 1 else var(names[0])
                texts.append(f"{o} grows with the inputs (not fitted yet)")
                continue
            A = np.column_stack([np.ones(len(y))] + [np.log(c) for c in columns])
            coef, *_ = np.linalg.lstsq(A, np.log(y), rcond=None)
            powers = [round(2 * p) / 2 if abs(2 * p - round(2 * p)) < 0.1 else float(p) for p in coef[1:]]
            rest = np.log(y) - sum(p * np.log(c) for p, c in zip(powers, columns))
            c = math.exp(float(np.mean(rest)))
            factors = [c] + [var(n) if p == 1 else op("pow", var(n), float(p))
                             for n, p in zip(names, powers) if p != 0]
            fitted[o] = op("mul", *factors)
            texts.append(f"{o} = {c:.6g}·" + "·".join(n if p == 1 else f"{n}^{p:g}"
                                                     for n, p in zip(names, powers) if p != 0))
        return [("; ".join(texts), fitted),
                ("; ".join(f"{o} is constant ({v:.4g})" for o, v in constant.items()), constant)]

    @staticmethod
    def random_point(inputs, seed: int) -> dict[str, float]:
        rng = np.random.default_rng(seed)
        point = {}
        for spec in inputs:
            d = spec["domain"]
            if d["kind"] == "set":
                point[spec["name"]] = float(rng.choice(d["values"]))
            elif d["kind"] == "log":
                point[spec["name"]] = float(math.exp(rng.uniform(math.log(d["lo"]), math.log(d["hi"]))))
            elif d["kind"] == "integer":
                point[spec["name"]] = float(rng.integers(math.ceil(d["lo"]), math.floor(d["hi"]) + 1))
            else:
                point[spec["name"]] = float(rng.uniform(d["lo"], d["hi"]))
        return point


# -- running it -------------------------------------------------------------------------

def fmt(value, pct=False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.0f}%" if pct else f"{value:.4f}"


def main(argv: list[str]) -> int:
    card = Path(argv[0]) if argv else DEFAULT_CARD
    with tempfile.TemporaryDirectory(prefix="scigame-custom-") as folder:
        config = EvalConfig(paths=[str(card)], repetitions=1, out=folder)  # all settings, worlds, protocols
        report = asyncio.run(run_eval(config, player=("powerlaw", PowerLawPlayer)))
        if report.skipped_cards or report.errors:
            print("could not play:", report.skipped_cards or report.errors)
            return 1
        with Store(folder) as store:
            rows = store.rows()
            episodes = list(store.episodes())

        print("submitted laws:")
        for e in episodes:
            submission = next((t.action.submission for t in e.turns if t.action and t.action.submission), None)
            law = submission.explanation if submission else "(no submission)"
            print(f"  {e.key.setting:<14} {e.key.environment:<14} {e.key.protocol:<8} {law}")

        print("\nsummary (one row per setting, world and protocol):")
        print(f"  {'setting':<14} {'environment':<14} {'protocol':<8} {'B':>3} {'n':>2} "
              f"{'weak ESR':>8} {'strict ESR':>10} {'mean PS':>8}")
        for r in summarize(rows):
            print(f"  {r['setting']:<14} {r['environment']:<14} {r['protocol']:<8} {r['budget']:>3} "
                  f"{r['finished']:>2} {fmt(r['weak_esr'], True):>8} {fmt(r['strict_esr'], True):>10} "
                  f"{fmt(r['mean_ps']):>8}")
        print(f"\n{report.played} episodes played")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
