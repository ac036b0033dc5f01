"""JSON interchange: `scigame export CARD --format json` and `scigame import`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.compiler import check_file, check_source
from scigame.compiler.evaluation import evaluate_world
from scigame.compiler.sampling import evaluation_set, fixed_design
from scigame.interchange import card_schema

REPO = Path(__file__).resolve().parent.parent
BUNDLED = sorted((REPO / "cards").rglob("*.sci")) + sorted((REPO / "examples").rglob("*.sci"))
#: Cards that use what no bundled card does yet (measurement noise, an out-of-domain set).
EXTRA = sorted((REPO / "tests" / "cards").glob("*.sci"))


def export(runner, path) -> str:
    result = runner.invoke(main, ["export", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("path", BUNDLED + EXTRA, ids=lambda p: p.stem)
def test_round_trip(path, tmp_path):
    runner = CliRunner()
    first = export(runner, path)
    (tmp_path / "card.json").write_text(first)
    sci = tmp_path / f"{path.stem}.sci"
    result = runner.invoke(main, ["import", str(tmp_path / "card.json"), "-o", str(sci)])
    assert result.exit_code == 0, result.output
    assert export(runner, sci) == first  # export -> import -> export is identical

    # the imported card is the same model: the same points, the same numbers in both worlds
    a, b = check_file(path).card, check_file(sci).card
    assert b is not None
    assert [(d.code, d.message) for d in check_file(sci).diagnostics] == \
           [(d.code, d.message) for d in check_file(path).diagnostics]
    for draw in (evaluation_set, fixed_design):
        pa, pb = draw(a), draw(b)
        assert pa.keys() == pb.keys()
        for k in pa:
            np.testing.assert_array_equal(pa[k], pb[k])
    points = evaluation_set(a)
    for env in ("original", "counterfactual"):
        ya, yb = evaluate_world(a, a.environment(env), points), evaluate_world(b, b.environment(env), points)
        for k in ya:
            np.testing.assert_array_equal(ya[k], yb[k])
    assert (a.interpolate, a.threshold, a.max_steps, a.mutations and len(a.mutations)) == \
           (b.interpolate, b.threshold, b.max_steps, b.mutations and len(b.mutations))
    assert [(o.name, o.unit.text, o.resolution, o.tol_abs, o.tol_rel, o.noise_rel, o.noise_abs) for o in a.outputs] == \
           [(o.name, o.unit.text, o.resolution, o.tol_abs, o.tol_rel, o.noise_rel, o.noise_abs) for o in b.outputs]
    assert a.evaluation_ood == b.evaluation_ood


def test_simulate_gives_identical_numbers(tmp_path):
    """Through the compiled simulator, as a user would run it."""
    runner = CliRunner()
    src = REPO / "cards/historical/ohm_joule.sci"
    (tmp_path / "c.json").write_text(export(runner, src))
    out = tmp_path / "ohm_joule.sci"
    assert runner.invoke(main, ["import", str(tmp_path / "c.json"), "-o", str(out)]).exit_code == 0
    for env in ("original", "counterfactual"):
        runs = [runner.invoke(main, ["simulate", str(p), "V=3.3", "R=47", "--env", env, "--exact"])
                for p in (src, out)]
        assert all(r.exit_code == 0 for r in runs), [r.output for r in runs]
        a, b = (json.loads(r.stdout) for r in runs)
        assert a == b
    # and the numbers are Ohm's and Joule's (beta = 0.05 /V in the counterfactual)
    assert a["outputs"]["I"] == pytest.approx(3.3 / (47 * (1 + 0.05 * 3.3)) * 1e3, rel=1e-12)


def test_published_schema_is_current():
    published = json.loads((REPO / "scigame/data/card.schema.json").read_text())
    assert published == card_schema(), "regenerate: python -m scigame.interchange > scigame/data/card.schema.json"


@pytest.fixture
def grav(tmp_path):
    return json.loads(export(CliRunner(), REPO / "cards/historical/gravitation.sci"))


@pytest.mark.parametrize(("edit", "path"), [
    (lambda d: d["inputs"][1]["domain"].update(lo="near"), "$.inputs[1].domain.lo"),
    (lambda d: d["laws"][0].update(expr="G * m1 *"), "$.laws[0].expr"),
    (lambda d: d["counterfactual"]["mutations"][0].update(kind="sett"), "$.counterfactual.mutations[0]"),
    (lambda d: d["params"][0].update(name="2n"), "$.params[0].name"),
    (lambda d: d["inputs"][0].update(unit="kg]"), "$.inputs[0].unit"),
    (lambda d: d.update(colour="red"), "$.colour"),
    (lambda d: d.update(background="  indented\n  on every line"), "$.background"),
    (lambda d: d["outputs"][0]["tolerance"].update(rel=float("inf")), "$.outputs[0].tolerance.rel"),
])
def test_bad_json_names_the_path(grav, tmp_path, edit, path):
    edit(grav)
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(grav))
    out = tmp_path / "bad.sci"
    result = CliRunner().invoke(main, ["import", str(src), "-o", str(out)])
    assert result.exit_code == 1
    assert f"{src}: {path}" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_not_json_gives_line_and_column(tmp_path):
    src = tmp_path / "x.json"
    src.write_text('{"name": "a",\n "title": }')
    result = CliRunner().invoke(main, ["import", str(src), "-o", str(tmp_path / "x.sci")])
    assert result.exit_code == 1 and f"{src}:2:" in result.output


def test_export_refuses_a_card_with_errors(tmp_path):
    bad = tmp_path / "bad.sci"
    bad.write_text((REPO / "cards/historical/gravitation.sci").read_text().replace("r^n", "r^n + m1"))
    result = CliRunner().invoke(main, ["export", str(bad)])
    assert result.exit_code == 1 and "error[E4" in result.output


def test_a_card_written_by_a_tool_imports_and_lints(tmp_path):
    """The use case: a tool (or an LLM) writes the JSON form, never the .sci text."""
    doc = {"name": "hooke_json", "title": "A spring", "collection": "historical", "field": "physics",
           "source": "R. Hooke, De potentia restitutiva (1678)",
           "background": "A spring hangs from a support; masses stretch it and a ruler reads the extension.",
           "inputs": [{"name": "x", "unit": "mm", "domain": {"kind": "range", "lo": 5, "hi": 50},
                       "description": "extension"}],
           "outputs": [{"name": "F", "unit": "N", "resolution": 0.001,
                        "tolerance": {"abs": 0.005, "rel": 0.01}, "description": "force"}],
           "params": [{"name": "k", "value": 25, "unit": "N/m"}, {"name": "p", "value": 1}],
           "laws": [{"name": "F", "expr": "k * x^p / 1 [mm]^(p - 1)"}],
           "counterfactual": {"label": "exponent change", "mutations": [{"kind": "set", "name": "p", "value": 1.5}]}}
    (tmp_path / "h.json").write_text(json.dumps(doc))
    out = tmp_path / "hooke_json.sci"
    assert CliRunner().invoke(main, ["import", str(tmp_path / "h.json"), "-o", str(out)]).exit_code == 0
    result = check_source(out.read_text(), str(out))
    assert result.ok, [d.message for d in result.diagnostics]
    assert "law F = k * x^p / 1 [mm]^(p - 1)" in out.read_text()
