"""Generated simulators: safety against hostile cards, determinism, caching,
and a runtime that loads without pint or Lark."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import numpy as np
import pytest

import scigame
from scigame.compiler.build import compile_path

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = REPO / "cards" / "historical" / "gravitation.sci"

# Names that would shadow the generated code's own if they leaked through.
HOSTILE = '''# every name here is one the generated code also uses, or a Python builtin
card hostile "x\\" + __import__('os').system('touch PWNED') + \\"" {
  collection historical
  source """
    \\"\\"\\" ; import os; os.system('touch PWNED')  # \\"\\"\\"
  """
  background """line one
__import__('os').system('touch PWNED')"""
  conditions "); import os #"
  input i     [m]  in 1 .. 2     "\\"\\"\\"; import os"
  input x0    [cm] in 1 .. 2
  input range [s]  in 1 .. 2
  input math       in 1 .. 2
  output y0 [m/s] resolution 1e-9 tolerance abs 1e-9 rel 1%
  output v0       resolution 1e-9 tolerance abs 1e-9 rel 1%
  param njit  = 2
  param np    = 3 [1/s]
  let   l0    = i / range
  let   a0    = x0 * np * njit
  law y0 = l0 + a0 * math
  law v0 = exp(-math) * njit
  counterfactual "os.system('touch PWNED')" { scale njit by 1.2 }
}
'''

_ALLOWED_NAMES = {
    "from", "import", "scigame", "simrt", "njit", "math", "np", "step", "sign", "def", "for", "in",
    "range", "shape", "cache", "True", "error_model", "nogil", "CARD_SHA256", "N_INPUTS",
    "N_OUTPUTS", "env_original", "env_counterfactual", "i",
    "prange", "parallel", "env_original_parallel", "env_counterfactual_parallel",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "log",
    "log10", "sqrt", "cbrt", "abs", "min", "max",
    # array twins: numpy's names for the same functions
    "env_original_array", "env_counterfactual_array", "arcsin", "arccos", "arctan", "arctan2", "power",
    "where",
}


def _names_and_strings(source: str):
    names, strings = set(), []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME:
            names.add(tok.string)
        elif tok.type == tokenize.STRING:
            strings.append(tok.string)
    return names, strings


def test_hostile_card_cannot_inject_code(tmp_path):
    card_file = tmp_path / "hostile.sci"
    card_file.write_text(HOSTILE)
    result = compile_path(card_file, tmp_path / "out")
    assert result.status == "built", [d.message for d in result.diagnostics]
    source = (result.folder / "simulator.py").read_text()
    names, strings = _names_and_strings(source)
    mangled = {n for n in names if re.fullmatch(r"[xyalv]\d+", n)}
    assert names - mangled <= _ALLOWED_NAMES, names - mangled - _ALLOWED_NAMES
    # the only strings are the runtime's keyword value and the card hash
    assert all(s in ('"numpy"',) or re.fullmatch(r'"[0-9a-f]{64}"', s) for s in strings), strings
    for word in ("PWNED", "os.system", "__import__", "range [s]"):
        assert word not in source
    # the card's own names reach the code only as mangled variables: `range` is x2, not the builtin
    card = scigame.load_card(result.folder)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        out = card.simulate("original", {"i": 1.5, "x0": 1.2, "range": 1.25, "math": 1.1}, exact=True)
    finally:
        os.chdir(cwd)
    assert not (tmp_path / "PWNED").exists()
    assert out["y0"][0] == pytest.approx(1.5 / 1.25 + 0.012 * 3 * 2 * 1.1, rel=1e-12)
    assert out["v0"][0] == pytest.approx(np.exp(-1.1) * 2, rel=1e-12)
    view = card.public_view("original", "discovery")
    assert "__import__('os')" in view["background"]  # text stays data, shown verbatim


def test_generated_source_is_deterministic_and_maps_lines(tmp_path):
    a = compile_path(GRAVITATION, tmp_path / "a")
    b = compile_path(GRAVITATION, tmp_path / "b")
    sa = (a.folder / "simulator.py").read_text()
    assert sa == (b.folder / "simulator.py").read_text()
    manifest = json.loads((a.folder / "manifest.json").read_text())
    lines = sa.splitlines()
    card_lines = GRAVITATION.read_text().splitlines()
    law_line = next(i + 1 for i, t in enumerate(card_lines) if t.strip().startswith("law F"))
    assert any(cl == law_line for _, cl, _ in manifest["source_map"])
    for gen, card_line, col in manifest["source_map"]:
        assert lines[gen - 1].endswith(f"# sci:{card_line}:{col}")


def test_unchanged_card_is_not_rebuilt(tmp_path):
    card = tmp_path / "gravitation.sci"
    card.write_text(GRAVITATION.read_text())
    first = compile_path(card, tmp_path / "out")
    assert first.status == "built"
    sim = first.folder / "simulator.py"
    stamp = sim.stat().st_mtime_ns
    again = compile_path(card, tmp_path / "out")
    assert again.status == "unchanged" and sim.stat().st_mtime_ns == stamp
    card.write_text(GRAVITATION.read_text().replace("in 0.5 .. 20", "in 0.5 .. 25"))
    assert compile_path(card, tmp_path / "out").status == "built"


_CHILD = r'''
import sys, json
import numpy as np
import scigame
card = scigame.load_card(sys.argv[1])
out = card.simulate("counterfactual", {"m1": np.array([10.0]), "m2": np.array([20.0]), "r": np.array([2.0])})
numba = "numba" in sys.modules  # one point runs the kernel's Python code, on the same libm
k = card.kernel("counterfactual").dispatcher
y = np.empty(1)
k(np.array([10.0]), np.array([20.0]), np.array([2.0]), y)
exact = card.simulate("counterfactual", {"m1": np.array([10.0]), "m2": np.array([20.0]), "r": np.array([2.0])},
                     exact=True)
assert y[0] == exact["F"][0], (y, exact)
print(json.dumps({"F": float(out["F"][0]), "numba": numba, "hits": sum(k.stats.cache_hits.values()),
                  "misses": sum(k.stats.cache_misses.values()),
                  "pint": "pint" in sys.modules, "lark": "lark" in sys.modules}))
'''


def test_second_process_uses_numba_disk_cache_without_pint_or_lark(tmp_path):
    result = compile_path(GRAVITATION, tmp_path / "out")
    env = {**os.environ, "NUMBA_CACHE_DIR": ""}
    env.pop("NUMBA_CACHE_DIR")
    runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD, str(result.folder)], check=True,
                                      capture_output=True, text=True, env=env, timeout=300).stdout)
            for _ in range(2)]
    assert runs[0]["misses"] >= 1  # the first process compiles
    assert runs[1]["misses"] == 0 and runs[1]["hits"] >= 1  # the second loads from disk
    assert list((result.folder / "__pycache__").glob("*.nbi"))
    for run in runs:
        assert not run["pint"] and not run["lark"] and not run["numba"]
        # `rebalance G at r = 5 [m]`: G' = G * 5 m, so that G m1 m2 / r^2 = G' m1 m2 / r^3 at 5 m
        assert run["F"] == pytest.approx(6.674e-11 * 5 * 10 * 20 / 2 ** 3, rel=1e-9)


def test_public_views_hide_the_world(tmp_path):
    result = compile_path(GRAVITATION, tmp_path / "out")
    card = scigame.load_card(result.folder)
    for setting in ("identification", "discovery"):
        a = card.public_view("original", setting)
        b = card.public_view("counterfactual", setting)
        assert a == b  # nothing tells the player which world it is in
        text = json.dumps(a)
        for secret in ("gravitation", "Newton", "Principia", "inverse-cube", "evaluation"):
            assert secret not in text
    ident = card.public_view("original", "identification")
    assert set(ident["candidates"]) == {"F"}
    assert "r^2" in ident["candidates"]["F"]["text"] and "r^3" in ident["candidates"]["F"]["text"]
    schema = card.predictor_schema
    assert schema["required"] == ["F"]
    assert schema["$defs"]["var"]["properties"]["var"]["enum"] == ["m1", "m2", "r"]


def test_evaluation_set_respects_domains_and_constraints(tmp_path):
    from tests.test_oracle import PROBE
    path = tmp_path / "oracle_probe.sci"
    path.write_text(PROBE)
    card = scigame.load_card(path, cache_dir=tmp_path / "c")
    ev = {k: np.asarray(v) for k, v in card.evaluation.inputs.items()}
    assert len(ev["x"]) == 256
    assert ((ev["x"] >= 1) & (ev["x"] <= 10)).all()
    assert (ev["k"] == np.round(ev["k"])).all() and set(np.unique(ev["k"])) <= {1, 2, 3, 4, 5}
    assert set(np.unique(ev["c"])) <= {0.5, 1.0, 2.0}
    assert (ev["x"] * ev["k"] <= 20).all()
    # stored exact outputs are the simulator's
    sim = card.run_kernel("original", ev)
    np.testing.assert_array_equal(sim["y"], np.asarray(card.evaluation.outputs["original"]["y"]))
    design = json.loads((card.folder / "design.json").read_text())
    assert design["method"] == "sobol" and design["size"] == 4 and len(design["points"]) == 64
    assert all(p["x"] * p["k"] <= 20 for p in design["points"])


def test_failed_rebuild_retires_the_stale_build(tmp_path):
    card = tmp_path / "gravitation.sci"
    card.write_text(GRAVITATION.read_text())
    built = compile_path(card, tmp_path / "out")
    assert built.status == "built"
    card.write_text(GRAVITATION.read_text().replace("set n = 3", "set n = 2.00000001"))  # E701
    failed = compile_path(card, tmp_path / "out")
    assert failed.status == "failed" and any(d.code == "E701" for d in failed.diagnostics)
    with pytest.raises(scigame.CardError, match="not a compiled card"):
        scigame.load_card(built.folder)


def test_other_format_version_asks_for_a_recompile(tmp_path):
    built = compile_path(GRAVITATION, tmp_path / "out")
    manifest = built.folder / "manifest.json"
    data = json.loads(manifest.read_text())
    data["format_version"] = 1
    manifest.write_text(json.dumps(data))
    with pytest.raises(scigame.CardError, match="compile the card again"):
        scigame.load_card(built.folder)


def test_compiled_files_are_readable_by_others(tmp_path):
    built = compile_path(GRAVITATION, tmp_path / "out")
    mode = (built.folder / "card.json").stat().st_mode & 0o777
    assert mode & 0o044 == 0o044 & ~_umask()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
