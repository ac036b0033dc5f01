"""Scoring's faster paths give exactly what the plain computations give:
the refit of a failed predictor's constants from recorded folds, and form
credit with each node's label worked out once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import zss

import scigame
from scigame.failure import _constants, classify_failure, refit_errors, refits_to_weak
from scigame.form_credit import _children, _cost, _label, _size, form_credit
from scigame.predictor import PredictorInvalid, evaluate_predictor
from scigame.scoring import _variables, scaled_errors
from scigame.symbolic import symbols_for, tree_to_sympy
from scigame.residue import law_constants
from scigame.testing.strict_forms import infix_tree

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ohm(tmp_path_factory):
    return scigame.load_card(REPO / "cards/historical/ohm_joule.sci", cache_dir=tmp_path_factory.mktemp("cache"))


def _replace(tree, path, value):
    if not path:
        return value
    node = dict(tree)
    args = list(node["args"])
    args[path[0]] = _replace(args[path[0]], path[1:], value)
    node["args"] = args
    return node


def rebuilt_refit(card, env, predictor):
    """The refit as first written: every trial's trees rebuilt with the new
    constants and evaluated from scratch."""
    from scipy.optimize import least_squares

    slots = [(out, p, v) for out, tree in predictor.items() for p, v in _constants(tree)]
    ev = card.evaluation
    inputs = {k: np.asarray(v, dtype=float) for k, v in ev.inputs.items()}
    truth = {o.name: np.asarray(ev.outputs[env][o.name], dtype=float) for o in card.data.outputs}
    tol = {o.name: (o.tol_abs, o.tol_rel) for o in card.data.outputs}
    x0 = np.array([v for _, _, v in slots])
    scale = np.where(x0 != 0, np.abs(x0), 1.0)

    def residuals(z):
        trees = dict(predictor)
        for (out, p, _), value in zip(slots, z * scale):
            trees[out] = _replace(trees[out], p, float(value))
        try:
            pred = evaluate_predictor(trees, inputs)
        except PredictorInvalid:
            return np.full(sum(len(t) for t in truth.values()), 1e6)
        return np.concatenate([scaled_errors(np.broadcast_to(pred[k], truth[k].shape), truth[k], *tol[k])
                               for k in truth])

    fit = least_squares(residuals, x0 / scale, max_nfev=200 * len(slots), method="trf")
    return residuals(fit.x)


#: (I, P) predictors of the Ohm card: constants after structural numbers, in
#: both outputs, nested in several places; one that a refit saves, some it cannot,
#: one whose trials leave a domain (log of a negative value).
PREDICTORS = [
    ("1.3*V/R", "0.9*V^2/R"),                              # constants off: refits to the law
    ("1.3*V/R + 0.2*V^2/R^2", "2*0.45*V^2/(R+3.5)"),       # more slots than the law needs
    ("0.7*V^0.5/R", "V*1.7/R + 0.3"),                      # wrong forms
    ("1000*V/(R*(1 + 0.02*V))", "log(V - 0.3)*1000/R"),    # the log's argument can go negative in a trial
]


@pytest.mark.parametrize(("i", "p"), PREDICTORS)
@pytest.mark.parametrize("env", ["original", "counterfactual"])
def test_refit_from_recorded_folds_equals_rebuilt_trees(ohm, i, p, env):
    predictor = {"I": infix_tree(i), "P": infix_tree(p)}
    fast = refit_errors(ohm, env, predictor)
    slow = rebuilt_refit(ohm, env, predictor)
    assert fast is not None
    np.testing.assert_array_equal(fast, slow)  # every bit: the verdict cannot drift
    assert refits_to_weak(ohm, env, predictor) == bool(np.max(np.abs(slow)) <= 1.0)


def test_refit_tells_a_parameter_error_from_a_wrong_relation(ohm):
    off = {"I": infix_tree("1.3*1000*V/R"), "P": infix_tree("0.9*1000*V^2/R")}
    wrong = {"I": infix_tree("1.3*V^0.5"), "P": infix_tree("0.9*V")}
    assert refits_to_weak(ohm, "original", off)
    assert not refits_to_weak(ohm, "original", wrong)
    score = ohm.score(off, "original")
    assert not score.weak and classify_failure(ohm, "original", off, score) == "parameter_error"
    assert refit_errors(ohm, "original", {"I": infix_tree("V/R"), "P": infix_tree("V^2/R")}) is None  # no slots


def test_the_weak_refit_stops_at_the_first_values_that_pass(ohm, monkeypatch):
    """refits_to_weak asks whether any constants make the predictor pass weak: it stops at the
    first values tried that do (the full fit goes on to its evaluation limit), and where none do
    it is the full fit, every bit."""
    import scigame.scoring as scoring

    calls = []

    def counted(*a, **kw):
        calls.append(1)
        return scaled_errors(*a, **kw)

    monkeypatch.setattr(scoring, "scaled_errors", counted)
    off = {"I": infix_tree("1.3*1000*V/R"), "P": infix_tree("0.9*1000*V^2/R")}
    full = refit_errors(ohm, "original", off)
    full_calls = len(calls)
    calls.clear()
    early = refit_errors(ohm, "original", off, stop_when_weak=True)
    assert np.max(full) <= 1.0 and np.max(early) <= 1.0
    assert 0 < len(calls) < full_calls
    wrong = {"I": infix_tree("1.3*V^0.5"), "P": infix_tree("0.9*V")}
    np.testing.assert_array_equal(refit_errors(ohm, "original", wrong, stop_when_weak=True),
                                  rebuilt_refit(ohm, "original", wrong))


def plain_credit(candidate, reference, variables):
    """form_credit with the library called on the plain label and children functions."""
    symbols = symbols_for(variables)
    law = tree_to_sympy(reference, symbols, exact=True)
    cand = tree_to_sympy(candidate, symbols, exact=True, constants=law_constants(law))
    distance = zss.simple_distance(cand, law, _children, _label, _cost)
    return max(0.0, 1.0 - distance / _size(law))


@pytest.mark.parametrize("candidate", [
    "1000*V/R", "V/(R*(1 + 0.05*V))", "V^2/R + V/R + 3.1*V^3/R^2", "exp(V/R)*sin(V) + V*(V + 1)/(R + 2)",
    "(V/R)^2 + (V/R)^2*2.2 + log(R)*V/R",  # repeated subexpressions share their entries
])
def test_credit_with_labels_worked_out_once_equals_the_plain_distance(ohm, candidate):
    variables = _variables(ohm)
    for env in ("original", "counterfactual"):
        law = ohm.data.environments[env].laws["P"]
        assert form_credit(infix_tree(candidate), law, variables) == plain_credit(infix_tree(candidate), law,
                                                                                   variables)
