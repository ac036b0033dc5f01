"""The baseline player's bookkeeping (players/baseline/player.py): repeats,
observations as arrays, confidences kept a distribution, and the evidence
of later observations, against values worked out by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from scigame.players.baseline.design import RIVAL_FLOOR
from scigame.players.baseline.identify import Hyp
from scigame.players.baseline.player import (NOISY_REPEATS, PREDICTED_ENOUGH, Evidence, ensure_two, observed,
                                             pool_alike, repeats_for, temper)
from scigame.players.baseline.task import Input, Output

X_IN = Input("x", "m", "linear", 0.0, 10.0, [])
Y_OUT = Output("y", "1", tol_abs=0.1, tol_rel=0.0)


def test_repeats_for_noisy_outputs_only():
    assert repeats_for({"outputs": [{"name": "y"}, {"name": "z", "noise": 0.01}]}) == NOISY_REPEATS == 3
    assert repeats_for({"outputs": [{"name": "y", "noise": 0}]}) == 1
    assert repeats_for({}) == 1


def test_observed_keeps_finite_inputs_and_makes_bad_outputs_nan():
    obs = [SimpleNamespace(inputs={"x": 1.0}, outputs={"y": 2.0}),
           SimpleNamespace(inputs={"x": float("inf")}, outputs={"y": 3.0}),  # dropped: input not finite
           SimpleNamespace(inputs={}, outputs={"y": 4.0}),  # dropped: input missing
           SimpleNamespace(inputs={"x": 2.0}, outputs={"y": "n/a"}),
           SimpleNamespace(inputs={"x": 3.0}, outputs={})]
    X, Y = observed(SimpleNamespace(observations=obs), [X_IN], [Y_OUT])
    np.testing.assert_array_equal(X["x"], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(Y["y"], [2.0, np.nan, np.nan])


def test_ensure_two_adds_a_constant_rival_and_normalises():
    one = [Hyp("y = x", 3.0, {"y": {"var": "x"}})]
    out = ensure_two(one, [Y_OUT], {"y": np.array([1.0, 2.0, np.nan, 6.0])})
    assert len(out) == 2 and out[1].predictor == {"y": 3.0}  # the mean of the finite readings
    assert [h.confidence for h in out] == [1.0, 0.0]
    none = ensure_two([], [Y_OUT], {"y": np.array([5.0])})
    assert [h.predictor for h in none] == [{"y": 5.0}, {"y": 6.0}]  # the second constant differs from the first
    assert math.isclose(sum(h.confidence for h in none), 1.0)
    three = ensure_two([Hyp("a", 2.0, {}), Hyp("b", 1.0, {}), Hyp("c", float("nan"), {})], [Y_OUT], {})
    assert [round(h.confidence, 12) for h in three] == [round(2 / 3, 12), round(1 / 3, 12)]


def test_temper_caps_the_top_confidence_keeping_the_sum():
    hyps = [Hyp("a", 0.9, {}), Hyp("b", 0.1, {})]
    temper(hyps, 0.7)
    # a = (0.9 - 0.7) / (0.9 - 0.5) = 0.5: halfway to uniform
    assert [h.confidence for h in hyps] == pytest.approx([0.7, 0.3])
    same = [Hyp("a", 0.6, {}), Hyp("b", 0.4, {})]
    temper(same, 0.7)
    assert [h.confidence for h in same] == [0.6, 0.4]


def test_pool_alike_only_when_no_experiment_tells_them_apart():
    hyps = [Hyp("a", 0.5, {}), Hyp("b", 0.3, {}), Hyp("c", RIVAL_FLOOR / 2, {})]
    assert not pool_alike(hyps, 0, spread=1.0)
    assert [h.confidence for h in hyps] == [0.5, 0.3, RIVAL_FLOOR / 2]
    assert pool_alike(hyps, 0, spread=0.5)
    assert [h.confidence for h in hyps] == [0.8, 0.0, RIVAL_FLOOR / 2]  # the faint one is left alone


def test_evidence_pools_twins_and_reweighs_by_later_errors():
    check = {"x": np.linspace(0.0, 10.0, 11)}
    hyps = [Hyp("y = x", 0.5, {"y": {"var": "x"}}), Hyp("y = x + 0.05", 0.2, {"y": {"op": "add", "args": [
        {"var": "x"}, 0.05]}}), Hyp("y = 2x", 0.3, {"y": {"op": "mul", "args": [2.0, {"var": "x"}]}})]
    ev = Evidence(hyps, n=2, misfit=0.4, outputs=[Y_OUT], check_X=check)
    assert ev.held_out_misfit() == 0.4  # nothing predicted yet: the search's own misfit
    assert [h.statement for h in ev.hyps] == ["y = x", "y = 2x"]  # 0.05 is within the 0.1 tolerance: a twin
    assert [h.confidence for h in ev.hyps] == pytest.approx([0.7, 0.3])
    X = {"x": np.array([1.0, 2.0, 3.0, 4.0, 5.0])}
    Y = {"y": np.array([1.0, 2.0, 3.0, 4.05, 5.0])}
    out = ev.update([Y_OUT], X, Y)
    # errors in tolerances: the leader 0, 0.5, 0; 2x: 30, 30, 30 (capped: 3, 4, 5 off by 30+)
    wl = math.log(0.7) - 0.5 * 0.25
    wr = math.log(0.3) - 0.5 * 3 * 30.0 ** 2
    assert out[0].confidence == pytest.approx(1 / (1 + math.exp(wr - wl)))
    assert PREDICTED_ENOUGH == 3 and ev.held_out_misfit() == pytest.approx(0.5)  # 3 predicted: the worst
    assert ev.update([Y_OUT], X, {"y": np.array([1.0, 2.0, 3.0, 4.5, 5.0])}) is None  # the leader missed


def test_errors_beyond_thirty_tolerances_count_as_thirty():
    check = {"x": np.linspace(0.0, 10.0, 11)}

    def shifted(c):
        return {"y": {"op": "add", "args": [{"var": "x"}, c]}}
    hyps = [Hyp("y = x", 0.5, {"y": {"var": "x"}}), Hyp("+2.5", 0.25, shifted(2.5)), Hyp("+4", 0.25, shifted(4.0))]
    ev = Evidence(hyps, n=0, misfit=0.0, outputs=[Y_OUT], check_X=check)
    out = ev.update([Y_OUT], {"x": np.array([1.0])}, {"y": np.array([1.0])})
    # errors 25 and 40 tolerances; 40 counts as 30: log ratio -½(25²) + ½(30²) = 137.5
    assert math.log(out[1].confidence / out[2].confidence) == pytest.approx(137.5, rel=1e-9)


def _law(scale, rate, shift):
    """scale·I0·e^(−rate·x) + shift·I0, with `scale` None for no factor written."""
    head = [{"var": "I0"}, {"op": "exp", "args": [{"op": "mul", "args": [rate, {"var": "x"}]}]}]
    return {"I": {"op": "add", "args": [{"op": "mul", "args": ([] if scale is None else [scale]) + head},
                                        {"op": "mul", "args": [shift, {"var": "I0"}]}]}}


def test_a_unit_factor_left_written_is_the_same_form():
    """A fit that leaves 1.0·I0·e^(−0.8·x) written is the form of I0·e^(−0.8·x): the search before
    a submission returning it must not read as a new, untested form; a real factor is another form."""
    from scigame.players.baseline.player import _shape
    assert _shape(_law(1.0, -0.8, 0.28)) == _shape(_law(None, -0.79, 0.3))
    assert _shape(_law(2.0, -0.8, 0.28)) != _shape(_law(None, -0.8, 0.28))
    assert _shape(None) is None  # a hypothesis sent without a predictor (the LLM action format) has no form


def test_refit_drift_pairs_the_constants_of_a_form_written_with_a_unit_factor():
    """The constants are paired after folding: −0.8 with −0.8 and 0.28 with 0.28 (no drift), not the
    written 1.0 with −0.8; a moved rate is measured against its own old value: 0.02/0.82 over 1%."""
    from scigame.players.baseline.player import refit_drift
    out = Output("I", "W", tol_abs=0.0, tol_rel=0.01)
    X = {"I0": np.linspace(1.0, 2.0, 9), "x": np.linspace(0.0, 3.0, 9)}
    assert refit_drift(_law(None, -0.8, 0.28), _law(1.0, -0.8, 0.28), [out], X) == 0.0
    assert refit_drift(_law(None, -0.8, 0.28), _law(1.0, -0.82, 0.28), [out], X) == pytest.approx(0.02 / 0.82 / 0.01)


def test_a_square_root_is_the_form_of_a_power():
    """2.3·√(1 − e^(−0.33·q)) refitted as 2.31·(1 − e^(−0.34·q))^0.522 is the same form with
    its exponent moved (a refit's drift, for the honest-failure retest), not a new form; a
    square root of another argument is another form."""
    from scigame.players.baseline.player import _shape

    def law(inner_rate, power):
        inner = {"op": "sub", "args": [1.0, {"op": "exp", "args": [{"op": "mul", "args": [inner_rate, {"var": "q"}]}]}]}
        root = {"op": "sqrt", "args": [inner]} if power is None else {"op": "pow", "args": [inner, power]}
        return {"A": {"op": "mul", "args": [2.3, root]}}
    assert _shape(law(-0.33, None)) == _shape(law(-0.34, 0.522))
    other = {"A": {"op": "mul", "args": [2.3, {"op": "sqrt", "args": [{"var": "q"}]}]}}
    assert _shape(other) != _shape(law(-0.34, 0.522))
