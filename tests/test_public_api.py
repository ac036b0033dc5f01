"""`scigame` exports what a player or a script needs, lazily; the examples
import nothing else."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import scigame

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", [n for n in scigame.__all__ if n != "__version__"])
def test_every_exported_name_is_the_defining_modules_own(name):
    value = getattr(scigame, name)
    module = importlib.import_module(scigame._EXPORTS[name])
    assert value is getattr(module, name)
    assert name in dir(scigame)


def test_a_player_and_a_run_need_only_scigame():
    for name in ("Player", "EpisodeState", "Action", "Hypothesis", "Experiment", "Submission", "Usage",
                 "PlayerFault", "PlayerGaveUp", "EvalConfig", "run_eval", "Store", "summarize", "load_card",
                 "check_file", "render", "evaluate_predictor", "PredictorInvalid"):
        assert name in scigame.__all__, name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        scigame.nope  # noqa: B018


def test_import_scigame_loads_no_heavy_module():
    code = ("import sys, scigame; heavy = [m for m in ('numpy', 'sympy', 'numba', 'pydantic', 'click', "
            "'scigame.records') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_examples_import_only_from_scigame():
    for path in sorted((REPO / "examples").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scigame"):
                assert node.module == "scigame", f"{path.name}:{node.lineno}: from {node.module} import ..."
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("scigame.") or alias.name == "scigame.cli", \
                        f"{path.name}:{node.lineno}: import {alias.name}"
