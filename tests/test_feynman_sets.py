"""The two measurement sets of textbook laws written by benchmarks/feynman/generate.py:
the committed cards are what its tables produce, the held-out set shares no equation
with the development set, every card lints clean, and a few held-out laws give the
textbook's numbers at CODATA constants (scipy.constants, not the card's own code)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.constants as sc
from click.testing import CliRunner

import scigame
from scigame.cli import main

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
FEYNMAN, HOLDOUT = BENCH / "feynman", BENCH / "feynman_holdout"


def _generator():
    spec = importlib.util.spec_from_file_location("feynman_generate", FEYNMAN / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("table, folder", [("C", FEYNMAN), ("HOLDOUT", HOLDOUT)])
def test_committed_cards_are_what_the_table_writes(table, folder, tmp_path):
    gen = _generator()
    n = gen.write(getattr(gen, table), tmp_path, "measurement set" if table == "C" else "held-out measurement set")
    written = {p.name: p.read_text() for p in tmp_path.glob("*.sci")}
    committed = {p.name: p.read_text() for p in folder.glob("*.sci")}
    assert len(written) == n
    assert written == committed


def test_holdout_shares_no_equation_with_the_development_set():
    gen = _generator()
    dev_ids = {row[1] for row in gen.C}
    hold_ids = [row[1] for row in gen.HOLDOUT]
    assert 30 <= len(hold_ids) <= 40
    assert len(set(hold_ids)) == len(hold_ids)
    assert not dev_ids & set(hold_ids)
    assert not {row[0] for row in gen.C} & {row[0] for row in gen.HOLDOUT}


@pytest.mark.parametrize("folder", [HOLDOUT, FEYNMAN])
def test_every_card_lints_without_errors(folder):
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(folder)])
    assert result.exit_code == 0, result.output
    findings = json.loads(result.output)
    assert not [f for f in findings if f["severity"] == "error"]
    if folder == HOLDOUT:  # the held-out cards carry no warning either (notes are information)
        assert [f for f in findings if f["severity"] != "note"] == []


CODATA = dict(m=sc.m_e, q=sc.e, eps=sc.epsilon_0, h=sc.h)


@pytest.mark.parametrize("card, inputs, output, expected", [
    ("bohr_radius", CODATA, "r", sc.physical_constants["Bohr radius"][0]),
    ("hydrogen_levels", {**CODATA, "n": 1.0}, "E", -sc.physical_constants["Rydberg constant times hc in J"][0]),
    ("hydrogen_levels", {**CODATA, "n": 2.0}, "E", -sc.physical_constants["Rydberg constant times hc in J"][0] / 4),
])
def test_holdout_laws_give_codata_values(card, inputs, output, expected, tmp_path):
    c = scigame.load_card(HOLDOUT / f"{card}.sci", cache_dir=tmp_path)
    got = c.simulate("original", {k: np.array([v]) for k, v in inputs.items()}, exact=True)[output][0]
    assert got == pytest.approx(expected, rel=1e-8)


def test_planck_radiation_peaks_where_wien_says(tmp_path):
    """The maximum over ω of Planck's law sits at ω = 2π·b'·T (Wien's frequency displacement law)."""
    c = scigame.load_card(HOLDOUT / "planck_radiation.sci", cache_dir=tmp_path)
    T = 100.0
    omega = np.linspace(1e13, 5e13, 40001)
    const = {"h": sc.h, "kb": sc.k, "T": T, "c": sc.c}
    L = c.simulate("original", {"omega": omega, **{k: np.full_like(omega, v) for k, v in const.items()}},
                   exact=True)["L"]
    peak = 2 * np.pi * sc.physical_constants["Wien frequency displacement law constant"][0] * T
    assert omega[np.argmax(L)] == pytest.approx(peak, rel=1e-4)
