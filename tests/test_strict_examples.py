"""The issue's examples of correct answers the strict matcher used to
reject, scored through the real `scigame score` command on small cards."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.testing.strict_forms import infix_tree

CARD = """\
card {name} "{name}" {{
  collection historical
  field      physics
  source     "A. Author, Journal 1, 1 (1900)"
  background \"\"\"
    A test card for the strict matcher.
  \"\"\"
{inputs}
  output y [1] resolution 0.000001 tolerance abs 0.000001 rel 1%  "the output"
{params}
  law y = {law}
  counterfactual "exponent change" {{
    {mutation}
  }}
  fixed design 4 sobol seed 1
  evaluation 64 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}}
"""

EXAMPLES = [
    # id, inputs, params, law, mutation, predictor (original world)
    ("malus_degrees",
     '  input I0 [1] in 0.5 .. 5 "intensity"\n  input theta [deg] in 0 .. 80 "angle"',
     '  param p = 2 "exponent"', "I0 * cos(theta)^p", "set p = 3",
     "I0*(1+cos(2*theta*0.017453292519943295))/2"),
    ("projectile_height",
     '  input v [1] in 2 .. 10 "speed"\n  input theta [1] in 0.2 .. 1.3 "angle in radians"',
     '  param g = 9.81 "gravity"\n  param n = 2 "exponent"', "v^n * sin(theta)^2 / (2*g)", "set n = 3",
     "v^2*(1-cos(2*theta))/(4*9.81)"),
    ("standing_wave",
     '  input x [1] in 0.05 .. 0.45 "position"',
     '  param k = 1.5 "amplitude"\n  param n = 2 "exponent"', "k * (sin(2*pi*x)^n)", "set n = 3",
     "4*1.5*sin(3.141592653589793*x)^2*cos(3.141592653589793*x)^2"),
    ("hyperbola",
     '  input x [1] in 5 .. 10 "x"\n  input z [1] in 0 .. 1 "z"',
     '  param n = 2 "exponent"', "sqrt(x^n - pi^2*z^2)", "set n = 3",
     "sqrt(x-3.141592653589793*z)*sqrt(x+3.141592653589793*z)"),
]


def _score(tmp_path, name, inputs, params, law, mutation, predictor, env="original"):
    card = tmp_path / f"{name}.sci"
    card.write_text(CARD.format(name=name, inputs=inputs, params=params, law=law, mutation=mutation))
    pred = tmp_path / f"{name}.json"
    pred.write_text(json.dumps({"y": infix_tree(predictor)}))
    result = CliRunner().invoke(main, ["score", str(card), str(pred), "--env", env, "--timeout", "30"],
                                env={"SCIGAME_CACHE": str(tmp_path / "cache")})
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_issue_example_is_strict(tmp_path, example):
    score = _score(tmp_path, *example)
    assert score["weak"] is True, score
    assert score["strict"] is True, score["strict_reason"]
    assert "differs from the law by 0" not in score["strict_reason"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_issue_example_is_not_the_counterfactual(tmp_path, example):
    """The same predictor against the other world's law (exponent 3) fails."""
    score = _score(tmp_path, *example, env="counterfactual")
    assert score["strict"] is False


def test_bundled_projectile_in_degrees(tmp_path):
    """cards/historical/projectile.sci (theta in degrees): the height written
    with a double angle and the degree factor as a float literal."""
    from pathlib import Path
    card = Path(__file__).resolve().parent.parent / "cards/historical/projectile.sci"
    d = "0.017453292519943295"
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps({
        "R": infix_tree(f"2*v0^2*sin(theta*{d})*cos(theta*{d})/9.81"),
        "H": infix_tree(f"v0^2*(1-cos(2*theta*{d}))/(4*9.81)")}))
    result = CliRunner().invoke(main, ["score", str(card), str(pred), "--env", "original"],
                                env={"SCIGAME_CACHE": str(tmp_path / "cache")})
    score = json.loads(result.output)
    assert score["strict"] is True, score["strict_reason"]


def test_tiny_residue_reason_shows_its_size():
    """A difference of a few 1e-15 that no literal's rounding explains is not
    the law, and the reason prints its size, never 'differs by 0'."""
    from scigame.symbolic import Variable, strict_match
    x = {"var": "x"}
    law = {"op": "sin", "args": [x]}
    cand = {"op": "add", "args": [law, {"op": "mul", "args": [3e-15, {"op": "pow", "args": [x, 3]}]}]}
    verdict = strict_match(cand, law, [Variable("x", 0.1, 1.0)], 0.01, timeout=30)
    assert verdict.strict is False
    assert "differs from the law by 3.0e-15*x**3" in verdict.reason
    assert "by 0 " not in verdict.reason


def test_literal_noise_is_the_law():
    """A 15-digit π (off by 1e-15 relative, too far to be read as π) in sinh
    written with exponentials leaves a residue that moving that literal by less
    than 1e-12 removes: the law."""
    from scigame.symbolic import Variable, strict_match
    law = infix_tree("sinh(3.141592653589793*x)")
    cand = infix_tree("(exp(3.14159265358979*x) - exp(-3.14159265358979*x))/2")
    verdict = strict_match(cand, law, [Variable("x", 0.1, 1.0)], 0.01, timeout=30)
    assert verdict.strict is True, verdict.reason
    assert "floating-point noise" in verdict.reason
