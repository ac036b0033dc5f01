"""System cards (issue 24): the compiled integrators against independent
computations.

Every bundled system card, both worlds, 200 random points: the compiled
kernel equals scipy's `solve_ivp` (DOP853, rtol 100 ulp: see REFERENCE_RTOL) with the right-hand
side written here from the physics, not from the card's trees, to 1e-3 of
each output's tolerance. An orbit keeps its energy and angular momentum over
10 orbits; the linear oscillator matches its closed form.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import scigame

REPO = Path(__file__).resolve().parent.parent
SYSTEMS = REPO / "cards" / "systems"
AU, DAY, G = 1.495978707e11, 86400.0, 6.674e-11


def _two_body(world):
    n, g = (2.0, G) if world == "original" else (2.5, G * math.sqrt(AU))  # rebalanced at r = 1 au

    def rhs(t, s, p):
        x, y, vx, vy = s
        d = math.hypot(x, y)
        a = g * p["M"] / d ** n
        return [vx, vy, -a * x / d, -a * y / d]
    return rhs, lambda p: [p["r0"] * AU, 0.0, 0.0, p["v0"] * 1e3], lambda p: p["t"] * DAY, \
        lambda s: {"x": s[0] / AU, "y": s[1] / AU}


def _oscillator(world):
    k3 = 0.0 if world == "original" else 2000.0

    def rhs(t, s, p):
        x, v = s
        return [v, (-20.0 * x - k3 * x ** 3 - 0.8 * v) / p["m"]]
    return rhs, lambda p: [p["x0"] / 100, 0.0], lambda p: p["t"], lambda s: {"x": s[0] * 100}


def _cooling(world):
    n = 1.0 if world == "original" else 1.25

    def rhs(t, s, p):
        return [-1.5 * 50.0 * ((s[0] - p["Ta"]) / 50.0) ** n / p["C"]]
    return rhs, lambda p: [p["T0"]], lambda p: p["t"], lambda s: {"T": s[0]}


def _decay(world):
    n = 1.0 if world == "original" else 1.5
    lam, n1 = 0.1 / 3600, 10e-6  # 1/s, mol

    def rhs(t, s, p):
        a = lam * n1 * (s[0] / n1) ** n
        return [-a, a - p["kd"] / 3600 * s[1]]
    return rhs, lambda p: [p["N0"] * 1e-6, 0.0], lambda p: p["t"] * 3600, lambda s: {"D": s[1] * 1e6}


def _projectile(world):
    n, c = (2.0, 0.005) if world == "original" else (1.0, 0.005 * 20.0)  # rebalanced at v = 20 m/s

    def rhs(t, s, p):
        x, y, vx, vy = s
        v = math.hypot(vx, vy)
        a = c * v ** n
        return [vx, vy, -a * vx / v, -9.81 - a * vy / v]
    th = lambda p: math.radians(p["theta"])  # noqa: E731
    return rhs, lambda p: [0.0, 0.0, p["v0"] * math.cos(th(p)), p["v0"] * math.sin(th(p))], \
        lambda p: p["t"], lambda s: {"x": s[0], "y": s[1]}


def _predator_prey(world):
    a, h = (0.02, 0.0) if world == "original" else (0.03, 0.5)
    per_day = 1 / DAY

    def rhs(t, s, p):
        H, P = s
        f = a * per_day * H * P / (1 + a * h * H)
        return [0.6 * per_day * H * (1 - H / 300) - f, 0.25 * f - 0.3 * per_day * P]
    return rhs, lambda p: [p["H0"], p["P0"]], lambda p: p["t"] * DAY, lambda s: {"H": s[0], "P": s[1]}


def _enzyme(world):
    n = 1.0 if world == "original" else 2.0
    km = 1.0  # mol/m^3 (1 mmol/L)

    def rhs(t, s, p):
        v = 2.0 * p["E"] * 1e-3 * s[0] ** n / (km ** n + s[0] ** n)  # E: umol/L = 1e-3 mol/m^3
        return [-v, v]
    return rhs, lambda p: [p["S0"], 0.0], lambda p: p["t"], lambda s: {"Pr": s[1]}


def _tank(world):
    n = 0.5 if world == "original" else 1.0  # rebalanced at d = 1 m: k is unchanged

    def rhs(t, s, p):
        return [-0.001 * s[0] ** n / p["A"]]
    return rhs, lambda p: [p["h0"]], lambda p: p["t"], lambda s: {"h": s[0]}


SYSTEMS_BY_CARD = {"two_body": _two_body, "damped_oscillator": _oscillator, "lumped_cooling": _cooling,
                   "decay_chain": _decay, "projectile_drag": _projectile, "predator_prey": _predator_prey,
                   "enzyme_progress": _enzyme, "tank_draining": _tank}


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    cache = tmp_path_factory.mktemp("systems")
    return {p.stem: scigame.load_card(p, cache_dir=cache) for p in sorted(SYSTEMS.glob("*.sci"))}


def test_every_bundled_system_card_has_an_independent_system(cards):
    assert set(cards) == set(SYSTEMS_BY_CARD)


def _points(card, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for s in card.data.inputs:
        d, u = s.domain, rng.random(n)
        out[s.name] = np.exp(np.log(d.lo) + u * np.log(d.hi / d.lo)) if d.kind == "log" else d.lo + u * (d.hi - d.lo)
    return out


#: The reference's rtol: scipy's floor (100 ulp, ~2.2e-14), not the issue's 1e-12. The reference must be
#: far more accurate than the 1e-3-of-tolerance it checks, and at 1e-12 it is not: two_body's
#: counterfactual plunge (M = 5.9e30 kg, r0 = 0.79 au, v0 = 6.7 km/s, t = 224 days; periapsis 7e-4 au at
#: 14000 km/s) has its energy as a small difference of large terms there, and solve_ivp at rtol 1e-12 is
#: 5.4e-3 of y's tolerance from the converged solution, 3.7e-3 even with atol 1e-16 of the scale (no atol
#: fixes it). At this rtol it is within 4e-5 of the solution it converges to, which a Sundman-regularised
#: DOP853 (dt = r ds) meets to 5e-6 of the tolerance and Radau at rtol 1e-13 to 1e-4.
REFERENCE_RTOL = 100 * np.finfo(float).eps


def _reference(system, world, point):
    rhs, initial, horizon, read = system(world)
    y0, T = np.array(initial(point), dtype=float), horizon(point)
    # each state's absolute tolerance: rtol of its size, or of how far its initial rate takes it
    scale = np.maximum(np.abs(y0), np.abs(np.array(rhs(0.0, y0, point))) * T)
    r = solve_ivp(lambda t, s: rhs(t, s, point), (0.0, T), y0, method="DOP853",
                  rtol=REFERENCE_RTOL, atol=np.maximum(REFERENCE_RTOL * scale, 1e-300))
    return read(r.y[:, -1]) if r.success else None


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SYSTEMS_BY_CARD))
@pytest.mark.parametrize("world", ["original", "counterfactual"])
def test_compiled_system_equals_solve_ivp(cards, name, world):
    card = cards[name]
    pts = _points(card, 200, seed=24)
    got = card.run_kernel(world, pts)
    tol = {o.name: (o.tol_abs, o.tol_rel) for o in card.data.outputs}
    compared = 0
    for i in range(200):
        point = {k: float(v[i]) for k, v in pts.items()}
        if not all(np.isfinite(got[o][i]) for o in got):
            continue  # refused as unintegrable (W410): checked below that this is rare
        want = _reference(SYSTEMS_BY_CARD[name], world, point)
        assert want is not None, f"solve_ivp failed where the kernel did not: {point}"
        for o, (a, rel) in tol.items():
            err = abs(got[o][i] - want[o]) / (a + rel * abs(want[o]))
            assert err <= 1e-3, f"{name} {world} {o} at {point}: {got[o][i]!r} vs {want[o]!r} ({err:.3g} of tol)"
        compared += 1
    assert compared >= 196


ORBIT_CARD = (SYSTEMS / "two_body.sci").read_text(encoding="utf-8").replace(
    'output y  [au] resolution 1e-6 tolerance abs 1e-4 rel 1%  "position across it"',
    'output y  [au] resolution 1e-6 tolerance abs 1e-4 rel 1%  "position across it"\n'
    '  output vx [km/s] tolerance abs 1e-3 rel 1%  "velocity along the initial line"\n'
    '  output vy [km/s] tolerance abs 1e-3 rel 1%  "velocity across it"').replace("card two_body", "card orbit")


def test_an_orbit_keeps_energy_and_angular_momentum_over_ten_orbits(tmp_path):
    path = tmp_path / "orbit.sci"
    path.write_text(ORBIT_CARD, encoding="utf-8")
    card = scigame.load_card(path, cache_dir=tmp_path / "cache")
    M, r0, v0 = 1e31, 0.5, 60.0  # a bound, eccentric orbit (29 days)
    mu, r, v = G * M, r0 * AU, v0 * 1e3
    energy0, momentum0 = v * v / 2 - mu / r, r * v
    a = -mu / (2 * energy0)
    period = 2 * math.pi * math.sqrt(a ** 3 / mu) / DAY
    assert 10 * period <= 720
    times = np.linspace(period, 10 * period, 10)
    out = card.simulate("original", {"M": np.full(10, M), "r0": np.full(10, r0), "v0": np.full(10, v0),
                                     "t": times}, exact=True)
    x, y, vx, vy = out["x"] * AU, out["y"] * AU, out["vx"] * 1e3, out["vy"] * 1e3
    energy = (vx ** 2 + vy ** 2) / 2 - mu / np.hypot(x, y)
    momentum = x * vy - y * vx
    assert np.max(np.abs(energy / energy0 - 1)) <= 1e-8
    assert np.max(np.abs(momentum / momentum0 - 1)) <= 1e-8


def test_the_linear_oscillator_matches_its_closed_form(cards):
    card = cards["damped_oscillator"]
    pts = _points(card, 200, seed=5)
    got = card.simulate("original", pts, exact=True)["x"]
    m, x0, t = pts["m"], pts["x0"], pts["t"]
    gamma = 0.8 / (2 * m)
    wd = np.sqrt(20.0 / m - gamma ** 2)
    closed = x0 * np.exp(-gamma * t) * (np.cos(wd * t) + gamma / wd * np.sin(wd * t))
    o = card.data.outputs[0]
    assert np.max(np.abs(got - closed) / (o.tol_abs + o.tol_rel * np.abs(closed))) <= 1e-3


def test_the_example_card_plays_and_scores_its_law(cards):
    card = cards["two_body"]
    obs = card.simulate("original", {"M": [2e30], "r0": [1.0], "v0": [29.78], "t": [365.25 / 4]})
    # a quarter of a (nearly circular) year: the probe is near (0, 1) au
    assert abs(obs["x"][0]) < 0.05 and abs(obs["y"][0] - 1) < 0.05
    truth = card.data.environments["original"].laws["a"]
    s = card.score({"a": truth}, "original")
    assert s.valid and s.weak and s.strict and s.ps == 1.0
    assert s.weak_system and s.ps_system > 0.999
    other = card.score({"a": card.data.environments["counterfactual"].laws["a"]}, "original")
    assert other.valid and not other.weak and not other.weak_system
    bad = card.score({"x": truth}, "original")
    assert not bad.valid


def test_a_system_that_cannot_be_integrated_is_a_rejected_observation(tmp_path):
    from scigame.oracle import Rejection
    # the tank empties at these inputs, where the outflow's square root of the depth has no value
    card = scigame.load_card(REPO / "tests" / "golden" / "bad" / "W410_unintegrable.sci", cache_dir=tmp_path)
    with pytest.raises(Rejection, match="cannot be integrated"):
        card.simulate("original", {"A": [0.5], "h0": [0.5], "t": [600.0]})
    assert card.simulate("original", {"A": [2.0], "h0": [2.0], "t": [10.0]})["h"][0] < 2.0


def test_llm_players_submit_the_law_in_its_arguments(cards):
    from scigame.llm.player import action_schema
    from scigame.llm.prompts import player_system
    task = cards["two_body"].public_view("original", "discovery")
    schema = action_schema(task)
    predictor = schema["properties"]["submission"]["anyOf"][1]["properties"]["predictor"]
    assert predictor["required"] == ["a"]
    assert "Submit the law" in player_system(task) and "Submit the law" not in player_system({})
    assert cards["two_body"].predictor_schema["required"] == ["a"]


def test_a_system_transcript_shows_trajectories():
    from types import SimpleNamespace as NS
    from scigame.system_transcript import system_lines, trajectory_lines
    task = {"system": {"time": "t", "law": {"name": "a", "arguments": [{"name": "M"}, {"name": "r"}], "unit": "m s^-2"},
                       "states": [{"name": "x", "unit": "au", "initial": "r0", "rate": "vx"}], "lets": []}}
    obs = [NS(inputs={"M": 2e30, "t": 20.0}, outputs={"x": 0.9}), NS(inputs={"M": 2e30, "t": 10.0}, outputs={"x": 0.97}),
           NS(inputs={"M": 1e30, "t": 5.0}, outputs={"x": 0.99})]
    lines = trajectory_lines(task, obs)
    assert lines == ["Trajectory from M=2e+30: t=10: x=0.97; t=20: x=0.9", "Trajectory from M=1e+30: t=5: x=0.99"]
    assert "the law a(M, r) [m s^-2] is hidden" in system_lines(task)[0]


@pytest.mark.slow
def test_eval_plays_a_system_card_in_every_setting_world_and_protocol(tmp_path):
    import sqlite3
    from click.testing import CliRunner
    from scigame.cli import main
    result = CliRunner().invoke(main, ["eval", str(SYSTEMS / "tank_draining.sci"), "--reps", "1", "--out",
                                       str(tmp_path / "run"), "--workers", "1"])
    assert result.exit_code == 0, result.output
    rows = sqlite3.connect(tmp_path / "run" / "episodes.sqlite").execute(
        "SELECT setting, environment, protocol, status, valid, ps_system FROM episodes").fetchall()
    assert {(s, e, p) for s, e, p, *_ in rows} == {(s, e, p) for s in ("identification", "discovery")
                                                   for e in ("original", "counterfactual")
                                                   for p in ("prior", "fixed", "adaptive")}
    assert all(status == "finished" for *_, status, _, _ in rows)
    assert all(ps is not None for *_, valid, ps in rows if valid)
    # the baseline reads the law from short-time experiments: Adaptive Discovery recovers it
    strict = sqlite3.connect(tmp_path / "run" / "episodes.sqlite").execute(
        "SELECT environment, strict_success FROM episodes WHERE setting='discovery' AND protocol='adaptive'").fetchall()
    assert all(s for _, s in strict), strict


@pytest.mark.parametrize("code", ["E800", "E801", "E802", "E803", "E804", "E805", "E806", "E807"])
def test_each_broken_system_rule_is_one_error_with_its_code(code):
    from scigame.compiler import check_source
    [path] = sorted((REPO / "tests" / "golden" / "bad").glob(f"{code}_*.sci"))
    errors = [d for d in check_source(path.read_text(encoding="utf-8"), str(path)).diagnostics if d.is_error]
    assert [d.code for d in errors] == [code]


def test_a_counterfactual_may_replace_the_law_of_named_arguments():
    from scigame.compiler import check_source
    text = (REPO / "tests" / "golden" / "bad" / "E800_rate_unit.sci").read_text(encoding="utf-8")
    text = text.replace("rate  h = -q(h)\n", "rate  h = -q(h) / A\n").replace(
        '{ set n = 1  rebalance k at d = 1 [m] }', '{ law q(d) = k * sqrt(1 [m]) * d / (0.5 [m] + d) }')
    result = check_source(text, "tank.sci")
    assert result.card is not None, [d.message for d in result.diagnostics]
    assert [m.kind for m in result.card.mutations] == ["law"]
    other = text.replace("{ law q(d) = k * sqrt(1 [m]) * d / (0.5 [m] + d) }", "{ law q(h0) = k * sqrt(h0) }")
    wrong = check_source(other, "tank.sci")  # another argument than the law's own
    assert "E806" in [d.code for d in wrong.diagnostics if d.is_error]


@pytest.mark.parametrize("card", ["cards/systems/tank_draining.sci", "cards/historical/gravitation.sci"])
def test_compile_warm_fills_the_caches_of_a_static_and_a_system_card(tmp_path, card):
    """`scigame compile --warm` (the real command) on a system card once died with an
    internal error: its worlds are drivers of one compiled model, not numba kernels."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NUMBA_CACHE_DIR": str(tmp_path / "nb")}
    run = subprocess.run([sys.executable, "-m", "scigame", "compile", str(REPO / card), "-o", str(tmp_path / "out"),
                          "--warm"], capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr
    assert "internal error" not in run.stderr + run.stdout
    indexes = [p.name for p in (tmp_path / "nb").rglob("*.nbi")]
    if "systems" in card:
        assert any(".model-" in n for n in indexes), indexes  # the card's own model, compiled and kept
        assert any("simrt_system.integrate-" in n for n in indexes), indexes  # and the shared integrator
    else:
        assert any("simulator.env_original-" in n for n in indexes), indexes
    # the same command again finds every cache filled: it builds nothing and imports no numba
    again = subprocess.run([sys.executable, "-X", "importtime", "-m", "scigame", "compile", str(REPO / card),
                            "-o", str(tmp_path / "out"), "--warm"], capture_output=True, text=True, env=env,
                           timeout=900)
    assert again.returncode == 0, again.stderr
    assert "0 built, 1 unchanged" in again.stdout
    assert not [line for line in again.stderr.splitlines() if line.rstrip().endswith(" numba")], again.stderr[-2000:]
