"""Graded form credit: 1 - normalised Zhang–Shasha distance to the law,
checked against edit distances counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scigame
from scigame.form_credit import form_credit
from scigame.summary import summarize
from scigame.symbolic import Variable
from scigame.testing.strict_forms import infix_tree

L = [Variable("L", 0.2, 2.0)]
# The law's tree in canonical form: Mul(constant, Pow(L, 1/2)), 5 nodes.
PENDULUM = infix_tree("2*3.141592653589793*sqrt(L/9.81)")


@pytest.mark.parametrize(("candidate", "edits"), [
    ("2.006*sqrt(L)", 0),               # same form, constant rounded
    ("sqrt(L)*6.283185307179586/sqrt(9.81)", 0),  # same form, constant written apart
    ("2.006*L^0.52", 1),                # exponent 1/2 relabelled to a constant
    ("2*L", 3),                         # 2 -> constant; insert Pow and 1/2
    ("L+1", 4),                         # Add -> Mul, 1 -> constant; insert Pow and 1/2
])
def test_credit_is_one_minus_edits_over_law_size(candidate, edits):
    assert form_credit(infix_tree(candidate), PENDULUM, L) == pytest.approx(1 - edits / 5)


def test_credit_never_negative():
    big = infix_tree("+".join(f"{k}*L^{k}" for k in range(1, 9)))
    assert form_credit(big, PENDULUM, L) == 0.0


def test_score_record_and_summary_carry_form_credit(tmp_path):
    card = scigame.load_card(Path(__file__).resolve().parent.parent / "cards/historical/pendulum.sci",
                             cache_dir=tmp_path)
    law = card.score({"T": infix_tree("2.006*sqrt(L)")}, "original")
    near = card.score({"T": infix_tree("2.006*L^0.52")}, "original")
    invalid = card.score({"T": infix_tree("sqrt(L, 2)")}, "original")
    assert law.strict is True and law.form_credit == 1.0 and law.outputs["T"].form_credit == 1.0
    assert near.strict is False and near.form_credit == pytest.approx(0.8)
    assert invalid.valid is False and invalid.form_credit == 0.0
    rows = [{"player": "p", "collection": "historical", "setting": "discovery", "environment": "original",
             "protocol": "adaptive", "budget": 8, "status": "finished", "strict_success": s.strict,
             "weak_success": s.weak, "ps": s.ps, "valid": s.valid, "submitted": True, "protocol_ok": True,
             "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "card_hash": "h", "card": "pendulum",
             "repetition": i, "record": json.dumps({"outcome": {"form_credit": s.form_credit}})}
            for i, s in enumerate((law, near, invalid))]
    (group,) = summarize(rows)
    assert group["mean_form_credit"] == pytest.approx((1.0 + 0.8 + 0.0) / 3)


def test_edit_distance_is_zss_on_laws_and_random_forms():
    """form_credit's own Zhang–Shasha (without zss's list of operations)
    against zss.simple_distance itself, on every pair of a set of laws and
    candidate forms: the same distance."""
    import random

    import sympy
    import zss

    from scigame.form_credit import _children, _cost, _label, _once, edit_distance
    x, y, z = sympy.symbols("x y z", positive=True)
    forms = [sympy.sqrt(x / 9.81) * 2 * sympy.pi, x + 1, 3 * x ** 2 * y / z, sympy.exp(-x / y) * z,
             sympy.log(x + y) - z ** sympy.Rational(1, 3), sympy.sin(x) * sympy.cos(y) + z, x]
    rng = random.Random(3)
    atoms = [x, y, z, sympy.Float(2.5), sympy.Integer(2), sympy.Rational(1, 2)]
    for _ in range(25):  # random forms of a few ops
        e = rng.choice(atoms)
        for _ in range(rng.randint(1, 7)):
            f = rng.choice([sympy.Add, sympy.Mul, sympy.Pow, lambda a, b: sympy.exp(a) + b,
                            lambda a, b: sympy.log(a) * b])
            e = f(e, rng.choice(atoms))
        forms.append(e)
    for a in forms:
        for b in forms[:12]:
            want = zss.simple_distance(a, b, _once(_children), _once(_label), _cost)
            assert edit_distance(a, b, _once(_children), _once(_label)) == want
