"""The shifted-law sets written by benchmarks/shifted/generate.py: the committed cards are
what the generator writes for its four seeds (dev2 and dev3 from the second and third tables
of laws), every card lints without an error or a warning, its two worlds stay within 10x of each other (`scigame worlds`, computed here from the two
simulators, not from the generator's own check), every mutation kind occurs, and the
counterfactual differs from the original as its label says for a hand-checked card."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import scigame
from scigame.cli import main

SHIFTED = Path(__file__).resolve().parent.parent / "benchmarks" / "shifted"


def _generator():
    spec = importlib.util.spec_from_file_location("shifted_generate", SHIFTED / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


SETS = [("DEV_SEED", "dev", "development set", "BASES"), ("HOLDOUT_SEED", "holdout", "held-out set", "BASES"),
        ("DEV2_SEED", "dev2", "second development set", "BASES2"),
        ("DEV3_SEED", "dev3", "third development set", "BASES3")]


@pytest.mark.parametrize("seed_name, folder, purpose, table", SETS)
def test_committed_cards_are_what_the_generator_writes(seed_name, folder, purpose, table, tmp_path):
    gen = _generator()
    names = gen.write(getattr(gen, seed_name), tmp_path, purpose, bases=getattr(gen, table))
    assert len(names) == gen.SIZE
    written = {p.name: p.read_text() for p in tmp_path.glob("*.sci")}
    committed = {p.name: p.read_text() for p in (SHIFTED / folder).glob("*.sci")}
    assert written == committed


def test_seeds_differ_and_every_kind_occurs():
    dev = {p.read_text().split("counterfactual", 1)[1] for p in (SHIFTED / "dev").glob("*.sci")}
    hold = {p.read_text().split("counterfactual", 1)[1] for p in (SHIFTED / "holdout").glob("*.sci")}
    assert len(dev & hold) < len(hold) / 4  # mostly different mutations or numbers
    for folder in ("dev", "dev2", "dev3"):
        kinds = {p.stem.rsplit("_", 2)[-2] for p in (SHIFTED / folder).glob("*.sci")}
        assert kinds == {"exponent", "sum", "power", "phase", "sign", "term", "scale"}, folder


def test_the_second_table_shares_no_law_with_the_first():
    gen = _generator()
    assert {b.name for b in gen.BASES}.isdisjoint(b.name for b in gen.BASES2)
    assert {b.law for b in gen.BASES}.isdisjoint(b.law for b in gen.BASES2)
    stems = {p.stem.rsplit("_", 2)[0] for p in (SHIFTED / "dev2").glob("*.sci")}
    assert stems <= {b.name for b in gen.BASES2} and len(stems) >= 20


def test_the_third_table_shares_no_law_with_the_first_two():
    gen = _generator()
    earlier = gen.BASES + gen.BASES2
    assert {b.name for b in earlier}.isdisjoint(b.name for b in gen.BASES3)
    assert {b.law for b in earlier}.isdisjoint(b.law for b in gen.BASES3)
    stems = {p.stem.rsplit("_", 2)[0] for p in (SHIFTED / "dev3").glob("*.sci")}
    assert stems <= {b.name for b in gen.BASES3} and len(stems) >= 15


def test_every_card_lints_clean_and_its_worlds_stay_within_10x():
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(SHIFTED)])
    assert result.exit_code == 0, result.output
    assert [f for f in json.loads(result.output) if f["severity"] != "note"] == []
    result = CliRunner().invoke(main, ["worlds", "--format", "json", str(SHIFTED)])
    rows = json.loads(result.output)
    assert len(rows) == 4 * 48
    for r in rows:
        assert 0.1 <= r["low"] and r["high"] <= 10, r


def test_a_shifted_law_is_the_mutated_textbook_law(tmp_path):
    """gravitation_sum_03: F = G·((m1 + m2)/2)^2.5/r² with G rebalanced so both worlds agree at
    the middle of the domain, against F = G·m1·m2/r² (numbers computed here by hand)."""
    card = scigame.load_card(SHIFTED / "dev" / "gravitation_sum_03.sci", cache_dir=tmp_path)
    x = {"m1": np.array([6.0, 9.0]), "m2": np.array([1.5, 2.5]), "r": np.array([0.3, 0.8])}
    G = 6.674e-11
    orig = G * x["m1"] * x["m2"] / x["r"] ** 2 * 1e9
    g_cf = G * 7.5 * 2 / ((7.5 + 2) / 2) ** 2.5
    cf = g_cf * ((x["m1"] + x["m2"]) / 2) ** 2.5 / x["r"] ** 2 * 1e9
    assert card.simulate("original", x, exact=True)["F"] == pytest.approx(orig, rel=1e-9)
    assert card.simulate("counterfactual", x, exact=True)["F"] == pytest.approx(cf, rel=1e-9)
    assert not math.isclose(cf[0], orig[0], rel_tol=0.05)
