"""Regression tests for the findings of issue 13 (hostile inputs), one or
more per finding, named after it; plus a hypothesis property: every card
lint accepts compiles, loads, simulates and scores. The long-running probes
(time and peak memory per process) are in benchmarks/fuzz.py."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scigame.card import CardError, CompiledCard, load_card
from scigame.cli import main
from scigame.compiler import check_source, render
from scigame.compiler.build import build_card, compile_path
from scigame.compiler.limits import MAX_DEPTH, MAX_OPERATIONS
from scigame.compiler.source import SourceText
from scigame.compiler.trees import FoldError, simplify_tree
from scigame.compiler.units import UnitError, resolve_unit
from scigame.oracle import Rejection
from scigame.runlock import hold_run_lock

CARD = '''card probe "a probe" {{
  collection historical
  field physics
  source "a probe"
  background "a probe"
  input  L [m] in {lo} .. {hi} "length"
  output T [s] resolution 0.001 tolerance abs 0.002 rel 0.5% "period"
  param g = 9.81 [m/s^2] "gravity"
{extra}  {law}
  counterfactual "weaker gravity" {{
    scale g by 0.8
  }}
  fixed design {design}
  evaluation 64 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 8
}}
'''


def card(law="law T = 2 * pi * sqrt(L / g)", extra="", design="4 sobol seed 1", lo="0.2", hi="2.0",
         title="a probe") -> str:
    return CARD.format(law=law, extra=extra, design=design, lo=lo, hi=hi).replace('"a probe" {', f'"{title}" {{', 1)


def codes(text: str) -> list[str]:
    return [d.code for d in check_source(text, "probe.sci").errors]


def run(args, code):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result.output


# ---- 1. bounded work in lint ------------------------------------------------------

@pytest.mark.parametrize("unit", ["m^9^9^9", "m^2^2^2^2^2^2^2", "m**2**2", "m^99999999999", "m^(2^3)",
                                  "m*" * 200 + "m", "(" * 10 + "m" + ")" * 10])
def test_finding1_unit_bounds_are_checked_before_pint(unit):
    start = time.process_time()
    with pytest.raises(UnitError):
        resolve_unit(unit)
    assert time.process_time() - start < 1.0
    assert codes(card().replace("[m] in", f"[{unit}] in")) == ["E400"]


@pytest.mark.parametrize("unit,exponent", [("m^(1/3)", "1/3"), ("m^-2", "-2"), ("m**100", "100")])
def test_finding1_ordinary_exponents_still_resolve(unit, exponent):
    from fractions import Fraction
    assert resolve_unit(unit).dim.as_dict() == {"[length]": Fraction(exponent)}


def test_finding1_rendering_diagnostics_is_linear():
    def cost(n):
        result = check_source(card(extra="  law x = 1\n" * n), "probe.sci")
        start = time.process_time()
        for d in result.diagnostics:
            render(d, result.source)
        return time.process_time() - start, len(result.diagnostics)
    small, n_small = cost(500)
    large, n_large = cost(5000)
    assert n_large >= 10 * (n_small - 1)
    assert large < 30 * max(small, 1e-3)  # quadratic rendering would be ~100x


def test_finding1_source_lines_split_once():
    source = SourceText("x", "a\nb\r\nc")
    assert [source.line(i) for i in range(1, 5)] == ["a", "b", "c", ""]
    assert source._lines is source._lines


def _peak_mb(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", code + "\nimport resource;"
                          "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                         capture_output=True, text=True, check=True).stdout.split()[-1]
    return int(out) / 1024


@pytest.mark.parametrize("title", ['"t" * 4_000_000', r'"\\\"" * 2_000_000'])
def test_finding1_long_strings_take_memory_proportional_to_the_text(title):
    setup = ("import sys; sys.path.insert(0, %r); from test_hardening import card;"
             "from scigame.compiler import check_source; import scigame.compiler.units, numpy\n" % str(Path(__file__).parent))
    base = _peak_mb(setup)
    peak = _peak_mb(setup + f"r = check_source(card(title={title}), 'probe.sci'); assert r.ok, r.diagnostics")
    assert peak - base < 150, (base, peak)  # 4 MB of text; before the fix ~200 bytes per character


def test_finding1_many_escapes_are_reported_boundedly():
    result = check_source(card(title="\\q" * 1000), "probe.sci")
    assert [d.code for d in result.errors] == ["E101"] * 10
    assert "990 more" in " ".join(result.errors[-1].hints)


def test_finding1_huge_card_is_refused_quickly():
    start = time.process_time()
    assert codes(card(extra="  law x = 1\n" * 20_000)) == ["E104"]
    assert time.process_time() - start < 5.0


# ---- 2. anything lint accepts compiles --------------------------------------------

def _compiles_and_plays(text: str, tmp: Path) -> None:
    result = check_source(text, "probe.sci")
    assert result.ok, [(d.code, d.message) for d in result.errors]
    _, folder = build_card(result.card, tmp)
    compiled = CompiledCard(folder)
    for env in ("original", "counterfactual"):
        assert np.isfinite(compiled.simulate(env, {"L": [1.0]})["T"]).all()
    assert compiled.score({"T": 1.0}, "original").valid


def test_finding2_negation_chain_within_the_limit_compiles(tmp_path):
    _compiles_and_plays(card(law="law T = " + "- " * (MAX_DEPTH - 2) + "sqrt(L / g)"), tmp_path)


def test_finding2_negation_chain_beyond_the_limit_is_E104_not_a_crash():
    assert codes(card(law="law T = " + "- " * 400 + "sqrt(L / g)")) == ["E104"]


def test_finding2_flat_sum_is_one_level(tmp_path):
    terms = (MAX_OPERATIONS - 10) // 2
    _compiles_and_plays(card(law="law T = sqrt(L / g) * (" + " + ".join(["L / (1 [m])"] * terms) + ") / %d" % terms),
                        tmp_path)


def test_finding2_a_huge_flat_sum_is_too_large_not_too_deep():
    result = check_source(card(law="law T = sqrt(L / g) * (" + " + ".join(["L / (1 [m])"] * 2000) + ")"), "p.sci")
    assert [d.code for d in result.errors] == ["E104"]
    assert "operations" in result.errors[0].message and "deep" not in result.errors[0].message


def test_finding2_lets_that_nest_too_deep_once_inlined_are_E104():
    lets = "  let a0 = sqrt(L / g)\n" + "".join(f"  let a{i} = - a{i - 1}\n" for i in range(1, MAX_DEPTH + 5))
    assert codes(card(extra=lets, law=f"law T = a{MAX_DEPTH + 4}")) == ["E104"]


_EXPR = st.recursive(
    st.sampled_from(["sqrt(L / g)", "L / (1 [m/s])", "(2 [s])"]),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: f"({t[0]} + {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]} - {t[1]})"),
        st.tuples(inner, st.integers(1, 9)).map(lambda t: f"{t[0]} * {t[1]}"),
        st.tuples(inner, st.integers(1, 9)).map(lambda t: f"{t[0]} / {t[1]}"),
        inner.map(lambda e: f"abs(- {e})"),
        st.tuples(inner, st.integers(1, 400)).map(lambda t: " + ".join([t[0]] * t[1])),
        st.tuples(inner, st.integers(1, 80)).map(lambda t: "abs(" * t[1] + t[0] + ")" * t[1]),
    ), max_leaves=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_EXPR)
def test_finding2_property_anything_lint_accepts_compiles(tmp_path, expr):
    text = card(law=f"law T = abs({expr}) + sqrt(L / g)")
    result = check_source(text, "probe.sci")
    if not result.ok:
        assert {d.code for d in result.errors} <= {"E104", "E701"}, [(d.code, d.message) for d in result.errors]
        return
    _compiles_and_plays(text, tmp_path / str(abs(hash(expr))))


# ---- 3. folding never gives inf silently ------------------------------------------

def test_finding3_fold_overflow_raises():
    with pytest.raises(FoldError):
        simplify_tree({"op": "mul", "args": [1e200, {"op": "mul", "args": [{"var": "x"}, 1e200]}]})


def test_finding3_fold_overflow_is_E703_at_the_law():
    text = card(law="law T = sqrt(L / g) * 1e200 * (L * 1e200) / (1 [m])", lo="1e-300", hi="2e-300")
    assert codes(text) == ["E703"]


# ---- 4. non-finite numbers -------------------------------------------------------

def test_finding4_design_point_where_the_law_is_undefined_is_E700_naming_it():
    result = check_source(card(law="law T = sqrt(L / g) * (L - 1 [m]) / (L - 1 [m])",
                               design="{ L = 1 ; L = 2 }"), "probe.sci")
    assert [d.code for d in result.errors] == ["E700"]
    assert "L=1" in result.errors[0].message


def test_finding4_a_non_finite_observation_is_rejected(tmp_path):
    text = card(law="law T = sqrt(L / g) * (1 [m]) / (L - 1.23456789 [m])")
    result = check_source(text, "probe.sci")
    assert result.ok
    compiled = CompiledCard(build_card(result.card, tmp_path)[1])
    with pytest.raises(Rejection, match="not a finite number"):
        compiled.simulate("original", {"L": [1.23456789]})
    (tmp_path / "p.sci").write_text(text)
    out = CliRunner().invoke(main, ["simulate", str(tmp_path / "probe"), "L=1.23456789", "--env", "original"])
    assert out.exit_code == 1 and "NaN" not in out.output and "Infinity" not in out.output


# ---- 5. the build cache is content-addressed -------------------------------------

@pytest.fixture()
def built(tmp_path):
    (tmp_path / "probe.sci").write_text(card())
    run(["compile", tmp_path / "probe.sci", "-o", tmp_path / "out"], 0)
    return tmp_path


def test_finding5_tampered_simulator_is_never_run(built):
    sim = built / "out" / "probe" / "simulator.py"
    sim.write_text(sim.read_text() + "\nraise SystemExit('INJECTED')\n")
    with pytest.raises(CardError, match="simulator.py changed"):
        CompiledCard(built / "out" / "probe")
    out = run(["compile", built / "probe.sci", "-o", built / "out"], 0)
    assert "rebuilt" in out and "INJECTED" not in sim.read_text()


def test_finding5_edited_evaluation_is_rebuilt_not_trusted(built):
    path = built / "out" / "probe" / "evaluation.json"
    data = json.loads(path.read_text())
    data["outputs"]["original"]["T"] = [0.0] * len(data["outputs"]["original"]["T"])
    path.write_text(json.dumps(data))
    (built / "zero.json").write_text('{"T": 0}')
    out = CliRunner().invoke(main, ["score", str(built / "out" / "probe"), str(built / "zero.json"), "--env", "original"])
    assert out.exit_code == 1 and "evaluation.json changed" in out.output
    assert compile_path(built / "probe.sci", built / "out").status == "rebuilt"
    assert CompiledCard(built / "out" / "probe").score({"T": 0}, "original").ps < 0.5


def test_finding5_same_named_cards_are_an_error_naming_both(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "probe.sci").write_text(card())
    (tmp_path / "b" / "probe.sci").write_text(card(law="law T = 3 * sqrt(L / g)"))
    out = CliRunner().invoke(main, ["compile", str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(tmp_path / "out")])
    assert out.exit_code == 1
    assert str(tmp_path / "a" / "probe.sci") in out.output and str(tmp_path / "b" / "probe.sci") in out.output
    assert CompiledCard(tmp_path / "out" / "probe").data.source_path == str(tmp_path / "a" / "probe.sci")


def test_finding5_card_cache_is_keyed_by_content(tmp_path):
    path = tmp_path / "probe.sci"
    path.write_text(card())
    first = load_card(path, cache_dir=tmp_path / "cache")
    path.write_text(card(law="law T = 3 * sqrt(L / g)"))
    second = load_card(path, cache_dir=tmp_path / "cache")
    from scigame.compiler.source import content_hash
    assert second.folder.parent.name == content_hash(path.read_text())[:12]
    assert first.folder != second.folder and first.folder.exists()


def test_finding5_an_unchanged_card_is_not_rechecked(built, monkeypatch):
    import scigame.compiler.front as front
    monkeypatch.setattr(front, "check_source", lambda *a, **k: pytest.fail("re-checked"))
    assert compile_path(built / "probe.sci", built / "out").status == "unchanged"


# ---- 6. OS, database and option errors -------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "１"])
def test_finding6_score_timeout_is_validated(built, value):
    (built / "one.json").write_text('{"T": 1}')
    out = run(["score", built / "probe.sci", built / "one.json", "--env", "original", "--timeout", value], 2)
    assert "--timeout" in out


@pytest.mark.parametrize("option,value", [("--budget", "99999999999999999999"), ("--budget", "0"),
                                          ("--max-cost", "nan"), ("--max-cost", "-1"), ("--timeout", "inf"),
                                          ("--temperature", "nan")])
def test_finding6_eval_options_are_validated_before_any_work(built, option, value):
    out = run(["eval", built / "probe.sci", "--out", built / "run", option, value], 2)
    assert option in out and not (built / "run").exists()


@pytest.mark.parametrize("value", ["１", "1_0", "nan", "inf", "0x1", " "])
def test_finding6_simulate_numbers_are_ascii_decimals(built, value):
    out = run(["simulate", built / "probe.sci", f"L={value}", "--env", "original"], 2)
    assert "L:" in out


def test_finding6_output_folders_are_checked(built):
    assert "-o" in run(["compile", built / "probe.sci", "-o", "/dev/null"], 2)
    run(["eval", built / "probe.sci", "--out", built / "run", "--quiet", "--reps", "1", "--protocol", "prior",
         "--setting", "identification"], 0)
    assert "--plots" in run(["report", built / "run", "--plots", "/proc/nope"], 2)


def test_finding6_empty_path_is_refused():
    assert "empty path" in run(["lint", ""], 2)


def test_finding6_unreadable_card_does_not_stop_the_folder(tmp_path):
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "probe.sci").write_text(card())
    os.symlink(tmp_path / "nowhere.sci", tmp_path / "cards" / "dangling.sci")
    os.mkfifo(tmp_path / "cards" / "fifo.sci")
    out = run(["lint", tmp_path / "cards"], 1)
    assert "dangling.sci" in out and "fifo.sci" in out and "checked 3 cards: 2 errors" in out
    out = run(["compile", tmp_path / "cards", "-o", tmp_path / "out"], 1)
    assert "1 built" in out and "dangling.sci" in out


@pytest.mark.parametrize("content", [b"", b"this is not sqlite" * 100])
def test_finding6_damaged_store_is_a_clear_message(tmp_path, content):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "episodes.sqlite").write_bytes(content)
    out = run(["report", tmp_path / "run"], 2)
    assert "episodes.sqlite" in out and len(out.strip().splitlines()) == 1


def _open_store_at_once(folder, barrier, errors):
    from scigame.store import Store
    barrier.wait()
    for _ in range(20):  # a reader's look at a folder a run is starting in
        try:
            with Store(folder) as store:
                store.count()
        except Exception as exc:  # noqa: BLE001 (the test reports whatever it was)
            errors.put(f"{type(exc).__name__}: {exc}")
            return


def test_a_store_is_never_seen_half_made(tmp_path):
    """Processes opening one new run folder at the same moment (a run
    starting, a report, a second run): each finds the store whole or makes
    it; none finds the 0-byte file a plain sqlite3.connect leaves between
    creating the file and writing it, and nothing of the making is left."""
    import multiprocessing
    import queue
    ctx = multiprocessing.get_context("spawn")
    for attempt in range(2):
        folder = tmp_path / f"run{attempt}"
        folder.mkdir()
        barrier, errors = ctx.Barrier(6), ctx.Queue()
        procs = [ctx.Process(target=_open_store_at_once, args=(folder, barrier, errors)) for _ in range(6)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=60)
        found = []
        while True:
            try:
                found.append(errors.get(timeout=0.1))
            except queue.Empty:
                break
        assert not found, found
        assert all(p.exitcode == 0 for p in procs)
        left = sorted(p.name for p in folder.iterdir())
        assert left == ["episodes.sqlite"], left


# ---- 7. one eval per run folder --------------------------------------------------

def test_finding7_second_eval_on_a_folder_says_who_holds_it(built):
    (built / "run").mkdir()
    with hold_run_lock(built / "run"):
        out = run(["eval", built / "probe.sci", "--out", built / "run", "--quiet"], 2)
    assert f"pid {os.getpid()}" in out
    assert not (built / "run" / "episodes.sqlite").exists()


# ---- 8. one mistake, one error ---------------------------------------------------

def test_finding8_one_mistake_in_a_sum_is_reported_once():
    text = card(law="law T = sqrt(L / g) * (L^2 + L + L)")
    assert codes(text) == ["E402"]
