"""Law trees keep their constants exactly: π as a node, the degree factor
as π/180, folding only where the exact result is a decimal."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pint
import pytest
import sympy

import scigame
from scigame.compiler.trees import PI_TREE, exact_constant, simplify_tree
from scigame.symbolic import symbols_for, tree_to_sympy, Variable

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("value", "expected"), [
    (math.pi, (Fraction(1), 1)),
    (pint.UnitRegistry()("degree").to("radian").magnitude, (Fraction(1, 180), 1)),
    (2 * math.pi, (Fraction(2), 1)),
    (0.1 + 0.2, (Fraction(3, 10), 0)),
    (0.7 / 3600, (Fraction(7, 36000), 0)),
    (9.81, (Fraction(981, 100), 0)),
    (2.0060666807106475, (Fraction("2.0060666807106475"), 0)),  # 2π/√9.81: no short form, kept as printed
])
def test_exact_constant(value, expected):
    assert exact_constant(value) == expected


def test_folding_never_rounds():
    x = {"var": "x"}
    assert simplify_tree({"op": "mul", "args": [2.0, 9.81, x]}) == {"op": "mul", "args": [19.62, x]}
    # 2π stays 2·acos(-1), 1/3 stays a division: no float stands for them exactly
    assert simplify_tree({"op": "mul", "args": [2.0, PI_TREE, x]}) == {"op": "mul", "args": [2.0, PI_TREE, x]}
    assert simplify_tree({"op": "div", "args": [1.0, 3.0]}) == {"op": "div", "args": [1.0, 3.0]}


@pytest.mark.parametrize(("card", "output", "expected"), [
    ("malus.sci", "P", "0.9*P0*cos(pi*theta/180)**2"),
    ("pendulum.sci", "T", "2*pi*sqrt(L/(981/100))"),
    ("projectile.sci", "R", "v0**2*sin(pi*theta/90)/(981/100)"),
])
def test_bundled_law_trees_are_exact(card, output, expected, tmp_path):
    loaded = scigame.load_card(REPO / "cards/historical" / card, cache_dir=tmp_path)
    variables = [Variable(s.name, s.domain.lo, s.domain.hi) for s in loaded.data.inputs]
    symbols = symbols_for(variables)
    law = tree_to_sympy(loaded.data.environments["original"].laws[output], symbols, exact=True)
    want = sympy.sympify(expected, locals=symbols)
    assert sympy.simplify(law - want) == 0
    assert law.has(sympy.pi)
