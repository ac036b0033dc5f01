"""The baseline's fit of candidate laws through a simulated system
(players/baseline/system_fit.py), checked against trajectories that the test
simulates itself: scipy's solve_ivp on a right-hand side written here, from a
law with known constants. Nothing here runs the card's own kernel for the
readings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import scigame
from scigame.players.baseline.identify import Hyp
from scigame.players.baseline.system import SystemModel
from scigame.players.baseline.system_fit import Fitter, fitted_hypotheses, parametrize, substitute

REPO = Path(__file__).resolve().parent.parent
#: The hidden law of these tests: the block loses Q = K·dT^P watts at an excess dT kelvin.
K, P = 0.21, 1.25


def _cooling_readings(k: float, p: float, n: int = 24, seed: int = 3):
    """Readings of the cooling block (inputs C, T0, Ta, t) with Q = k·dT^p."""
    rng = np.random.default_rng(seed)
    X = {"C": rng.uniform(200, 2000, n), "T0": rng.uniform(330, 420, n), "Ta": rng.uniform(280, 300, n),
         "t": rng.uniform(30, 3000, n)}
    T = np.empty(n)
    for i in range(n):
        C, Ta = X["C"][i], X["Ta"][i]
        sol = solve_ivp(lambda _t, s: [-k * (s[0] - Ta) ** p / C], (0.0, X["t"][i]), [X["T0"][i]],
                        method="DOP853", rtol=1e-12, atol=1e-12)
        T[i] = sol.y[0, -1]
    return X, {"T": T}


@pytest.fixture(scope="module")
def cooling(tmp_path_factory):
    card = scigame.load_card(REPO / "cards" / "systems" / "lumped_cooling.sci",
                             cache_dir=tmp_path_factory.mktemp("fit"))
    task = card.public_view("original", "discovery")
    model = SystemModel(task)
    model._outputs_view = task["outputs"]
    X, Y = _cooling_readings(K, P)
    return task, model, Fitter(model, task["outputs"], X, Y)


def _power(c: float, exponent) -> dict:
    """c·dT^exponent (the exponent a number, or a `__cI` variable)."""
    return {"op": "mul", "args": [c, {"op": "pow", "args": [{"var": "dT"}, exponent]}]}


@pytest.mark.parametrize(("value", "structural"), [(0.0, True), (2.0, True), (-0.5, True), (1.25, True), (16.0, True),
                                                   (0.21, False), (17.0, False), (6.674e-11, False),
                                                   (3.02e-33, False), (-1e-300, False), (1.0 + 1e-9, False)])
def test_a_constant_is_free_unless_a_small_integer_or_simple_fraction(value, structural):
    from scigame.failure import is_structural
    assert is_structural(value) is structural


def test_parametrize_frees_only_the_constants_that_are_not_structural():
    param, values = parametrize(_power(0.21, 1.25))
    assert values == [0.21]  # 5/4 is part of the form
    assert param == _power({"var": "__c0"}, 1.25)
    assert substitute(param, [0.5]) == _power(0.5, 1.25)
    # a tiny constant (the law's factor in SI-sized units) is free too
    assert parametrize(_power(3.02e-33, -2))[1] == [3.02e-33]


def test_the_fit_recovers_the_constants_of_the_hidden_law(cooling):
    _, _, fitter = cooling
    # both constants free, started 60% and 20% away from the truth
    tree = {"op": "mul", "args": [{"var": "__c0"}, {"op": "pow", "args": [{"var": "dT"}, {"var": "__c1"}]}]}
    fit = fitter.fit(tree, [K * 1.6, P * 0.8], positive=[True, False])
    assert fit is not None
    k, p = fit.tree["args"][0], fit.tree["args"][1]["args"][1]
    # the readings are exact (no noise): the constants come back to well inside a part in 10^3
    assert k == pytest.approx(K, rel=1e-3)
    assert p == pytest.approx(P, rel=1e-4)
    assert fit.worst < 0.01 and fit.free == 2


def test_a_wrong_form_cannot_reproduce_the_readings(cooling):
    _, _, fitter = cooling
    linear = fitter.fit(_power({"var": "__c0"}, 1), [1.0])
    assert linear is not None and linear.worst > 1.0  # Newton's linear law misses by more than a tolerance


def test_the_evidence_picks_the_true_form_over_near_misses(cooling):
    task, model, fitter = cooling
    law = "Q"
    forms = [Hyp("linear", 0.4, {law: _power(1.7, 1)}), Hyp("three halves", 0.3, {law: _power(0.07, 1.5)}),
             Hyp("five fourths", 0.2, {law: _power(0.33, 1.25)}), Hyp("a constant", 0.1, {law: 37.0})]
    X = fitter.X
    args = model.arguments_at_start(X)
    assert np.allclose(args["dT"], X["T0"] - X["Ta"])
    values = K * args["dT"] ** P
    hyps = fitted_hypotheses(fitter, law, forms, task["system"]["law"]["arguments"], values, args)
    best = hyps[0]
    assert best.confidence == max(h.confidence for h in hyps)
    # the evidence's weight is on c·dT^(5/4) with c near K (the five-fourths form, and the power
    # law snapped to quarters, are the same law): every candidate of weight is the truth
    from scigame.predictor import evaluate_predictor
    grid = np.linspace(0.5, 140, 50)
    weighty = [h for h in hyps if h.confidence > 0.01]
    assert sum(h.confidence for h in weighty) > 0.99
    for h in weighty:
        assert np.allclose(evaluate_predictor({law: h.predictor[law]}, {"dT": grid})[law], K * grid ** P, rtol=1e-3)
    near = {h.statement.split(",")[0]: h for h in hyps}
    assert near["linear"].detail["bic"] > best.detail["bic"] + 100
    assert near["three halves"].detail["bic"] > best.detail["bic"] + 100


def test_a_candidate_that_blows_up_is_rejected_without_an_exception(cooling):
    task, model, fitter = cooling
    law = "Q"
    # a law that heats the block the hotter it is (-0.01·dT^3 watts lost): a runaway the
    # integrator gives up on, at every reading
    boom = _power(-0.01, 3)
    assert not np.isfinite(model.simulate(model.law_si(boom), fitter.X)["T"]).any()
    fit = fitter.fit(*parametrize(boom))
    assert fit is not None and fit.worst >= 100 and np.isfinite(fit.bic)
    args = model.arguments_at_start(fitter.X)
    forms = [Hyp("explosive", 0.9, {law: boom}), Hyp("five fourths", 0.1, {law: _power(0.3, 1.25)})]
    hyps = fitted_hypotheses(fitter, law, forms, task["system"]["law"]["arguments"], K * args["dT"] ** P, args)
    ranked = [h.statement.split(",")[0] for h in hyps]
    assert ranked[-1] == "explosive" or hyps[-1].confidence < 1e-6
    explosive = next(h for h in hyps if h.statement.startswith("explosive"))
    assert explosive.confidence < 1e-6


def test_the_power_law_comes_back_from_rough_short_time_values(cooling):
    from scigame.players.baseline.system_fit import power_law_fits
    task, model, fitter = cooling
    args = model.arguments_at_start(fitter.X)
    rough = K * args["dT"] ** P * np.random.default_rng(0).uniform(0.6, 1.4, fitter.n)  # values 40% off
    fits = {text.split(" (")[0]: f for f, text in power_law_fits(fitter, task["system"]["law"]["arguments"], rough,
                                                                   args)}
    quarters = fits["a power law in dT with exponents in steps of 1/4"]
    assert quarters.free == 1 and quarters.constants[0] == pytest.approx(K, rel=1e-3)
    assert quarters.tree["args"][1]["args"][1] == 1.25
    halves = fits["a power law in dT with exponents in steps of 1/2"]
    assert halves.bic > quarters.bic + 100  # 1 or 3/2 is a near miss the readings reject


def _oscillator_readings(n: int = 16, seed: int = 4):
    """A cart of mass m released at rest from x0 cm, read at time t: m·x'' = -20 N/m·x - 0.8 N s/m·x'."""
    rng = np.random.default_rng(seed)
    X = {"m": rng.uniform(0.5, 2, n), "x0": rng.uniform(2, 10, n), "t": rng.uniform(0.1, 5, n)}
    X["t"][: n // 2] = 0.1  # half of them at the shortest time, as Adaptive Discovery reads
    x = np.empty(n)
    for i in range(n):
        m = X["m"][i]
        sol = solve_ivp(lambda _t, s: [s[1], (-20.0 * s[0] - 0.8 * s[1]) / m], (0.0, X["t"][i]),
                        [X["x0"][i] / 100, 0.0], method="DOP853", rtol=1e-12, atol=1e-14)
        x[i] = sol.y[0, -1] * 100
    return X, {"x": x}


def test_the_pruned_polynomial_finds_the_velocity_term_no_start_shows(tmp_path):
    from scigame.players.baseline.system_fit import sparse_polynomial
    card = scigame.load_card(REPO / "cards" / "systems" / "damped_oscillator.sci", cache_dir=tmp_path)
    task = card.public_view("original", "discovery")
    model = SystemModel(task)
    X, Y = _oscillator_readings()
    fitter = Fitter(model, task["outputs"], X, Y)
    args = model.arguments_at_start(X)
    assert np.all(args["u"] == 0)  # released at rest: the start says nothing of the velocity
    values = -0.2 * args["q"]  # F in N of q in cm, at the start
    fit, text = sparse_polynomial(fitter, task["system"]["law"]["arguments"], values, args)
    assert "(q^1 + u^1)" in text and fit.free == 2
    assert fit.constants == pytest.approx([-0.2, -0.8], rel=1e-3)
    assert fit.worst < 0.05


def test_a_fixed_discovery_submission_reports_confidences_that_sum_to_one(tmp_path):
    """More candidates are fitted than reported: the reported ones' confidences are renormalised
    (on these readings they summed to 0.85, and the protocol refused the action)."""
    from scigame.players.base import EpisodeState
    from scigame.players.baseline.system import MAX_HYPOTHESES, decide_system
    from scigame.records import Observation
    card = scigame.load_card(REPO / "cards" / "systems" / "tank_draining.sci", cache_dir=tmp_path)
    task = card.public_view("original", "discovery")
    rng = np.random.default_rng(1)
    X = {"A": rng.uniform(0.5, 2, 8), "h0": rng.uniform(0.5, 2, 8), "t": rng.uniform(10, 600, 8)}
    obs = []
    for i in range(8):  # the tank drains at q = 0.001 m^2.5/s · √d
        sol = solve_ivp(lambda _t, y: [-0.001 * y[0] ** 0.5 / X["A"][i]], (0.0, X["t"][i]), [X["h0"][i]],
                        method="DOP853", rtol=1e-12, atol=1e-14)
        obs.append(Observation(inputs={k: float(v[i]) for k, v in X.items()}, outputs={"h": float(sol.y[0, -1])}))
    state = EpisodeState(task=task | {"threshold": 0.9}, setting="discovery", protocol="fixed", threshold=0.9,
                         observations=obs, turns=[], must_submit=True, steps_left=None, seed=0)
    action = decide_system(state)
    assert len(action.hypotheses) <= MAX_HYPOTHESES
    assert sum(h.confidence for h in action.hypotheses) == pytest.approx(1.0, abs=1e-9)
    score = card.score(action.submission.predictor, "original")
    assert score.weak and score.strict
