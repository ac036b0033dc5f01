"""The Historical collection as a whole: size, coverage of fields, shapes of
cards (two outputs, constraints, discrete inputs), balance of mutation kinds,
and that every card lints clean, compiles and has a counterfactual that
differs from the original.

Everything is computed from the card files themselves; nothing here names a
particular card.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import scigame
from scigame.cli import main
from scigame.collection import MUTATION_KINDS, mutation_kind
from scigame.compiler import check_file

HISTORICAL = Path(__file__).resolve().parent.parent / "cards" / "historical"
CARDS = sorted(HISTORICAL.glob("*.sci"))

#: The fields the collection must spread over (at least five of them).
FIELDS = {"mechanics", "electromagnetism", "optics", "thermodynamics", "chemistry", "biology",
          "earth_science"}

#: Words that name each mutation kind in a card's counterfactual label or comments.
KIND_PHRASES = {
    "exponent or coefficient change": ("exponent", "coefficient", "power", "square", "cube"),
    "parameter scaling": ("scal",),
    "interaction term switched on": ("interaction", "switched on"),
    "replaced law": ("replac",),
}


@pytest.fixture(scope="module")
def checked():
    out = {}
    for p in CARDS:
        result = check_file(p)
        out[p] = result
    return out


def _cards(checked):
    return {p: r.card for p, r in checked.items()}


def test_collection_is_large_enough():
    assert len(CARDS) >= 24, f"only {len(CARDS)} cards in {HISTORICAL}"


@pytest.mark.parametrize("path", CARDS, ids=[p.stem for p in CARDS])
def test_card_lints_clean(path, checked):
    result = checked[path]
    problems = [f"{d.code} {d.message}" for d in result.diagnostics if d.severity.value in ("error", "warning")]
    assert not problems, problems
    card = result.card
    assert card is not None
    assert card.name == path.stem
    assert card.collection == "historical"


def test_lint_cli_reports_nothing_for_the_folder():
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(HISTORICAL)])
    assert result.exit_code == 0, result.output
    findings = json.loads(result.output)
    assert [f for f in findings if f["severity"] in ("error", "warning")] == []


@pytest.mark.parametrize("path", CARDS, ids=[p.stem for p in CARDS])
def test_card_shape_is_sensible(path, checked):
    card = checked[path].card
    assert 1 <= len(card.inputs) <= 3, "a card has one to three inputs"
    assert re.search(r"\b1[0-9]{3}\b", card.source), "the source names a year"
    for o in card.outputs:
        assert o.tol_abs > 0, o.name
        if o.resolution is not None:
            assert o.tol_abs >= o.resolution, f"{o.name}: tolerance below the instrument resolution"


def test_fields_cover_at_least_five_sciences(checked):
    fields = {c.field for c in _cards(checked).values()} & FIELDS
    assert len(fields) >= 5, sorted(fields)


def test_card_shapes_are_varied(checked):
    cards = _cards(checked).values()
    assert sum(len(c.outputs) == 2 for c in cards) >= 3, "at least three cards with two outputs"
    assert sum(len(c.constraints) > 0 for c in cards) >= 3, "at least three cards with a constraint"
    assert sum(any(i.kind in ("set", "integer") for i in c.inputs) for c in cards) >= 2, \
        "at least two cards with a discrete or integer input"


def test_every_mutation_kind_is_used_at_least_four_times(checked):
    counts = Counter()
    for card in _cards(checked).values():
        kind = mutation_kind(card)
        assert kind != "none", card.name
        for k in kind.split(" + "):
            counts[k] += 1
    for k in MUTATION_KINDS:
        assert counts[k] >= 4, (k, dict(counts))


@pytest.mark.parametrize("path", CARDS, ids=[p.stem for p in CARDS])
def test_card_names_its_mutation_kind(path, checked):
    card = checked[path].card
    comments = " ".join(re.findall(r"#([^\n]*)", path.read_text(encoding="utf-8")))
    text = (card.counterfactual_label + " " + comments).lower()
    for kind in mutation_kind(card).split(" + "):
        assert any(p in text for p in KIND_PHRASES[kind]), \
            f"neither the label nor a comment names the mutation kind {kind!r}"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("collection")
    return {p: scigame.load_card(p, cache_dir=cache) for p in CARDS}


@pytest.mark.parametrize("path", CARDS, ids=[p.stem for p in CARDS])
def test_card_compiles_and_counterfactual_differs(path, compiled):
    card = compiled[path]
    inputs = {k: np.asarray(v, dtype=float) for k, v in card.evaluation.inputs.items()}
    original = card.run_kernel("original", inputs)
    counterfactual = card.run_kernel("counterfactual", inputs)
    differs = False
    for o in card.data.outputs:
        a, b = np.asarray(original[o.name]), np.asarray(counterfactual[o.name])
        assert np.all(np.isfinite(a)) and np.all(np.isfinite(b)), o.name
        scaled = np.abs(a - b) / (o.tol_abs + o.tol_rel * np.abs(a))
        differs = differs or bool(np.max(scaled) > 1.0)
    assert differs, "the counterfactual simulator agrees with the original within tolerance"


def test_cards_command_lists_every_card():
    result = CliRunner().invoke(main, ["cards", "--format", "json", str(HISTORICAL)])
    assert result.exit_code == 0, result.output
    entries = json.loads(result.output)
    assert {Path(e["path"]).resolve() for e in entries} == {p.resolve() for p in CARDS}
    assert all(e["errors"] == 0 and e["mutation"] != "none" for e in entries)
    # and the default listing (bundled cards) includes them too
    result = CliRunner().invoke(main, ["cards", "--format", "json"])
    assert result.exit_code == 0, result.output
    names = {e["name"] for e in json.loads(result.output)}
    assert {p.stem for p in CARDS} <= names
