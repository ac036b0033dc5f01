"""What a build depends on: the fingerprint covers the simulator runtime (a
change to it rebuilds cached cards), and a failure inside a generated kernel
points back at its card line through the manifest's source map."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import scigame.simrt
from scigame.compiler import build
from scigame.compiler.build import compile_path

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = REPO / "cards" / "historical" / "gravitation.sci"


@pytest.fixture
def fresh_version():
    build._compiler_version.cache_clear()
    yield
    build._compiler_version.cache_clear()


def test_the_fingerprint_reads_the_runtime_and_grammar_python_imports():
    files = [f.resolve() for f in build.fingerprinted_files()]
    assert Path(scigame.simrt.__file__).resolve() in files
    assert (REPO / "grammar" / "sci.lark").resolve() in files
    assert (REPO / "compiler" / "emit.py").resolve() in files
    assert all(f.exists() for f in files)


def test_editing_the_simulator_runtime_forces_a_rebuild(tmp_path, monkeypatch, fresh_version):
    runtime = Path(scigame.simrt.__file__).resolve()
    copy = tmp_path / "simrt.py"
    copy.write_text(runtime.read_text())
    others = [f for f in build.fingerprinted_files() if f.resolve() != runtime]
    monkeypatch.setattr(build, "fingerprinted_files", lambda: others + [copy])
    card = tmp_path / "gravitation.sci"
    card.write_text(GRAVITATION.read_text())
    assert compile_path(card, tmp_path / "out").status == "built"
    assert compile_path(card, tmp_path / "out").status == "unchanged"
    copy.write_text(copy.read_text() + "\n# an edit of the runtime\n")
    build._compiler_version.cache_clear()
    assert compile_path(card, tmp_path / "out").status == "built"
    assert compile_path(card, tmp_path / "out").status == "unchanged"


LOG_CARD = '''card logcard "a logarithm" {
  collection historical
  source "A. Author, Journal 1, 1 (1900)"
  background "x goes in, y comes out"
  input x in 1 .. 2
  output y tolerance abs 0.01 rel 1%
  param k = 2
  law y = k * log(x)
  counterfactual "steeper" { scale k by 1.5 }
}
'''

_CHILD = r'''
import json, sys
import numpy as np
from scigame.card import CompiledCard
card = CompiledCard(sys.argv[1])
try:
    card.run_kernel("original", {"x": np.array([0.0])})
except ValueError as exc:
    print(json.dumps(getattr(exc, "__notes__", [])))
'''


def test_a_failing_kernel_points_at_the_card_line(tmp_path):
    card = tmp_path / "logcard.sci"
    card.write_text(LOG_CARD)
    result = compile_path(card, tmp_path / "out")
    assert result.status == "built"
    # as plain Python (NUMBA_DISABLE_JIT=1), math.log(0.0) raises inside the generated kernel
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(result.folder)], env=env, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    notes = json.loads(out)
    line = next(i + 1 for i, t in enumerate(LOG_CARD.splitlines()) if t.strip().startswith("law y"))
    column = LOG_CARD.splitlines()[line - 1].index("log(") + 1
    assert notes, "the error carries no note"
    assert notes[-1].startswith(f"{card}:{line}:{column}: line ")
    generated = int(notes[-1].split(" line ")[1].split()[0])
    text = (result.folder / "simulator.py").read_text().splitlines()[generated - 1]
    assert "math.log(" in text and text.endswith(f"# sci:{line}:{column}")


_UNCHANGED = r'''
import json, sys
from scigame.compiler.build import compile_path
result = compile_path(sys.argv[1], sys.argv[2])
print(json.dumps({"status": result.status, **{m: m in sys.modules for m in ("numpy", "lark", "pint", "numba")}}))
'''


def test_the_fingerprint_of_an_unchanged_card_imports_no_numeric_stack(tmp_path):
    card = tmp_path / "gravitation.sci"
    card.write_text(GRAVITATION.read_text())
    assert compile_path(card, tmp_path / "out").status == "built"
    out = subprocess.run([sys.executable, "-c", _UNCHANGED, str(card), str(tmp_path / "out")], check=True,
                         capture_output=True, text=True, timeout=300).stdout
    assert json.loads(out) == {"status": "unchanged", "numpy": False, "lark": False, "pint": False,
                               "numba": False}
