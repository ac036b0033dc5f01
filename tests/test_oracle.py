"""The oracle: quantisation of observations and rejection of illegal proposals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scigame
from scigame.oracle import Rejection, quantize, quantize_value

PROBE = '''card oracle_probe "oracle probe" {
  collection historical
  source "test card"
  background "A probe card for the oracle."
  input x [m] in 1 .. 10
  input k integer in 1 .. 5
  input c in {0.5, 1, 2}
  output y [m] resolution 0.01 tolerance abs 0.01 rel 1%
  param a = 1
  law y = a * x * k * c
  constraint x * k <= 20 [m] "the rod would not fit"
  counterfactual "scaled coefficient" { scale a by 1.2 }
}
'''


@pytest.mark.parametrize(("value", "resolution", "expected"), [
    (0.30000000000000004, 0.1, 0.3),     # residue removed
    (0.1 + 0.2, 0.01, 0.3),
    (0.25, 0.1, 0.2),                    # tie -> even (2.5 -> 2)
    (0.35, 0.1, 0.4),                    # tie -> even (3.5 -> 4)
    (0.45, 0.1, 0.4),
    (2.5, 1, 2.0),
    (3.5, 1, 4.0),
    (-2.5, 1, -2.0),
    (0.0005, 0.001, 0.0),                # tie at zero stays zero
    (0.0015, 0.001, 0.002),
    (0.125, 0.05, 0.1),                  # 2.5 steps -> 2
    (0.175, 0.05, 0.2),                  # 3.5 steps -> 4
    (3.337e-09, 1e-15, 3.337e-09),
    (1.23456, 0.001, 1.235),
    (-0.0001, 0.01, 0.0),                # no negative zero
    (123456789.123, 1000, 123457000.0),
    (7.0, None, 7.0),                    # no resolution: exact
])
def test_quantize(value, resolution, expected):
    got = quantize_value(value, resolution)
    assert got == expected
    assert math.copysign(1, got) == math.copysign(1, expected)


def test_quantize_array_keeps_shape():
    out = quantize(np.array([[0.25, 0.35], [0.45, 0.55]]), 0.1)
    assert out.tolist() == [[0.2, 0.4], [0.4, 0.6]]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("probe")
    path = folder / "oracle_probe.sci"
    path.write_text(PROBE)
    return scigame.load_card(path, cache_dir=folder / "cache")


def rejected(card, inputs, outputs=None) -> str:
    with pytest.raises(Rejection) as info:
        card.simulate("original", inputs, outputs=outputs)
    return " | ".join(info.value.reasons)


def test_legal_proposal_is_observed(probe):
    out = probe.simulate("original", {"x": 2.5, "k": 3, "c": 0.5})
    assert out["y"].tolist() == [3.75]
    out = probe.simulate("counterfactual", {"x": 2.5, "k": 3, "c": 0.5}, exact=True)
    assert out["y"][0] == pytest.approx(2.5 * 3 * 0.5 * 1.2, rel=1e-15)


@pytest.mark.parametrize(("inputs", "outputs", "reason"), [
    ({"x": 2, "k": 1}, None, "missing input `c`"),
    ({"x": 2, "k": 1, "c": 1, "z": 3}, None, "unknown input `z`"),
    ({"x": float("nan"), "k": 1, "c": 1}, None, "x = nan is not a finite number"),
    ({"x": float("inf"), "k": 1, "c": 1}, None, "is not a finite number"),
    ({"x": 11, "k": 1, "c": 1}, None, "x = 11 is outside its domain 1 .. 10 [m]"),
    ({"x": 0.5, "k": 1, "c": 1}, None, "outside its domain"),
    ({"x": 2, "k": 1.5, "c": 1}, None, "k = 1.5 is not an integer"),
    ({"x": 2, "k": 1, "c": 0.7}, None, "c = 0.7 is not one of the allowed values {0.5, 1, 2}"),
    ({"x": 9, "k": 3, "c": 1}, None, "the constraint `x * k <= 20 [m]` does not hold at x=9, k=3, c=1: "
                                     "the rod would not fit"),
    ({"x": 2, "k": 1, "c": 1}, ["y", "w"], "unknown output `w`"),
])
def test_rejections(probe, inputs, outputs, reason):
    assert reason in rejected(probe, inputs, outputs)


def test_every_reason_is_reported_at_once(probe):
    text = rejected(probe, {"x": 11, "k": 1.5, "c": 0.7})
    assert "outside its domain" in text and "not an integer" in text and "not one of" in text


def test_rejection_through_cli(probe, tmp_path):
    from click.testing import CliRunner

    from scigame.cli import main
    result = CliRunner().invoke(main, ["simulate", str(probe.folder), "--env", "original",
                                       "x=11", "k=1", "c=1"])
    assert result.exit_code == 1
    assert "rejected: x = 11 is outside its domain" in result.output
    result = CliRunner().invoke(main, ["simulate", str(probe.folder), "--env", "original",
                                       "x=2", "k=1", "c=0.5"])
    assert result.exit_code == 0, result.output
    assert '"y": 1.0' in result.output


def test_simulate_cli_refuses_an_input_given_twice(probe):
    from click.testing import CliRunner

    from scigame.cli import main
    result = CliRunner().invoke(main, ["simulate", str(probe.folder), "--env", "original",
                                       "x=2", "x=3", "k=1", "c=0.5"])
    assert result.exit_code == 2 and "x is given twice" in result.output
