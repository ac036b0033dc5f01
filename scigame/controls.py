"""Experimental controls of an episode, beyond the card itself.

    noise        override every output's measurement noise: gaussian, relative R
    context      how much prior knowledge the task text gives away:
                   full           the card's background, conditions and descriptions
                   no-background  no background and no applicability conditions
                   anonymous      also neutral names (x1, x2, ..., y1, ...) and no descriptions
    distractors  K extra controllable inputs, with plausible units and domains, that the law ignores

A `Presentation` is one episode's view of a card under its controls: it
builds the task the player reads, turns the player's words (names,
experiments, predictors) back into the card's, observes with noise, and
scores. The card's own laws and evaluation set are never changed: scoring is
always against the exact law.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal, Mapping, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .compiler.artifact import DomainSpec, InputSpec
from .compiler.limits import MAX_NOISE_REL
from .oracle import Rejection
from .records import Observation

CONTEXTS: tuple[str, ...] = ("full", "no-background", "anonymous")

#: Inputs a laboratory has whatever it studies, and that no bundled law uses:
#: the pool distractors are drawn from (name, unit, domain, description).
_BASES = ("mass", "length", "time", "current", "temperature", "substance", "luminosity")


def _dimension(**exponents: float) -> dict[str, float]:
    return {b: float(exponents.get(b, 0)) for b in _BASES}


DISTRACTOR_POOL: tuple[InputSpec, ...] = tuple(
    InputSpec(name=n, unit=u, si_factor=f, dimension=_dimension(**dim),
              domain=DomainSpec(kind=k, lo=lo, hi=hi), description=d)
    for n, u, f, dim, k, lo, hi, d in (
        ("T_room", "K", 1.0, {"temperature": 1}, "range", 288.0, 303.0, "temperature of the laboratory air"),
        ("p_air", "kPa", 1e3, {"mass": 1, "length": -1, "time": -2}, "range", 95.0, 105.0,
         "ambient air pressure"),
        ("RH", "1", 1.0, {}, "range", 0.2, 0.8, "relative humidity of the laboratory air"),
        ("t_on", "min", 60.0, {"time": 1}, "range", 5.0, 120.0, "time since the apparatus was switched on"),
        ("h_bench", "m", 1.0, {"length": 1}, "range", 0.7, 1.2, "height of the bench above the floor"),
        ("B_stray", "uT", 1e-6, {"mass": 1, "time": -2, "current": -1}, "range", 20.0, 70.0,
         "stray magnetic field at the apparatus"),
        ("E_room", "lx", 1.0, {"luminosity": 1, "length": -2}, "log", 50.0, 2000.0, "illuminance of the room"),
        ("V_mains", "V", 1.0, {"mass": 1, "length": 2, "time": -3, "current": -1}, "range", 220.0, 240.0,
         "mains supply voltage"),
        ("n_run", "1", 1.0, {}, "integer", 1.0, 20.0, "index of the measurement run"),
        ("f_vib", "Hz", 1.0, {"time": -1}, "log", 1.0, 100.0, "frequency of the building's vibrations"),
    ))
MAX_DISTRACTORS = len(DISTRACTOR_POOL)


class Controls(BaseModel):
    """The controls of one episode (all defaults: the card as written)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    noise: Optional[float] = Field(default=None, ge=0.0, le=MAX_NOISE_REL, allow_inf_nan=False)
    context: Literal["full", "no-background", "anonymous"] = "full"
    distractors: int = Field(default=0, ge=0, le=MAX_DISTRACTORS)

    @property
    def is_default(self) -> bool:
        return self == Controls()


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream])


#: Seed streams of one episode: each use of randomness has its own.
_PICK, _DESIGN, _EVAL_A, _EVAL_B, _FIXED_NOISE, _EVAL_OOD = 1, 2, 3, 4, 5, 6
_ADAPTIVE_NOISE = 1000  # + the experiment's index


def draw(spec: InputSpec, rng: np.random.Generator, n: int) -> np.ndarray:
    """n values of an input, uniformly over its domain (log-uniform on `log`)."""
    d, u = spec.domain, rng.random(n)
    if d.kind == "log":
        return np.exp(math.log(d.lo) + u * (math.log(d.hi) - math.log(d.lo)))
    if d.kind == "integer":
        lo, hi = math.ceil(d.lo), math.floor(d.hi)
        return np.minimum(lo + np.floor(u * (hi - lo + 1)), hi)
    if d.kind == "set":
        return np.asarray(d.values)[np.minimum((u * len(d.values)).astype(int), len(d.values) - 1)]
    return d.lo + u * (d.hi - d.lo)


def rename_tree(tree: Any, names: Mapping[str, str]) -> Any:
    """A predictor tree with its variables renamed (others kept)."""
    if isinstance(tree, dict):
        if set(tree) == {"var"} and isinstance(tree["var"], str):
            return {"var": names.get(tree["var"], tree["var"])}
        return {k: rename_tree(v, names) for k, v in tree.items()}
    if isinstance(tree, list):
        return [rename_tree(v, names) for v in tree]
    return tree


def tree_variables(tree: Any) -> set[str]:
    """The variable names a predictor tree refers to."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("var"), str):
                found.add(node["var"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _rename_text(text: str, names: Mapping[str, str]) -> str:
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], text)


class Presentation:
    """One episode's card as the player meets it under `controls`.

    Player names: under `anonymous` the inputs (distractors included, in the
    order shown) are x1, x2, ... and the outputs y1, y2, ...; otherwise the
    card's own names. Everything the player sends is in player names and is
    mapped back here before the oracle or the scorer sees it."""

    def __init__(self, card, controls: Controls, seed: int):
        self.card, self.controls, self.seed = card, controls, seed
        taken = {n.lower() for n in card.input_names + card.output_names}
        pool = [s for s in DISTRACTOR_POOL if s.name.lower() not in taken]
        rng = _rng(seed, _PICK)
        # a card whose own names take pool entries leaves fewer to draw: it gets all that are left
        count = min(controls.distractors, len(pool))
        picked = [pool[i] for i in sorted(rng.choice(len(pool), count, replace=False))] if count else []
        self.distractors: list[InputSpec] = picked
        shown = list(card.data.inputs)
        for spec in picked:  # each at a seeded position among the card's inputs
            shown.insert(int(rng.integers(0, len(shown) + 1)), spec)
        self.shown_inputs: list[InputSpec] = shown
        if controls.context == "anonymous":
            names = {s.name: f"x{i + 1}" for i, s in enumerate(shown)}
            names.update({o.name: f"y{i + 1}" for i, o in enumerate(card.data.outputs)})
        else:
            names = {}
        self._to_player = names
        self._to_card = {v: k for k, v in names.items()}
        self.noise = card.noise_models(controls.noise)

    # -- names ---------------------------------------------------------------
    def player_name(self, name: str) -> str:
        return self._to_player.get(name, name)

    def card_name(self, name: str) -> str:
        return self._to_card.get(name, name)

    @property
    def input_names(self) -> list[str]:
        return [self.player_name(s.name) for s in self.shown_inputs]

    @property
    def output_names(self) -> list[str]:
        return [self.player_name(n) for n in self.card.output_names]

    # -- the task --------------------------------------------------------------
    def view(self, view: dict) -> dict:
        """The task view under the controls (the card's public view in, the
        player's out)."""
        view = dict(view)
        context = self.controls.context
        anonymous = context == "anonymous"
        inputs = {i["name"]: i for i in view["inputs"]}
        shown = []
        for spec in self.shown_inputs:
            item = dict(inputs[spec.name]) if spec.name in inputs else spec.public()
            shown.append(item)
        view["inputs"] = shown
        view["outputs"] = [dict(o) for o in view["outputs"]]
        for o in view["outputs"]:
            o["noise"] = self.noise[o["name"]].model_dump() if self.noise[o["name"]] else None
        if context != "full":
            view["background"] = ""
            view["conditions"] = []
        if anonymous:
            for item in view["inputs"] + view["outputs"]:
                item["name"] = self.player_name(item["name"])
                item["description"] = ""
            view["constraints"] = [{"text": _rename_text(c["text"], self._to_player), "message": ""}
                                   for c in view["constraints"]]
            if "candidates" in view:
                view["candidates"] = {self.player_name(k): {
                    **c, "text": _rename_text(c["text"], self._to_player),
                    "tree": rename_tree(c["tree"], self._to_player)} for k, c in view["candidates"].items()}
        return view

    # -- observing -----------------------------------------------------------------
    def observe(self, env: str, inputs: Mapping[str, float], outputs: list[str],
                index: int) -> Observation:
        """The `index`-th experiment of the episode (player names in and out).
        Raises Rejection. Each experiment draws fresh noise from its own seed."""
        known, shown = set(self.input_names), self.input_names
        reasons = [f"unknown input `{k}` (inputs: {', '.join(shown)})" for k in sorted(set(inputs) - known)]
        reasons += [f"missing input `{k}`" for k in shown if k not in inputs]
        reasons += [f"unknown output `{o}` (outputs: {', '.join(self.output_names)})"
                    for o in outputs if o not in self.output_names]
        if reasons:
            raise Rejection(reasons)
        card_inputs = {self.card_name(k): v for k, v in inputs.items()}
        self._check_distractors(card_inputs)
        law_inputs = {k: v for k, v in card_inputs.items() if k not in self._distractor_names}
        try:
            observed = self.card.simulate(env, law_inputs, outputs=[self.card_name(o) for o in outputs],
                                          seed=[self.seed, _ADAPTIVE_NOISE + index],
                                          noise=self.controls.noise)
        except Rejection as rejection:  # the oracle speaks the card's names; the player reads its own
            raise Rejection([_rename_text(r, self._to_player) for r in rejection.reasons]) from None
        return Observation(inputs={k: float(v) for k, v in inputs.items()},
                           outputs={self.player_name(k): float(v[0]) for k, v in observed.items()})

    @property
    def _distractor_names(self) -> set[str]:
        return {s.name for s in self.distractors}

    def _check_distractors(self, card_inputs: Mapping[str, float]) -> None:
        if not self.distractors:
            return
        from .oracle import _check_one_input
        reasons = []
        for spec in self.distractors:
            try:
                x = np.atleast_1d(np.asarray(card_inputs[spec.name], dtype=float))
            except (TypeError, ValueError):
                reasons.append(f"input `{self.player_name(spec.name)}` must be a number")
                continue
            reasons.extend(r.replace(spec.name, self.player_name(spec.name), 1)
                           for r in _check_one_input(spec, x))
        if reasons:
            raise Rejection(reasons)

    def preset(self, env: str, budget: int) -> list[Observation]:
        """The Fixed protocol's first `budget` design points, observed, with a
        seeded value of every distractor at each point."""
        points = self.card.data.design.points[:budget]
        if not points:
            return []
        inputs = {name: np.array([p[name] for p in points]) for name in self.card.input_names}
        outputs = self.card.simulate(env, inputs, seed=[self.seed, _FIXED_NOISE], noise=self.controls.noise)
        rng = _rng(self.seed, _DESIGN)
        inputs.update({s.name: draw(s, rng, len(points)) for s in self.distractors})
        order = [s.name for s in self.shown_inputs]
        return [Observation(inputs={self.player_name(k): float(inputs[k][i]) for k in order},
                            outputs={self.player_name(k): float(v[i]) for k, v in outputs.items()})
                for i in range(len(points))]

    # -- scoring ------------------------------------------------------------------
    def card_predictor(self, predictor: Any) -> Any:
        """A submitted predictor in the card's names (anything that is not a
        mapping is passed on for the validator to reject)."""
        if not isinstance(predictor, dict) or not self._to_card:
            return predictor
        return {self.card_name(k): rename_tree(v, self._to_card) for k, v in predictor.items()}

    def score(self, predictor: Any, env: str):
        """Score a submitted predictor (player names) on the card's hidden
        evaluation set; returns (score, the card-like object it was scored
        on, the predictor in the card's names) for failure classification.

        A predictor that depends on a distractor is scored with the
        distractors' values drawn at every evaluation point, and is never
        strict: the law ignores them. One that mentions a distractor without
        depending on it (`0*x`) is scored with the distractor fixed."""
        predictor = self.card_predictor(predictor)
        used = self._used_distractors(predictor)
        if not used:
            return self.card.score(predictor, env), self.card, predictor
        n = len(next(iter(self.card.evaluation.inputs.values())))
        draws = [{s.name: draw(s, _rng(self.seed, stream), n) for s in self.distractors}
                 for stream in (_EVAL_A, _EVAL_B)]
        if not self._depends(predictor, draws):
            fixed = _substitute(predictor, {s.name: float(draws[0][s.name][0]) for s in self.distractors})
            return self.card.score(fixed, env), self.card, fixed
        target = _WithInputs(self.card, self.distractors, draws[0], self.seed)
        score = target.score(predictor, env)
        if score.strict is not False:
            names = ", ".join(f"`{self.player_name(n)}`" for n in sorted(used))
            score = score.model_copy(update={
                "strict": False, "strict_reason": f"the predictor depends on {names}, which the law ignores"})
        return score, target, predictor

    def _used_distractors(self, predictor: Any) -> set[str]:
        if not self.distractors or not isinstance(predictor, dict):
            return set()
        used = set().union(*(tree_variables(t) for t in predictor.values())) if predictor else set()
        return used & self._distractor_names

    def _depends(self, predictor: dict, draws: list[dict]) -> bool:
        """Does the predictor's value change with the distractors' values?"""
        from .predictor import PredictorInvalid, evaluate_predictor, validate_predictor
        names = self.card.input_names + [s.name for s in self.distractors]
        try:
            clean = validate_predictor(predictor, names, self.card.output_names)
            base = {k: np.asarray(v, dtype=float) for k, v in self.card.evaluation.inputs.items()}
            a, b = (evaluate_predictor(clean, {**base, **d}) for d in draws)
        except PredictorInvalid:
            return True  # invalid either way; the scorer says why
        for k in a:
            x, y = np.broadcast_arrays(np.asarray(a[k], float), np.asarray(b[k], float))
            if not np.allclose(x, y, rtol=1e-12, atol=0.0, equal_nan=True):
                return True
        return False


def _substitute(tree: Any, values: Mapping[str, float]) -> Any:
    """The tree with the named variables replaced by numbers."""
    if isinstance(tree, dict):
        if set(tree) == {"var"} and tree["var"] in values:
            return values[tree["var"]]
        return {k: _substitute(v, values) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_substitute(v, values) for v in tree]
    return tree


class _WithInputs:
    """A card seen with extra inputs (the distractors) in its evaluation set,
    for scoring a predictor that uses them."""

    def __init__(self, card, extra: list[InputSpec], values: Mapping[str, np.ndarray], seed: int):
        self.data = card.data.model_copy(update={"inputs": list(card.data.inputs) + list(extra)})
        ev = card.evaluation
        update = {"inputs": {**ev.inputs, **{k: [float(x) for x in v] for k, v in values.items()}}}
        if ev.ood_inputs is not None:
            m = len(next(iter(ev.ood_inputs.values())))
            rng = _rng(seed, _EVAL_OOD)
            update["ood_inputs"] = {**ev.ood_inputs, **{s.name: [float(x) for x in draw(s, rng, m)]
                                                        for s in extra}}
        self.evaluation = ev.model_copy(update=update)
        self.input_names = [s.name for s in self.data.inputs]
        self.output_names = card.output_names

    def score(self, predictor, env: str):
        from .scoring import score_predictor
        return score_predictor(self, predictor, env)
