"""What later processes reuse: units pint resolved before, Lark's parse
tables. Each test runs fresh interpreters with a private cache folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CARD = REPO / "cards/historical/stefan_boltzmann.sci"

CHECK = """
import json, sys
from scigame.compiler import check_file
result = check_file(sys.argv[1])
card = result.card
print(json.dumps({"ok": result.ok, "pint": "pint" in sys.modules,
                  "factors": [[s.name, s.unit.si_factor, str(s.unit.dim)] for s in card.inputs + card.outputs]}))
"""


def check_in_fresh_process(cache: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    out = subprocess.run([sys.executable, "-c", CHECK, str(CARD)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_a_second_check_needs_no_pint_and_gives_the_same_units(tmp_path):
    first = check_in_fresh_process(tmp_path)
    assert first["ok"] and first["pint"]
    assert list((tmp_path / "scigame").glob("units-pint-*.json"))
    assert list((tmp_path / "scigame").glob("sci-parser-*.lark-cache"))
    second = check_in_fresh_process(tmp_path)
    assert second["ok"] and not second["pint"]
    assert second["factors"] == first["factors"]


def test_cached_units_are_pints_own_answers(tmp_path):
    check_in_fresh_process(tmp_path)
    cached = json.loads(next((tmp_path / "scigame").glob("units-pint-*.json")).read_text())
    import pint
    ureg = pint.UnitRegistry()
    assert cached
    for text, (dim, factor) in cached.items():
        q = ureg.Quantity(1.0, ureg.parse_units(text))
        assert factor == float(q.to_base_units().magnitude), text
        assert {k: float(Fraction(v)) for k, v in dim} == {k: float(v) for k, v in q.dimensionality.items()}


def test_a_damaged_cache_is_ignored(tmp_path):
    check_in_fresh_process(tmp_path)
    for f in (tmp_path / "scigame").glob("units-pint-*.json"):
        f.write_text('{"W": "not an entry", "K": [[["[temperature]", "x"]], 1.0]')  # cut off, too
    again = check_in_fresh_process(tmp_path)
    assert again["ok"] and again["pint"]
    fresh = check_in_fresh_process(tmp_path)  # rewritten whole by the run before
    assert not fresh["pint"] and fresh["factors"] == again["factors"]


def test_no_writable_cache_folder_still_checks(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache folder would be made
    result = check_in_fresh_process(blocked)
    assert result["ok"] and result["pint"]
