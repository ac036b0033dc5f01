"""A system card's transcript in the HTML report shows its observations as
trajectories (issue 24): a table per starting state, readings in time order,
and an inline SVG line per output; every name in them is escaped."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.report import build_tables, load_runs
from scigame.report.html import render_html
from scigame.report.markup import text
from scigame.report.trajectories import HEIGHT, MARGIN, WIDTH, output_svg, trajectories_html
from tests.test_report_markup import HOSTILE, _assert_nothing_introduced, shape

REPO = Path(__file__).resolve().parent.parent
CARD = str(REPO / "cards/systems/tank_draining.sci")
TASK = {"system": {"time": "t"}}


def test_readings_are_grouped_by_their_start_and_put_in_time_order():
    obs = [NS(inputs={"h0": 2.0, "t": 20.0}, outputs={"h": 1.5}), NS(inputs={"h0": 1.0, "t": 5.0}, outputs={"h": 0.9}),
           NS(inputs={"h0": 2.0, "t": 10.0}, outputs={"h": 1.8})]
    page = trajectories_html(TASK, obs)
    assert page.count('<div class="trajectory">') == 2
    first = page.split('<div class="trajectory">')[1]
    assert "from h0=2" in first
    # the rows of the first trajectory: t=10 before t=20
    assert first.index('<td class="n">10</td><td class="n">1.8</td>') < first.index('<td class="n">20</td>')
    assert first.count("<polyline") == 1  # two readings: a line; the other start has one reading, no line
    assert page.split('<div class="trajectory">')[2].count("<svg") == 0
    assert trajectories_html({}, obs) == "" and trajectories_html({"inputs": []}, obs) == ""


def test_the_line_puts_each_reading_where_the_axes_say():
    svg = output_svg("h", [0.0, 1.0, 2.0, 3.0], [0.0, 5.0, 10.0, float("nan")])
    # x: 4 .. 176 over t 0 .. 2; y: 56 (the least value) .. 4 (the largest); the NaN reading left out
    left, right = MARGIN, WIDTH - MARGIN
    top, bottom = MARGIN, HEIGHT - MARGIN
    assert f'points="{left:.1f},{bottom:.1f} {(left + right) / 2:.1f},{(top + bottom) / 2:.1f} {right:.1f},{top:.1f}"' in svg
    assert svg.count("<circle") == 3
    assert output_svg("h", [1.0], [2.0]) == "" and output_svg("h", [1.0, 2.0], [float("inf"), 1.0]) == ""
    assert "style=" not in svg and "<script" not in svg


@pytest.fixture(scope="module")
def system_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("trajectories") / "run"
    result = CliRunner().invoke(main, ["eval", CARD, "--out", str(out), "--reps", "1", "--env", "original",
                                       "--setting", "discovery", "--protocol", "adaptive", "--max-steps", "4",
                                       "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    return load_runs([out])


def _page(runs) -> str:
    return render_html(runs, build_tables(runs), [])


def test_the_report_of_a_system_card_shows_its_trajectories(system_run):
    page = _page(system_run)
    (episode,) = system_run.episodes.values()
    observed = [t.response.observation for t in episode.turns if t.response and t.response.observation]
    assert len(observed) >= 2
    assert f"Trajectories ({len({o.inputs['A'] for o in observed})})" in page
    for o in observed:
        assert f'<td class="n">{o.inputs["t"]:.6g}</td><td class="n">{o.outputs["h"]:.6g}</td>' in page


def _poison(runs, s: str):
    """The runs with `s` before every name the trajectories show: the card's,
    its time input's, its other inputs' and its outputs'."""
    runs = copy.deepcopy(runs)
    for key, e in list(runs.episodes.items()):
        task = copy.deepcopy(e.task)
        task["system"]["time"] = s + task["system"]["time"]
        turns = []
        for t in e.turns:
            r = t.response
            if r is not None and r.observation is not None:
                o = r.observation
                o = o.model_copy(update={"inputs": {s + k: v for k, v in o.inputs.items()},
                                         "outputs": {s + k: v for k, v in o.outputs.items()}})
                r = r.model_copy(update={"observation": o})
            turns.append(t.model_copy(update={"response": r}))
        runs.episodes[key] = e.model_copy(update={"key": e.key.model_copy(update={"card": s}), "task": task,
                                                  "turns": turns})
    for r in runs.rows:
        r.update(card=s)
    return runs


@pytest.mark.parametrize("s", HOSTILE)
def test_a_hostile_name_in_a_system_card_is_escaped_in_its_trajectories(system_run, s):
    plain = shape(_page(_poison(system_run, "plain")))
    page = _page(_poison(system_run, s))
    _assert_nothing_introduced(shape(page), plain, s)
    assert f"<th>{text(s + 't')}</th>" in page
