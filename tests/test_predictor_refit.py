"""predictor.NumbersRefitted (the failure classifier's refit) must give, at
every call, what evaluate_predictor gives on the trees with those numbers
written in: the same bits, and PredictorInvalid exactly when it raises;
and the refit's failure mode must be the one a plain refit reaches."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy.optimize import least_squares

from scigame.predictor import NumbersRefitted, PredictorInvalid, evaluate_predictor, tree_program


def _op(name, *args):
    return {"op": name, "args": list(args)}


def _var(name):
    return {"var": name}


PREDICTORS = [
    # a scaling law: C + A·N^-a + B·D^-b
    {"L": _op("add", 1.7, _op("mul", 406.4, _op("pow", _var("N"), -0.34)),
              _op("mul", 410.7, _op("pow", _var("D"), -0.28)))},
    # log and sqrt that leave their domain for some constants; a subtree without constants
    {"y": _op("div", _op("log", _op("sub", _var("N"), 3.5)), _op("sqrt", _op("add", _var("D"), -0.6))),
     "z": _op("mul", 2.5, _op("exp", _op("mul", -0.013, _var("N"))), _op("cos", _op("mul", 2.0, _var("D"))))},
    # a number used twice under one op, nested sums
    {"y": _op("pow", _op("add", _op("mul", 0.7, _var("N")), _op("mul", 0.7, _var("D")), 1.3), 1.7)},
]


def _numbers(tree, path=()):
    """The paths of the tree's number leaves, in the order fold_tree reads them."""
    if isinstance(tree, dict):
        out = []
        for i, a in enumerate(tree.get("args", [])):
            out += _numbers(a, path + (i,))
        return out
    return [path] if isinstance(tree, float) else []


def _written(tree, path, value):
    if not path:
        return value
    tree = copy.deepcopy(tree)
    node = tree
    for i in path[:-1]:
        node = node["args"][i]
    node["args"][path[-1]] = value
    return tree


def _plain(predictor, leaves, values, inputs):
    trees = dict(predictor)
    for (out, path), v in zip(leaves, values):
        trees[out] = _written(trees[out], path, float(v))
    with np.errstate(all="ignore"):
        return evaluate_predictor(trees, inputs)


@pytest.mark.parametrize("k", range(len(PREDICTORS)))
def test_every_call_is_evaluate_predictor_on_the_written_trees(k):
    predictor = PREDICTORS[k]
    rng = np.random.default_rng(k)
    inputs = {"N": rng.uniform(4.0, 9.0, 64), "D": rng.uniform(1.0, 4.0, 64)}
    leaves = [(out, p) for out, tree in predictor.items() for p in _numbers(tree)]
    programs = {out: tree_program(tree, out) for out, tree in predictor.items()}
    steps = {out: [i for i, s in enumerate(prog) if s[0] == 0] for out, prog in programs.items()}
    order = {out: _numbers(tree) for out, tree in predictor.items()}
    slots = [(out, steps[out][order[out].index(p)]) for out, p in leaves]
    refolded = NumbersRefitted(programs, inputs, slots)
    base = np.array([float(_numbers_value(predictor[out], p)) for out, p in leaves])
    points = [base]
    for _ in range(40):  # Jacobian-like moves of one number, jumps, repeats, signed zeros
        x = points[-1].copy() if rng.random() < 0.7 else base.copy()
        j = int(rng.integers(len(x)))
        x[j] = {0: x[j] * (1 + 1e-8), 1: -0.0, 2: 0.0, 3: rng.normal() * 6}[int(rng.integers(4))]
        points += [x, points[-1]]
    raised = 0
    for x in points:
        try:
            want = _plain(predictor, leaves, x, inputs)
        except PredictorInvalid:
            raised += 1
            with pytest.raises(PredictorInvalid):
                refolded(x)
            continue
        got = refolded(x)
        assert got.keys() == want.keys()
        for out in want:
            assert got[out].tobytes() == want[out].tobytes()
    if k == 1:
        assert 0 < raised < len(points)  # both kinds of call were compared


def _numbers_value(tree, path):
    for i in path:
        tree = tree["args"][i]
    return tree


def test_a_caller_changing_the_answer_changes_no_later_answer():
    predictor = PREDICTORS[0]
    inputs = {"N": np.linspace(1.0, 2.0, 5), "D": np.linspace(3.0, 4.0, 5)}
    programs = {"L": tree_program(predictor["L"], "L")}
    slots = [("L", i) for i, s in enumerate(programs["L"]) if s[0] == 0]
    refolded = NumbersRefitted(programs, inputs, slots)
    values = [1.7, 406.4, -0.34, 410.7, -0.28]
    first = refolded(values)["L"].copy()
    refolded(values)["L"][:] = 0.0
    assert refolded(values)["L"].tobytes() == first.tobytes()


def test_refit_errors_are_a_plain_refits_to_the_bit():
    """failure.refit_errors against least_squares over evaluate_predictor on
    freshly written trees (no programs, nothing kept between calls)."""
    from types import SimpleNamespace

    from scigame.failure import _constants, refit_errors
    from scigame.scoring import scaled_errors
    rng = np.random.default_rng(5)
    inputs = {"N": rng.uniform(4.0, 9.0, 128), "D": rng.uniform(1.0, 4.0, 128)}
    law = {"L": _op("add", 1.9, _op("mul", 380.0, _op("pow", _var("N"), -0.3)),
                    _op("mul", 450.0, _op("pow", _var("D"), -0.25)))}
    truth = {"L": evaluate_predictor(law, inputs)["L"]}
    card = SimpleNamespace(
        evaluation=SimpleNamespace(inputs=inputs, outputs={"original": truth}),
        data=SimpleNamespace(outputs=[SimpleNamespace(name="L", tol_abs=0.001, tol_rel=0.01)]))
    predictor = PREDICTORS[0]
    slots = [(out, p, v) for out, tree in predictor.items() for p, v in _constants(tree)]
    x0 = np.array([v for _, _, v in slots])
    scale = np.where(x0 != 0, np.abs(x0), 1.0)

    def residuals(z):
        try:
            pred = _plain(predictor, [(o, p) for o, p, _ in slots], z * scale, inputs)
        except PredictorInvalid:
            return np.full(128, 1e6)
        return scaled_errors(pred["L"], truth["L"], 0.001, 0.01)
    fit = least_squares(residuals, x0 / scale, max_nfev=200 * len(slots), method="trf")
    assert refit_errors(card, "original", predictor).tobytes() == residuals(fit.x).tobytes()
