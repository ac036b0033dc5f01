"""The built-in baseline player, driven directly (no runner): actions are
well formed, deterministic, and good enough to be a reference point."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import numpy as np
import pytest

import scigame
from scigame.players.base import EpisodeState
from scigame.players.baseline import BaselinePlayer
from scigame.predictor import evaluate_predictor, validate_predictor
from scigame.records import CONFIDENCE_SLACK, Action, Observation, OracleResponse, Turn

CARDS = Path(__file__).resolve().parent.parent / "cards" / "historical"
SHIFTED = CARDS.parent.parent / "benchmarks" / "shifted"
ALL_CARDS = sorted(p.stem for p in CARDS.glob("*.sci"))


@pytest.fixture(scope="module")
def cards():
    loaded: dict[str, object] = {}

    def get(name: str):
        if name not in loaded:
            loaded[name] = scigame.load_card(CARDS / f"{name}.sci")
        return loaded[name]
    return get


# -- helpers ---------------------------------------------------------------------------

def make_state(card, env, setting, protocol, observations=(), turns=(), seed=0, budget=None,
               must_submit=None) -> EpisodeState:
    budget = len(observations) if budget is None else budget
    task = card.public_view(env, setting) | {"protocol": protocol, "threshold": card.data.threshold,
                                             "budget": budget}
    if must_submit is None:
        must_submit = protocol != "adaptive"
    return EpisodeState(task=task, setting=setting, protocol=protocol, threshold=card.data.threshold,
                        observations=list(observations), turns=list(turns), must_submit=must_submit,
                        steps_left=None if protocol != "adaptive" else max(budget - len(turns), 0), seed=seed)


def observe(card, env, points) -> list[Observation]:
    X = {k: np.array([p[k] for p in points], dtype=float) for k in points[0]}
    Y = card.simulate(env, X)
    return [Observation(inputs={k: float(v) for k, v in p.items()},
                        outputs={k: float(v[i]) for k, v in Y.items()}) for i, p in enumerate(points)]


def design(card, n):
    """The first n points of the card's preset design."""
    points = [dict(p) for p in card.data.design.points]
    assert len(points) >= n
    return points[:n]


def act(state: EpisodeState) -> Action:
    action, usage = asyncio.run(BaselinePlayer().act(state))
    assert usage.calls == 0 and usage.cost_usd == 0
    return action


def check_action(action: Action, card, state: EpisodeState) -> None:
    """The action follows the format every protocol asks for."""
    inputs, outputs = card.input_names, card.output_names
    hyps = action.hypotheses
    assert len(hyps) >= 2
    assert all(h.confidence >= 0 for h in hyps)
    assert abs(sum(h.confidence for h in hyps) - 1.0) <= CONFIDENCE_SLACK
    for h in hyps:
        validate_predictor(h.predictor, inputs, outputs)
    if action.experiment is not None:
        ex = action.experiment
        assert set(ex.inputs) == set(inputs) and ex.outputs == outputs
        assert len(ex.predictions) == len(hyps)
        for row in ex.predictions:
            assert set(row) == set(outputs) and all(math.isfinite(v) for v in row.values())
        for spec in state.task["inputs"]:
            dom, v = spec["domain"], ex.inputs[spec["name"]]
            if dom["kind"] == "set":
                assert v in dom["values"]
            else:
                assert dom["lo"] <= v <= dom["hi"]
                if dom["kind"] == "integer":
                    assert v == int(v)
        assert max(h.confidence for h in hyps) < state.threshold
    else:
        sub = action.submission
        assert sub is not None and 0 <= sub.selected < len(hyps)
        assert sub.predictor == hyps[sub.selected].predictor
        assert sub.explanation.strip() and sub.applicability.strip()
        validate_predictor(sub.predictor, inputs, outputs)


def run_adaptive(card, env, setting, budget=24, seed=0):
    """Propose -> simulate -> append, until the player submits."""
    observations: list[Observation] = []
    turns: list[Turn] = []
    for step in range(budget + 1):
        state = make_state(card, env, setting, "adaptive", observations, turns, seed=seed, budget=budget,
                           must_submit=step >= budget)
        action = act(state)
        check_action(action, card, state)
        if action.submission is not None:
            return action, observations
        (ob,) = observe(card, env, [action.experiment.inputs])
        # the prediction of every hypothesis is reported for the point observed
        observations.append(ob)
        turns.append(Turn(index=step, action=action, response=OracleResponse(observation=ob)))
    raise AssertionError("the player never submitted")


# -- identification ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL_CARDS)
@pytest.mark.parametrize("env", ["original", "counterfactual"])
def test_identification_picks_the_environment(cards, name, env):
    card = cards(name)
    state = make_state(card, env, "identification", "fixed", observe(card, env, design(card, 8)))
    action = act(state)
    check_action(action, card, state)
    chosen = action.hypotheses[action.submission.selected]
    assert ("(s = 0)" in chosen.statement) == (env == "original")
    assert ("(s = 1)" in chosen.statement) == (env == "counterfactual")
    assert chosen.confidence > 0.99
    score = card.score(action.submission.predictor, env)
    assert score.weak and score.strict


@pytest.mark.parametrize("name", ["gravitation", "michaelis_menten", "snell"])
def test_identification_without_data_trusts_the_textbook(cards, name):
    card = cards(name)
    state = make_state(card, "counterfactual", "identification", "prior")
    action = act(state)
    check_action(action, card, state)
    assert "(s = 0)" in action.hypotheses[action.submission.selected].statement
    assert card.score(action.submission.predictor, "original").weak


def test_identification_adaptive_asks_where_candidates_differ(cards):
    card = cards("gravitation")
    action, observations = run_adaptive(card, "counterfactual", "identification")
    assert 1 <= len(observations) <= 4
    assert action.hypotheses[action.submission.selected].confidence >= card.data.threshold
    assert card.score(action.submission.predictor, "counterfactual").weak


# -- discovery ------------------------------------------------------------------------------

RECOVERED = [("gravitation", "original"), ("gravitation", "counterfactual"),
             ("bragg", "original"), ("rydberg", "original"), ("nernst", "original"),
             ("thin_lens", "original"), ("projectile", "original"),
             ("pendulum", "original"), ("pendulum", "counterfactual"),
             ("stefan_boltzmann", "original"), ("stefan_boltzmann", "counterfactual"),
             ("darcy", "original"), ("darcy", "counterfactual")]


@pytest.mark.parametrize(("name", "env"), RECOVERED)
@pytest.mark.parametrize("n", [8, 16])
def test_discovery_recovers_the_law(cards, name, env, n):
    card = cards(name)
    state = make_state(card, env, "discovery", "fixed", observe(card, env, design(card, n)))
    action = act(state)
    check_action(action, card, state)
    score = card.score(action.submission.predictor, env)
    assert score.weak, score.reason
    assert score.strict, score.strict_reason


@pytest.mark.parametrize(("name", "env"), [("arrhenius", "original"), ("michaelis_menten", "original"),
                                           ("malus", "original"), ("snell", "counterfactual"),
                                           ("radioactive_decay", "counterfactual"),
                                           ("ideal_gas", "counterfactual")])
def test_discovery_library_beyond_power_laws(cards, name, env):
    card = cards(name)
    state = make_state(card, env, "discovery", "fixed", observe(card, env, design(card, 8)))
    action = act(state)
    check_action(action, card, state)
    assert card.score(action.submission.predictor, env).weak


def test_discovery_prior_uses_dimensional_analysis(cards):
    card = cards("gravitation")
    state = make_state(card, "original", "discovery", "prior")
    action = act(state)
    check_action(action, card, state)
    sub = action.submission
    assert "units alone" in sub.explanation and "coefficient 1" in sub.explanation
    # G·m1·m2/r² is the only product with a single constant that has the units of a force
    assert card.score(sub.predictor, "original").weak


def test_discovery_adaptive_gravitation_stops_by_the_threshold(cards):
    card = cards("gravitation")
    action, observations = run_adaptive(card, "original", "discovery", budget=24)
    top = action.hypotheses[action.submission.selected]
    assert top.confidence >= card.data.threshold
    assert len(observations) < 24
    score = card.score(action.submission.predictor, "original")
    assert score.weak and score.strict


def test_discovery_adaptive_first_turn_proposes(cards):
    card = cards("darcy")
    state = make_state(card, "original", "discovery", "adaptive", budget=10)
    action = act(state)
    check_action(action, card, state)
    assert action.experiment is not None


# -- protocol behaviour -------------------------------------------------------------------------

@pytest.fixture
def no_memo(monkeypatch):
    """Every act searches anew (else a repeated state is answered from memo.py)."""
    import scigame.players.baseline.player as player
    monkeypatch.setattr(player.DISCOVER, "size", 0)
    monkeypatch.setattr(player.IDENTIFY, "size", 0)


def test_deterministic_for_a_seed(cards, no_memo):
    card = cards("stefan_boltzmann")
    obs = observe(card, "original", design(card, 6))
    a = act(make_state(card, "original", "discovery", "adaptive", obs, seed=7, budget=20))
    b = act(make_state(card, "original", "discovery", "adaptive", obs, seed=7, budget=20))
    assert a.model_dump_json() == b.model_dump_json()
    state = make_state(card, "counterfactual", "identification", "adaptive", seed=3, budget=5)
    assert act(state).model_dump_json() == act(state).model_dump_json()


def test_must_submit_when_the_budget_is_spent(cards):
    card = cards("michaelis_menten")
    state = make_state(card, "original", "discovery", "adaptive", observe(card, "original", design(card, 2)),
                       budget=2, must_submit=True)
    action = act(state)
    check_action(action, card, state)
    assert action.submission is not None


def test_rejected_point_is_not_proposed_again(cards):
    card = cards("pendulum")
    state = make_state(card, "original", "discovery", "adaptive", budget=10)
    first = act(state)
    turn = Turn(index=0, action=first, response=OracleResponse(rejected=["violates a constraint"]))
    second = act(make_state(card, "original", "discovery", "adaptive", turns=[turn], budget=10))
    check_action(second, card, state)
    assert second.experiment.inputs != first.experiment.inputs


# -- robustness ------------------------------------------------------------------------------

def synthetic_task(setting="discovery"):
    return {
        "setting": setting, "background": "A made-up bench experiment.", "conditions": [],
        "inputs": [
            {"name": "a", "unit": "m", "domain": {"kind": "range", "lo": -1.0, "hi": 1.0, "values": []}},
            {"name": "n", "unit": "1", "domain": {"kind": "integer", "lo": 1.0, "hi": 5.0, "values": []}},
            {"name": "k", "unit": "mol", "domain": {"kind": "set", "lo": None, "hi": None, "values": [0.5, 1.0, 2.0]}},
            {"name": "x", "unit": "s", "domain": {"kind": "log", "lo": 0.01, "hi": 100.0, "values": []}},
        ],
        "outputs": [{"name": "y", "unit": "N", "resolution": 0.01, "tolerance": {"abs": 0.01, "rel": 0.01}},
                    {"name": "z", "unit": "", "resolution": None, "tolerance": {"abs": 0.0, "rel": 0.02}}],
        "constraints": [], "adaptive_threshold": 0.9, "max_steps": 10,
        "protocol": "adaptive", "threshold": 0.9, "budget": 10,
    }


ODD_DATA = {
    "none": [],
    "one": [({"a": 0.0, "n": 1, "k": 0.5, "x": 1.0}, {"y": 0.0, "z": 1.0})],
    "zeros": [({"a": 0.1 * i, "n": 1 + i % 5, "k": 1.0, "x": 0.5 + i}, {"y": 0.0, "z": 0.0}) for i in range(6)],
    "negative": [({"a": -0.9 + 0.3 * i, "n": 1 + i % 5, "k": [0.5, 1.0, 2.0][i % 3], "x": 10 ** (i / 3 - 1)},
                  {"y": -3.0 - i * i, "z": (-1) ** i * 2.0}) for i in range(7)],
    "nan": [({"a": 0.5, "n": 2, "k": 2.0, "x": 3.0}, {"y": float("nan"), "z": 1.0}),
            ({"a": 0.2, "n": 3, "k": 1.0, "x": 4.0}, {"y": 2.0, "z": float("inf")})],
    "duplicates": [({"a": 0.5, "n": 2, "k": 2.0, "x": 3.0}, {"y": 1.0 + 0.01 * i, "z": 1.0}) for i in range(5)],
}


@pytest.mark.parametrize("case", sorted(ODD_DATA))
@pytest.mark.parametrize("must_submit", [False, True])
def test_odd_data_still_gives_a_valid_action(case, must_submit):
    task = synthetic_task()
    obs = [Observation(inputs={k: float(v) for k, v in i.items()}, outputs=o) for i, o in ODD_DATA[case]]
    state = EpisodeState(task=task, setting="discovery", protocol="adaptive", threshold=0.9, observations=obs,
                         turns=[], must_submit=must_submit, steps_left=5, seed=1)
    action, _ = asyncio.run(BaselinePlayer().act(state))
    hyps = action.hypotheses
    assert len(hyps) >= 2 and abs(sum(h.confidence for h in hyps) - 1) <= CONFIDENCE_SLACK
    inputs, outputs = ["a", "n", "k", "x"], ["y", "z"]
    grid = {"a": np.array([-1.0, 0.0, 1.0]), "n": np.array([1.0, 3.0, 5.0]), "k": np.array([0.5, 1.0, 2.0]),
            "x": np.array([0.01, 1.0, 100.0])}
    for h in hyps:
        p = validate_predictor(h.predictor, inputs, outputs)
        values = evaluate_predictor(p, grid)
        assert all(np.all(np.isfinite(v)) for v in values.values())
    if must_submit:
        assert action.submission is not None
    if action.experiment is not None:
        ex = action.experiment
        assert -1 <= ex.inputs["a"] <= 1 and ex.inputs["n"] in (1, 2, 3, 4, 5)
        assert ex.inputs["k"] in (0.5, 1.0, 2.0) and 0.01 <= ex.inputs["x"] <= 100


def test_adaptive_gives_up_only_on_missed_predictions(tmp_path):
    """A form outside the search (the Goldman-style counterfactual of the
    Nernst card) is not chased for the whole step budget: the baseline stops
    when its leading hypothesis keeps mispredicting new measurements."""
    from scigame.players.baseline import MISSES_TO_GIVE_UP
    from scigame.protocols import play_episode
    from scigame.records import EpisodeKey

    card = scigame.load_card(CARDS / "nernst.sci", cache_dir=tmp_path)
    key = EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment="counterfactual",
                     setting="discovery", protocol="adaptive", budget=64, repetition=0, player="baseline")
    ep = asyncio.run(play_episode(card, key, BaselinePlayer, seed=3, max_steps=64))
    last = ep.turns[-1].action
    if ep.outcome.weak_success:  # the search found it after all: nothing to give up on
        return
    assert ep.outcome.steps < 64
    assert f"missed {MISSES_TO_GIVE_UP} or more" in last.notes and not ep.outcome.protocol_ok


@pytest.mark.parametrize(("name", "env"), [("barometric", "original"), ("barometric", "counterfactual"),
                                           ("rc_discharge", "original"), ("rc_discharge", "counterfactual")])
def test_discovery_exponential_of_a_ratio(cards, name, env):
    """exp(-Mgh/RT) and exp(-t/RC): a decay in the ratio of two inputs."""
    card = cards(name)
    state = make_state(card, env, "discovery", "fixed", observe(card, env, design(card, 8)))
    action = act(state)
    check_action(action, card, state)
    score = card.score(action.submission.predictor, env)
    assert score.weak and score.strict, score.strict_reason


# -- honest by construction ---------------------------------------------------------------

TWIN = """
card twin "A twin card" {
  collection historical
  field      physics
  source     "made up for a test"
  background "A bench experiment: a force is read while two settings change."
  input  x [m] in 1 .. 10    "separation"
  input  m [kg] in 1 .. 5    "mass"
  output F [N] tolerance abs 1e-9 rel 1%  "force"
  param k = KVALUE [N/(kg*m^NEXP)]  "coupling"
  param n = NEXP  "exponent"
  law F = k * m * x^n
  counterfactual "other exponent" {
    set n = 3
    rebalance k
  }
  fixed design 8 sobol seed 1
  evaluation 64 seed 7
  adaptive threshold 0.9 max_steps 32
}
"""


def test_same_public_view_same_first_actions(tmp_path, no_memo):
    """Two cards whose hidden laws differ (F = 2·m·x vs F = 5·m·x², say) but
    whose public views are identical get exactly the same first actions: the
    baseline sees nothing but the view and its own observations."""
    cards = []
    for k, n in (("2", "1"), ("5", "2")):
        path = tmp_path / f"twin{n}" / "twin.sci"
        path.parent.mkdir()
        path.write_text(TWIN.replace("KVALUE", k).replace("NEXP", n))
        cards.append(scigame.load_card(path, cache_dir=tmp_path / "cache"))
    a, b = cards
    for setting in ("discovery", "identification"):
        if setting == "discovery":
            assert a.public_view("original", setting) == b.public_view("original", setting)
    for protocol in ("prior", "adaptive"):
        sa = make_state(a, "original", "discovery", protocol, budget=32)
        sb = make_state(b, "original", "discovery", protocol, budget=32)
        assert act(sa).model_dump_json() == act(sb).model_dump_json()
    # and the same next action after the same (made-up) observation
    first = act(make_state(a, "original", "discovery", "adaptive", budget=32))
    ob = Observation(inputs=first.experiment.inputs, outputs={"F": 12.5})
    turn = Turn(index=0, action=first, response=OracleResponse(observation=ob))
    nxt = [act(make_state(c, "original", "discovery", "adaptive", [ob], [turn], budget=32)) for c in cards]
    assert nxt[0].model_dump_json() == nxt[1].model_dump_json()


@pytest.mark.parametrize("name", ["gravitation", "stefan_boltzmann", "snell", "michaelis_menten"])
def test_public_view_dimensions_agree_with_pint(cards, name):
    """The dimension vector and factor the compiler puts in the public view
    are pint's, read independently from the unit text."""
    import pint
    ureg = pint.UnitRegistry()
    view = cards(name).public_view("original", "discovery")
    for spec in view["inputs"] + view["outputs"]:
        q = ureg.Quantity(1.0, spec["unit"])
        dims = {k.strip("[]"): float(v) for k, v in q.dimensionality.items()}
        assert {k: v for k, v in spec["dimension"].items() if v} == dims
        assert spec["si_factor"] == pytest.approx(q.to_base_units().magnitude, rel=1e-12)
        assert spec["angle"] == (spec["unit"] in ("deg", "rad"))


def test_log_law_found_when_some_readings_are_zero(cards):
    """The controlled design measures E = 0 at equal concentrations; those
    readings must not block log-space fits of the other points."""
    from scigame.players.baseline import design as plan
    from scigame.players.baseline.task import parse_inputs

    card = cards("nernst")
    view = card.public_view("original", "discovery")
    points = [p for p, _ in plan.planned(parse_inputs(view))]
    obs = observe(card, "original", points)
    assert any(o.outputs["E"] == 0 for o in obs)
    action = act(make_state(card, "original", "discovery", "fixed", obs))
    score = card.score(action.submission.predictor, "original")
    assert score.strict, score.strict_reason


def test_refused_region_is_avoided():
    """Candidates nearer to a refused experiment than to a measured one are
    not proposed: a constraint is a region, learnt from refusals."""
    from scigame.players.baseline import design as plan
    from scigame.players.baseline.identify import Hyp
    from scigame.players.baseline.task import Sampler, parse_inputs, parse_outputs

    task = {"inputs": [{"name": "x", "unit": "m", "domain": {"kind": "range", "lo": 0.0, "hi": 1.0}}],
            "outputs": [{"name": "y", "unit": "m", "tolerance": {"abs": 0.01, "rel": 0.0}}]}
    inputs, outputs = parse_inputs(task), parse_outputs(task)
    # the rivals differ most near x = 0, but x < 0.3 was refused
    hyps = [Hyp("a", 0.6, {"y": {"var": "x"}}), Hyp("b", 0.4, {"y": {"op": "div", "args": [0.01, {"var": "x"}]}})]
    known = [{"x": 0.5}, {"x": 0.9}]
    rejected = [{"x": 0.05}, {"x": 0.15}]
    point, _, spread = plan.choose(inputs, outputs, hyps, Sampler(inputs), known, rejected, seed=1, turn=3)
    assert point["x"] > (0.15 + 0.5) / 2
    assert spread >= 1.0
    # rivals that agree everywhere the oracle allows leave nothing to measure
    same = [Hyp("a", 0.6, {"y": {"var": "x"}}), Hyp("b", 0.4, {"y": {"op": "mul", "args": [1.001, {"var": "x"}]}})]
    assert plan.choose(inputs, outputs, same, Sampler(inputs), known, [], seed=1, turn=3)[2] < 1.0


def fixed_discovery(inputs: dict, output: dict, law, n: int = 8, seed: int = 5, dims: dict = {}) -> Action:
    """The baseline's Fixed submission on n random points of a made-up task
    whose output follows `law` (a numpy function of the inputs); `dims`
    gives an input's SI dimension (dimensionless otherwise)."""
    rng = np.random.default_rng(seed)
    task = {"setting": "discovery", "background": "", "conditions": [], "constraints": [],
            "inputs": [{"name": k, "unit": "", "dimension": dims.get(k, {"length": 0}), "si_factor": 1.0,
                        "domain": {"kind": "range", "lo": lo, "hi": hi, "values": []}}
                       for k, (lo, hi) in inputs.items()],
            "outputs": [dict({"name": "y", "unit": "", "dimension": {"length": 0}, "si_factor": 1.0}, **output)],
            "protocol": "fixed", "threshold": 0.9, "budget": n}
    pts = [{k: float(rng.uniform(lo, hi)) for k, (lo, hi) in inputs.items()} for _ in range(n)]
    obs = [Observation(inputs=p, outputs={"y": float(law(**p))}) for p in pts]
    state = EpisodeState(task=task, setting="discovery", protocol="fixed", threshold=0.9, observations=obs,
                         turns=[], must_submit=True, steps_left=None, seed=1)
    return act(state)


def test_sum_with_tied_coefficients():
    """y = 3·(1/a³ − 1/b³): the two coefficients are one constant; the
    submitted sum says so and carries the same number twice."""
    action = fixed_discovery({"a": (1.0, 3.0), "b": (4.0, 6.0)}, {"tolerance": {"abs": 0.0, "rel": 0.001}},
                             lambda a, b: 3.0 * (a ** -3 - b ** -3))
    top = action.hypotheses[action.submission.selected]
    assert "tied" in top.statement
    grid = {"a": np.linspace(1, 3, 7), "b": np.linspace(4, 6, 7)}
    got = evaluate_predictor(action.submission.predictor, grid)["y"]
    assert np.allclose(got, 3.0 * (grid["a"] ** -3 - grid["b"] ** -3), rtol=1e-3)


def test_sum_needing_a_hidden_constant():
    """A dimensionless y = c·l·(2 + 0.1·c) of a concentration c and a length
    l: no monomial has y's units, so the sum's terms must carry a hidden
    constant (the units fix no prefactor for them)."""
    action = fixed_discovery({"c": (1.0, 100.0), "l": (0.1, 1.0)}, {"tolerance": {"abs": 0.0, "rel": 0.01}},
                             lambda c, l: c * l * (2.0 + 0.1 * c),
                             dims={"c": {"substance": 1, "length": -3}, "l": {"length": 1}})
    grid = {"c": np.linspace(1, 100, 7), "l": np.linspace(0.1, 1, 7)}
    got = evaluate_predictor(action.submission.predictor, grid)["y"]
    assert np.allclose(got, grid["c"] * grid["l"] * (2.0 + 0.1 * grid["c"]), rtol=0.01)


@pytest.mark.parametrize(("law", "text"), [
    (lambda t, y0: 5.0 + (y0 - 5.0) * np.exp(-0.3 * t), "relaxation toward 5 from y0"),
    (lambda t, y0: 1e3 / (1.0 + (1e3 / y0 - 1.0) * np.exp(-0.5 * t)), "logistic growth from y0 toward 1000"),
])
def test_first_order_kinetics_from_an_initial_value(law, text):
    """Laws of time t and an initial value y0 (an input with the output's
    units) that no monomial, function factor or plain sum holds; the
    fitted rate and constants come out as the short decimals they are."""
    temp = {"temperature": 1}
    action = fixed_discovery({"t": (0.0, 10.0), "y0": (10.0, 50.0)}, {"tolerance": {"abs": 0.0, "rel": 0.002},
                                                                    "dimension": temp},
                             law, dims={"t": {"time": 1}, "y0": temp})
    top = action.hypotheses[action.submission.selected]
    assert "shared exponential" in top.statement, text
    grid = {"t": np.linspace(0, 10, 9), "y0": np.linspace(10, 50, 9)}
    got = evaluate_predictor(action.submission.predictor, grid)["y"]
    assert np.allclose(got, law(**grid), rtol=1e-9), text


def test_saturation_with_a_fitted_exponent():
    """y = 50·x^1.7/(3^1.7 + x^1.7): no rational exponent of a group; the
    fitted exponent and half-saturation scale come out as 1.7 and 3."""
    law = lambda x: 50.0 * x ** 1.7 / (3.0 ** 1.7 + x ** 1.7)  # noqa: E731
    action = fixed_discovery({"x": (0.5, 12.0)}, {"tolerance": {"abs": 0.0, "rel": 0.005}}, law)
    assert "fitted exponent" in action.hypotheses[action.submission.selected].statement
    grid = {"x": np.linspace(0.5, 12.0, 9)}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-9)


def test_sum_under_a_root():
    """y = sqrt(a − 0.4·b) with hidden scale: a sum in y², whose inner ratio
    is written as the short decimal it is (0.4, not a product of fitted
    constants)."""
    law = lambda a, b: 2.5 * np.sqrt(a - 0.4 * b)  # noqa: E731
    action = fixed_discovery({"a": (5.0, 10.0), "b": (1.0, 4.0)}, {"tolerance": {"abs": 0.0, "rel": 0.005}}, law)
    top = action.hypotheses[action.submission.selected]
    assert "y^2" in top.statement and "0.4" in top.statement, top.statement
    grid = {"a": np.linspace(5, 10, 7), "b": np.linspace(1, 4, 7)}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-3)


@pytest.mark.parametrize("name,inputs,law", [
    ("exp(x) - 1", {"x": (0.1, 3.0)}, lambda x: 2.0 * (np.exp(x / 3.0) - 1.0)),
    ("1 - cos(x)", {"x": (0.2, 2.5)}, lambda x: 2.0 * (1.0 - np.cos(0.8 * x))),
    ("a Gaussian of an input of either sign", {"t": (-3.0, 3.0)}, lambda t: 0.4 * np.exp(-t ** 2 / 2.0)),
    ("a Gaussian over a width", {"t": (-3.0, 3.0), "s": (1.0, 3.0)},
     lambda t, s: np.exp(-(t / s) ** 2 / 2.0) / (2.5066282746310002 * s)),
    ("a population over two states", {"x": (0.1, 3.0), "n0": (1.0, 5.0)},
     lambda x, n0: n0 / (np.exp(0.7 * x) + np.exp(-0.7 * x))),
])
def test_unaries_of_textbook_laws(name, inputs, law):
    """Laws of one function of one argument that the search writes exactly
    (the diode's exp − 1, a band's 1 − cos, Gaussians, the 1/cosh of a
    population split over two states): checked against the law on a grid of
    the domain."""
    action = fixed_discovery(inputs, {"tolerance": {"abs": 0.0, "rel": 0.005}}, law, n=10)
    grid = {k: np.linspace(lo, hi, 11) for k, (lo, hi) in inputs.items()}
    got = evaluate_predictor(action.submission.predictor, grid)["y"]
    assert np.allclose(got, law(**grid), rtol=2e-3), (name, action.hypotheses[action.submission.selected].statement)


def test_stated_constraints_are_read():
    """A constraint's text that compares inputs is read as a test of points;
    one with units or a name the player cannot know is left to refusals."""
    from scigame.players.baseline.task import constraint_test, parse_inputs

    task = {"inputs": [{"name": n, "unit": "cm", "domain": {"kind": "range", "lo": 1.0, "hi": 100.0}}
                       for n in ("d_o", "f_lens")],
            "constraints": [{"text": "d_o > 1.5 * f_lens", "message": ""},
                            {"text": "d_o^2 < 9000", "message": ""}]}
    test = constraint_test(task, parse_inputs(task))
    d_o, f = np.array([10.0, 16.0, 40.0, 99.0]), np.array([10.0, 10.0, 10.0, 10.0])
    assert test({"d_o": d_o, "f_lens": f}).tolist() == [False, True, True, False]
    for text in ("d_o > 3 [cm]", "d_o > f_max", "d_o +", "not a comparison",
                 "d_o > __import__('os').getpid()", "d_o > f_lens.__class__", "d_o > (1).real", "d_o > 1e3; 1"):
        assert constraint_test(dict(task, constraints=[{"text": text, "message": ""}]), parse_inputs(task)) is None


def test_adaptive_keeps_to_the_stated_constraint(cards):
    """The thin lens's `d_o > 1.5 * f_lens` is public: no Adaptive experiment
    of the baseline is refused for it (each refusal costs a step)."""
    _, observations = run_adaptive(cards("thin_lens"), "counterfactual", "discovery")
    assert len(observations) >= 6
    assert all(ob.inputs["d_o"] > 1.5 * ob.inputs["f_lens"] for ob in observations)


def test_relaxation_with_a_quadratic_rate():
    """An excess over 20 K that cools at a rate growing with the excess,
    dx/dt = −x/5·(1 + 0.02·x): its closed form (Bernoulli kinetics) is
    found, with the equilibrium, the rate and k, and predicts the domain."""
    temp = {"temperature": 1}

    def law(t, y0):
        e = np.exp(-t / 5.0)
        return 20.0 + (y0 - 20.0) * e / (1.0 + 0.02 * (y0 - 20.0) * (1.0 - e))
    action = fixed_discovery({"t": (0.0, 10.0), "y0": (40.0, 90.0)}, {"tolerance": {"abs": 0.0, "rel": 0.002},
                                                                    "dimension": temp},
                             law, n=10, dims={"t": {"time": 1}, "y0": temp})
    top = action.hypotheses[action.submission.selected]
    assert "quadratic rate" in top.statement, top.statement
    grid = {"t": np.linspace(0, 10, 9), "y0": np.linspace(40, 90, 9)}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-3)


def test_logistic_growth_from_readings_of_many_magnitudes():
    """N = K·N0·e^(rt)/(K + N0·(e^(rt) − 1)) over five decades: the
    equilibrium of the quadratic-rate relaxation is exactly 0 (written so),
    and the law predicts the domain."""
    dens = {"length": -3}

    def law(t, N0):
        e = np.exp(0.7 * t)
        return 1e9 * N0 * e / (1e9 + N0 * (e - 1.0))
    action = fixed_discovery({"t": (0.0, 24.0), "N0": (1e4, 1e6)}, {"tolerance": {"abs": 10.0, "rel": 0.02},
                                                                   "dimension": dens},
                             law, n=10, dims={"t": {"time": 1}, "N0": dens})
    grid = {"t": np.linspace(0, 24, 9), "N0": np.geomspace(1e4, 1e6, 9)}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-3)


def test_log_of_a_ratio_of_mixtures():
    """A Goldman–Hodgkin–Katz potential, 25·log((a + 0.1·b)/(b + 0.1·a)) of
    two concentrations: the log of the ratio of mixtures, with its mixing
    fraction, predicts the domain (log a/b alone misses by many tolerances)."""
    conc = {"amount": 1, "length": -3}
    law = lambda a, b: 25.0 * np.log((a + 0.1 * b) / (b + 0.1 * a))  # noqa: E731
    action = fixed_discovery({"a": (1.0, 100.0), "b": (1.0, 100.0)}, {"tolerance": {"abs": 0.05, "rel": 0.01}},
                             law, n=10, dims={"a": conc, "b": conc})
    grid = {"a": np.geomspace(1, 100, 9), "b": np.geomspace(1, 100, 9)[::-1]}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-3, atol=0.02)


def test_exact_law_beats_a_shorter_look_alike():
    """w = (u + v)/(1 + u·v/c²) on 8 exact readings at 1%: e^(−0.96·uv/c²)
    is shorter to write and stays within 0.03 tolerances of every reading,
    but only the exact law predicts the held-out readings to their
    precision, and with noise-free readings that decides."""
    speed = {"length": 1, "time": -1}
    law = lambda u, v, c: (u + v) / (1 + u * v / c ** 2)  # noqa: E731
    action = fixed_discovery({"u": (1e7, 1e8), "v": (1e7, 1e8), "c": (2.9e8, 3.1e8)},
                             {"tolerance": {"abs": 0.0, "rel": 0.01}, "dimension": speed}, law, n=8,
                             dims={"u": speed, "v": speed, "c": speed})
    grid = {"u": np.linspace(1e7, 1e8, 9), "v": np.linspace(1e8, 1e7, 9), "c": np.full(9, 2.9e8)}
    got = evaluate_predictor(action.submission.predictor, grid)["y"]
    assert np.allclose(got, law(**grid), rtol=1e-6), action.hypotheses[action.submission.selected].statement


def test_statement_keeps_the_names_of_inputs_ending_in_a():
    """The fitted rate is written into the factor's argument only, not into
    an input's name that ends in "a" (omega, alpha)."""
    law = lambda omega, alpha: 3.0 * np.exp(-0.4 * omega * alpha)  # noqa: E731
    action = fixed_discovery({"omega": (1.0, 3.0), "alpha": (0.5, 2.0)}, {"tolerance": {"abs": 0.0, "rel": 0.005}},
                             law, n=10)
    text = action.hypotheses[action.submission.selected].statement
    assert "omega" in text and "alpha" in text, text



def _adaptive_discovery(path, env: str, tmp_path, protocol: str = "adaptive"):
    """(the card, its Adaptive Discovery episode played by the baseline,
    seed 1, step cap 64) in world `env`; with protocol="fixed", its Fixed
    Discovery episode at budget 8."""
    from scigame.protocols import play_episode
    from scigame.records import EpisodeKey

    card = scigame.load_card(path, cache_dir=tmp_path)
    key = EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment=env, setting="discovery",
                     protocol=protocol, budget=64 if protocol == "adaptive" else 8, repetition=0,
                     player="baseline")
    return card, asyncio.run(play_episode(card, key, BaselinePlayer, seed=1, max_steps=64))


def test_adaptive_gives_up_when_the_search_over_every_reading_still_misses_one(tmp_path):
    """Issue 29, honest failure: Hill's muscle law under a root,
    b·((F₀ − F)/(F + a))^0.5 (dev3), is outside the search; the searches over
    every reading find no law that fits them all within the tolerance. The
    baseline says so at low confidence instead of measuring the same verdict
    until the step budget ends. (This test played the leak-shifted charging
    law until the corrections' screen found it.)"""
    from scigame.players.baseline.player import UNFIT_CAP

    card, ep = _adaptive_discovery(SHIFTED / "dev3" / "muscle_power_36.sci", "counterfactual", tmp_path)
    last = ep.turns[-1].action
    assert last.submission is not None and ep.outcome.steps < 64
    assert last.hypotheses[last.submission.selected].confidence <= UNFIT_CAP + 1e-9
    assert "best weak fit" in last.notes and "best weak fit" in last.submission.explanation
    assert not ep.outcome.protocol_ok and not ep.outcome.strict_success


def test_adaptive_gives_up_when_the_refit_of_the_tested_form_moves_its_constants_twice(tmp_path):
    """Issue 29, honest failure: a fast particle's energy with a sum inside
    its root, m·c²/√(1 − (v/c)·(0.38 + v/c)/2), is outside the search; a
    look-alike predicts new readings within the tolerance, but refitted on
    every reading it moves a constant by tens of relative tolerances; after
    that, either it moves again, or it holds its constants while fitting
    the noise-free readings only within the tolerance, not reproducing them
    as a law does. The baseline submits it as the best weak fit at low
    confidence. (This test played the radiation-shifted cooling law until
    differences.py found it.)"""
    from scigame.players.baseline.player import UNFIT_CAP

    card, ep = _adaptive_discovery(SHIFTED / "dev" / "relativity_sum_27.sci", "counterfactual", tmp_path)
    notes = [t.action.notes for t in ep.turns if t.action is not None]
    assert any("its new constants must predict new readings" in n for n in notes[:-1])
    last = ep.turns[-1].action
    assert last.submission is not None and ep.outcome.steps < 64
    assert last.hypotheses[last.submission.selected].confidence <= UNFIT_CAP + 1e-9
    # the second move is either the refit moving again or the law, holding its constants, fitting
    # these noise-free readings only within the tolerance (not reproducing them)
    assert "moved a constant by" in last.notes and "an approximation, not the law" in last.notes
    assert "best weak fit" in last.submission.explanation
    assert not ep.outcome.protocol_ok and not ep.outcome.strict_success


def test_adaptive_gives_up_on_a_law_that_holds_its_constants_without_reproducing_exact_readings(tmp_path):
    """Issue 29, honest failure: absorbance with stray light,
    −log(e^(−ε·l·c)·(1 − 0.098) + 0.098), is outside the search. Its
    look-alike's refit moves a constant once; retested, it keeps its
    constants but, even refitted, fits the noise-free readings only within
    the tolerance (it was submitted at full confidence). It is submitted as
    the best weak fit at low confidence, and the note says why; the
    submitted law misses some reading by more than the slack of exact
    readings, computed here with the game's evaluator."""
    from scigame.players.baseline.player import UNFIT_CAP

    card, ep = _adaptive_discovery(SHIFTED / "dev2" / "absorbance_term_44.sci", "counterfactual", tmp_path)
    last = ep.turns[-1].action
    assert last.submission is not None and ep.outcome.steps < 64
    assert last.hypotheses[last.submission.selected].confidence <= UNFIT_CAP + 1e-9
    assert "without reproducing them" in last.notes and "an approximation, not the law" in last.notes
    assert not ep.outcome.strict_success
    obs = [t.response.observation for t in ep.turns if t.response is not None and t.response.observation]
    grid = {k: np.array([o.inputs[k] for o in obs]) for k in obs[0].inputs}
    y = np.array([o.outputs["A"] for o in obs])
    pred = evaluate_predictor(last.submission.predictor, grid)["A"]
    assert np.max(np.abs(pred - y) / (card.data.outputs[0].tol_abs + card.data.outputs[0].tol_rel
                                      * np.abs(y))) > 1e-3


@pytest.mark.parametrize("protocol", ["fixed", "adaptive"])
def test_a_law_that_does_not_reproduce_exact_readings_is_submitted_as_the_best_weak_fit(protocol, tmp_path):
    """Issue 29, honest failure: a single slit's pattern with an added
    term is outside the search; its look-alike I₀·1.1·e^(−1.28·θ^2.05) fits
    every noise-free reading within the tolerance, and its refit never
    moves, but even refitted it does not reproduce them to their rounding,
    as a law does. It was submitted at full confidence in both protocols;
    now, at Fixed B = 8 and (after it has predicted new readings) under
    Adaptive, as the best weak fit at low confidence, the note and the
    explanation saying why, and the submitted law misses some reading by
    more than the slack of exact readings (the game's evaluator)."""
    from scigame.players.baseline.player import UNFIT_CAP

    card, ep = _adaptive_discovery(SHIFTED / "dev3" / "slit_term_33.sci", "counterfactual", tmp_path,
                                   protocol=protocol)
    last = ep.turns[-1].action
    assert last.submission is not None and ep.outcome.steps < 64
    assert last.hypotheses[last.submission.selected].confidence <= UNFIT_CAP + 1e-9
    assert "without reproducing them" in last.notes and "an approximation, not the law" in last.notes
    assert "best weak fit" in last.submission.explanation
    assert not ep.outcome.strict_success and (protocol == "fixed") == ep.outcome.protocol_ok
    obs = list(ep.given) + [t.response.observation for t in ep.turns
                            if t.response is not None and t.response.observation]
    grid = {k: np.array([o.inputs[k] for o in obs]) for k in obs[0].inputs}
    y = np.array([o.outputs["I"] for o in obs])
    pred = evaluate_predictor(last.submission.predictor, grid)["I"]
    out = card.data.outputs[0]
    assert np.max(np.abs(pred - y) / (out.tol_abs + out.tol_rel * np.abs(y))) > 1e-3


def test_new_look_alikes_that_do_not_reproduce_exact_readings_end_the_retest(tmp_path):
    """Issue 29, honest failure: a tank draining with a moved exponent
    (dev3) is outside the search; after its first look-alike failed to
    reproduce the noise-free readings, each search over more readings led
    with a new one (relaxations, sums under √y), none reproducing them, and
    each was tested afresh to the 46th step. Three readings after the first
    strike, a lead that does not reproduce them either ends it: the best
    weak fit at low confidence, well before that."""
    from scigame.players.baseline.player import UNFIT_CAP

    card, ep = _adaptive_discovery(SHIFTED / "dev3" / "tank_exponent_47.sci", "counterfactual", tmp_path)
    last = ep.turns[-1].action
    assert last.submission is not None and ep.outcome.steps <= 20
    assert last.hypotheses[last.submission.selected].confidence <= UNFIT_CAP + 1e-9
    assert "without reproducing them" in last.notes and "an approximation, not the law" in last.notes
    assert not ep.outcome.strict_success and not ep.outcome.protocol_ok


def test_a_leak_switched_on_a_charging_curve_is_recovered(tmp_path):
    """Issue 29: V₀·(1 − e^(−t/(R·C)))·(1 − 0.032·t/(R·C)) (dev). The search's
    parent, V₀·(1 − e^(−2.33·t/R)), has its rate fitted without the leak, so
    the correction t/R screened with that rate held ranked far below the
    look-alikes' corrections and was never refined; screened with one
    Gauss–Newton step of the parent's constants beside it, it is, and the
    law comes back exactly."""
    card, ep = _adaptive_discovery(SHIFTED / "dev" / "charging_term_01.sci", "counterfactual", tmp_path)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok, ep.turns[-1].action.notes


def test_snell_is_recovered_once_the_world_refuses_past_the_critical_angle(tmp_path):
    """Snell's law, original world, over 0..90°: asin(1.5·sin θ1) is
    undefined past the critical angle, 54% of the range, and was dropped
    as undefined there. The Adaptive player measures past it (refused: no
    refracted ray), and the law, undefined at that refused point, is then
    admitted and recovered strictly."""

    card, ep = _adaptive_discovery(CARDS / "snell.sci", "original", tmp_path)
    assert any(t.response is not None and t.response.rejected for t in ep.turns)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok


def test_snell_is_recovered_from_a_fixed_design_that_avoids_the_critical_angle(tmp_path):
    """Snell's law, original world, Fixed at B = 8: the design is drawn
    where the law is defined, so all eight readings lie below the critical
    angle (41.8° of 0..90°) and none is refused. asin(1.5·sin θ1), undefined
    over the 54% of the range the readings avoid (eight readings spread
    over it would all miss that with probability 0.46⁸ = 0.2%), is admitted
    and recovered strictly; it was dropped as undefined there, and a
    three-term sum of sines was submitted instead."""
    card, ep = _adaptive_discovery(CARDS / "snell.sci", "original", tmp_path, protocol="fixed")
    assert max(g.inputs["theta1"] for g in ep.given) < 41.8
    assert ep.outcome.strict_success, ep.turns[-1].action.submission.predictor


def test_michaelis_menten_keeps_its_half_saturation_constant(tmp_path):
    """Michaelis-Menten, original world, Adaptive: the found
    C·(1 + a/S)^-1 kept a at 17 instead of snapping it to (16/3)·π = 16.76
    (see tests/test_baseline_monomials.py), which missed the strict check."""
    card, ep = _adaptive_discovery(CARDS / "michaelis_menten.sci", "original", tmp_path)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok


def test_an_early_search_too_short_for_a_family_does_not_rule_it_out(tmp_path):
    """A Gompertz curve raised to 0.8 (dev3's gompertz_power_43), Adaptive:
    the first search after the four-point design found no law of kinetics
    (too few readings for its constants), which ruled the family out for the
    episode; every later search then lacked the law, and the episode gave up
    at step 8 with a straight line. Fixed at B = 8 found it."""
    card, ep = _adaptive_discovery(SHIFTED / "dev3" / "gompertz_power_43.sci", "counterfactual", tmp_path)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok


@pytest.mark.slow
def test_adaptive_gives_up_when_two_searches_in_a_row_fit_nothing(tmp_path):
    """The distillation law (a teacher's law inside a student's) is outside
    the search: once two searches in a row over every noise-free reading
    fit no law within the tolerance, the baseline submits its best weak fit
    below the threshold and says why, rather than measuring on (issue 29,
    honest failure). Its submitted law misses a reading, computed here
    with the predictor evaluator and the card's tolerance."""
    from scigame.players.baseline.player import UNFIT_SEARCHES

    card, ep = _adaptive_discovery(CARDS.parent / "temporal" / "distill_student.sci", "original", tmp_path)
    last = ep.turns[-1].action
    assert f"{UNFIT_SEARCHES} searches in a row" in last.notes
    assert not ep.outcome.protocol_ok and ep.outcome.steps < 20
    sub = last.submission
    assert last.hypotheses[sub.selected].confidence <= 0.5
    obs = [t.response.observation for t in ep.turns if t.response is not None and t.response.observation]
    grid = {k: np.array([o.inputs[k] for o in obs]) for k in obs[0].inputs}
    y = np.array([o.outputs["Ls"] for o in obs])
    pred = evaluate_predictor(sub.predictor, grid)["Ls"]
    assert np.max(np.abs(pred - y) / (0.001 + 0.01 * np.abs(y))) > 1.0


@pytest.mark.parametrize("name", ["standing_phase_18", "standing_sign_19", "standing_term_15"])
def test_a_wave_in_two_inputs_is_recovered_in_adaptive_discovery(name, tmp_path):
    """Issue 29: dev3's standing waves, y0 + A·sin(k·x)·cos(ω·t) with a phase
    shift, with the node moved to the other end (the sign flipped) and with
    a travelling part switched on. No family had products of oscillations in
    two inputs, and the episodes gave up at step 8, on fewer readings than a
    wave's seven constants need. The wave found at the twelfth reading is
    now tested rather than given up on (for standing_sign_19 it comes to
    lead one turn before the window of its predecessors' misses fills)."""
    card, ep = _adaptive_discovery(SHIFTED / "dev3" / f"{name}.sci", "counterfactual", tmp_path)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok, ep.turns[-1].action.notes


def test_a_travelling_wave_is_recovered_in_adaptive_discovery(tmp_path):
    """A travelling wave y0 + A·cos(k·x − ω·t + 0.3), written into a copy of
    the standing-wave card: its four products all have coefficients."""
    text = (SHIFTED / "dev3" / "standing_phase_18.sci").read_text()
    text = text.replace("standing_phase_18", "travelling_wave").replace(
        "law y = y0 + A * sin(kw * x + 0.46) * cos(omega * t)", "law y = y0 + A * cos(kw * x - omega * t + 0.3)")
    assert "cos(kw * x - omega * t + 0.3)" in text
    path = tmp_path / "travelling_wave.sci"
    path.write_text(text)
    card, ep = _adaptive_discovery(path, "counterfactual", tmp_path)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok, ep.turns[-1].action.notes


@pytest.mark.parametrize(("path", "protocol"), [("dev2/decay_term_29", "adaptive"), ("dev3/drug_scale_24", "fixed"),
                                                ("dev3/drug_exponent_29", "adaptive")])
def test_two_exponentials_in_one_input_are_recovered(path, protocol, tmp_path):
    """Issue 29: two populations decaying at two rates (dev2), a drug taken
    up after a lag and one whose effect grows as the dose to the power 1.3
    (dev3): sums of two exponentials of time, with their own rates, were
    out of every family (kinetics shares one rate)."""
    card, ep = _adaptive_discovery(SHIFTED / f"{path}.sci", "counterfactual", tmp_path, protocol=protocol)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok, ep.turns[-1].action.notes


@pytest.mark.parametrize(("path", "protocol"), [("dev/cooling_term_12", "fixed"),
                                                ("dev2/conduction_term_12", "adaptive"),
                                                ("dev3/rocket_sum_04", "adaptive")])
def test_differences_of_powers_are_recovered(path, protocol, tmp_path):
    """Issue 29: heat lost by conduction and by radiation, h·A·(T − Ta) +
    k·A·(T⁴ − Ta⁴) (dev), and through a slab whose conductivity grows with
    the mean temperature (dev2): sums of differences of one power of two
    temperatures, out of every family before (T⁴ is beyond the sums'
    dictionary, and its ties pair terms two at a time); and a rocket whose
    masses both carry 20 t (dev3), ve·(ln(m₀ + 20) − ln(m_f + 20))."""
    card, ep = _adaptive_discovery(SHIFTED / f"{path}.sci", "counterfactual", tmp_path, protocol=protocol)
    assert ep.outcome.strict_success and ep.outcome.protocol_ok, ep.turns[-1].action.notes
