"""Scoring predictors: PS, weak and strict, against hand computations."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import scigame
from scigame.cli import main

REPO = Path(__file__).resolve().parent.parent
G = 6.674e-11
#: the card's `rebalance G at r = 5 [m]`: G m1 m2 / r0^2 = G' m1 m2 / r0^3, so G' = G * 5 m
G_CF = G * 5


def tree_law(G_value=G, n=2):
    return {"F": {"op": "div", "args": [{"op": "mul", "args": [G_value, {"var": "m1"}, {"var": "m2"}]},
                                        {"op": "pow", "args": [{"var": "r"}, n]}]}}


@pytest.fixture(scope="module")
def grav(tmp_path_factory):
    return scigame.load_card(REPO / "cards/historical/gravitation.sci",
                             cache_dir=tmp_path_factory.mktemp("cache"))


def by_hand(grav, env):
    """The law's values on the hidden set, computed here from the inputs."""
    ev = grav.evaluation.inputs
    m1, m2, r = (np.asarray(ev[k]) for k in ("m1", "m2", "r"))
    if env == "original":
        return G * m1 * m2 / r ** 2
    return G_CF * m1 * m2 / r ** 3


def test_stored_truth_is_the_law(grav):
    for env in ("original", "counterfactual"):
        np.testing.assert_allclose(grav.evaluation.outputs[env]["F"], by_hand(grav, env), rtol=1e-12)


def test_exact_law_is_strict(grav):
    s = grav.score(tree_law(), "original")
    assert (s.valid, s.weak, s.strict, s.ps) == (True, True, True, 1.0)
    s = grav.score(tree_law(G_CF, n=3), "counterfactual")
    assert (s.valid, s.weak, s.strict) == (True, True, True)


def test_rounded_constant_is_still_the_law(grav):
    s = grav.score(tree_law(G_value=6.67e-11), "original")
    assert s.weak and s.strict
    g = by_hand(grav, "original")
    e = np.abs(6.67e-11 / G * g - g) / (1e-15 + 0.01 * np.abs(g))
    assert s.ps == pytest.approx(1 / (1 + e.mean()), rel=1e-9)


def test_tiny_extra_term_is_weak_not_strict(grav):
    pred = tree_law()
    pred["F"] = {"op": "add", "args": [pred["F"], {"op": "mul", "args": [1e-30, {"var": "m1"}]}]}
    s = grav.score(pred, "original")
    assert s.weak and s.strict is False


def test_other_worlds_law_fails_weak(grav):
    s = grav.score(tree_law(G_CF, n=3), "original")
    assert s.valid and not s.weak and s.strict is False
    g = by_hand(grav, "original")
    guess = by_hand(grav, "counterfactual")
    e = np.abs(guess - g) / (1e-15 + 0.01 * np.abs(g))
    assert s.ps == pytest.approx(1 / (1 + e.mean()), rel=1e-9)
    assert s.outputs["F"].max_error == pytest.approx(e.max(), rel=1e-9)


@pytest.mark.parametrize(("predictor", "reason", "path"), [
    ({}, "missing", ""),
    ({"F": {"var": "m3"}}, "m3", "F"),
    ({"F": {"op": "log", "args": [{"op": "neg", "args": [{"var": "r"}]}]}}, "log", "F"),
    ({"F": True}, "bool", "F"),
    ({"F": 1.0, "G": 2.0}, "G", ""),
])
def test_invalid_predictors_score_zero(grav, predictor, reason, path):
    s = grav.score(predictor, "original")
    assert not s.valid and s.ps == 0.0 and not s.weak and s.strict is False
    assert reason in s.reason
    assert s.path.startswith(path)


def test_nan_literal_in_json_text_is_invalid(grav):
    s = grav.score('{"F": NaN}', "original")
    assert not s.valid and "NaN" in s.reason


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=-1e-5, max_value=1e-5, allow_nan=False))
def test_constant_predictor_ps_matches_formula(grav, c):
    s = grav.score({"F": c}, "original")
    g = by_hand(grav, "original")
    e = np.abs(c - g) / (1e-15 + 0.01 * np.abs(g))
    assert s.valid
    assert s.ps == pytest.approx(1 / (1 + e.mean()), rel=1e-9)
    assert s.weak == bool(e.max() <= 1)


def test_score_cli(grav, tmp_path):
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps(tree_law(G_CF, n=3)))
    r = CliRunner().invoke(main, ["score", str(grav.folder), str(pred), "--env", "counterfactual"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert {"valid", "reason", "ps", "weak", "strict"} <= set(out)
    # G' is solved numerically by the card's `rebalance G at`: equal to 5 G within a float's last digit
    assert out["strict"] is True and out["ps"] == pytest.approx(1.0, abs=1e-12)
    pred.write_text('{"F": {"op": "div", "args": [1, 0]}}')
    out = json.loads(CliRunner().invoke(main, ["score", str(grav.folder), str(pred), "--env", "original"]).output)
    assert out["valid"] is False and "F" in out["path"]
    r = CliRunner().invoke(main, ["score", str(grav.folder), str(tmp_path / "missing.json"), "--env", "original"])
    assert r.exit_code == 2 and "Traceback" not in r.output
