"""The baseline's derived variables (scigame/players/baseline/derived.py):
differences, sums and products of two inputs of the same kind, and the
laws found over them, checked against hand-computed values."""

from __future__ import annotations

import numpy as np

from scigame.players.baseline import derived as D
from scigame.players.baseline.task import Input
from scigame.predictor import evaluate_predictor, validate_predictor
from tests.test_baseline import fixed_discovery

LENGTH = np.array([0, 1, 0, 0, 0, 0, 0], float)
TEMPERATURE = np.array([0, 0, 0, 0, 0, 1, 0], float)
NONE = np.zeros(7)
BASES = ("current", "length", "luminosity", "mass", "substance", "temperature", "time")


def si(**exponents) -> dict:
    """A public view's dimension: every base name, as the compiler writes it."""
    return {b: exponents.get(b, 0) for b in BASES}


def inp(name, lo, hi, dim=LENGTH, unit="m", angle=False):
    return Input(name, unit, "range", lo, hi, [], dim, 1.0, angle)


def test_same_kind_needs_dimension_unit_and_role():
    assert D.same_kind(inp("T1", 280, 300, TEMPERATURE, "K"), inp("T2", 320, 350, TEMPERATURE, "K"))
    assert not D.same_kind(inp("T1", 280, 300, TEMPERATURE, "K"), inp("x", 0, 1))  # other dimension
    assert not D.same_kind(inp("a", 1, 2, unit="m"), inp("b", 1, 2, unit="cm"))  # other unit
    assert not D.same_kind(inp("theta", 0, 1, NONE, "rad", True), inp("n", 0, 1, NONE, "1"))
    assert D.same_kind(inp("theta1", 0, 1, NONE, "rad", True), inp("theta2", 2, 3, NONE, "rad", True))
    # two pure numbers only with a common name stem
    assert not D.same_kind(inp("alpha", 0.1, 0.9, NONE, "1"), inp("beta", 1, 5, NONE, "1"))
    assert D.same_kind(inp("n1", 1, 2, NONE, "1"), inp("n2", 1, 2, NONE, "1"))
    assert not D.same_kind(inp("a", 1, 1), inp("b", 1, 2))  # a fixed input


def test_difference_of_one_sign_keeps_its_domain():
    T1, T2 = inp("T1", 280, 300, TEMPERATURE, "K"), inp("T2", 320, 350, TEMPERATURE, "K")
    X = {"T1": np.array([280.0, 290.0]), "T2": np.array([330.0, 345.0])}
    (d,) = D._difference(T1, T2, X)
    assert d.input.name == "(T2 - T1)" and d.replaces == ("T1", "T2")
    assert (d.input.lo, d.input.hi) == (20.0, 70.0) and d.input.positive
    assert np.array_equal(d.values(X), [50.0, 55.0])
    assert np.array_equal(d.input.dim, TEMPERATURE)
    # the same pair given the other way round is oriented the same way
    assert D._difference(T2, T1, X)[0].input.name == "(T2 - T1)"


def test_difference_that_changes_sign_is_squared():
    a, b = inp("x1", 1, 5), inp("x2", 1, 5)
    X = {"x1": np.array([1.0, 4.0]), "x2": np.array([3.0, 2.5])}
    (d,) = D._difference(a, b, X)
    assert d.input.name == "(x2 - x1)^2"
    assert np.allclose(d.values(X), [4.0, 2.25])
    assert np.array_equal(d.input.dim, 2 * LENGTH) and d.input.positive
    tree = evaluate_predictor({"y": d.tree}, X)["y"]
    assert np.allclose(tree, [4.0, 2.25])
    # a point where the two are equal gives no positive square: no variable
    assert D._difference(a, b, {"x1": np.array([2.0]), "x2": np.array([2.0])}) == []


def test_angle_difference_is_an_angle():
    t1, t2 = inp("theta1", 0, 1, NONE, "rad", True), inp("theta2", 2, 3, NONE, "rad", True)
    (d,) = D._difference(t1, t2, {})
    assert d.input.is_angle and d.input.angle == 1.0
    assert (d.input.lo, d.input.hi) == (1.0, 3.0)


def test_sum_and_product_replace_the_pair():
    u, v, c = inp("u", 1, 2), inp("v", 3, 4), inp("c", 10, 11)
    X = {"u": np.array([1.5]), "v": np.array([3.0]), "c": np.array([10.0])}
    s, p = D._sum_product(u, v)
    reduced = D.reduce_inputs([u, v, c], [s, p])
    assert [i.name for i in reduced] == ["c", "(u + v)", "(u·v)"]
    pts = D.reduce_points(X, [s, p])
    assert set(pts) == {"c", "(u + v)", "(u·v)"}
    assert pts["(u + v)"][0] == 4.5 and pts["(u·v)"][0] == 4.5
    assert np.array_equal(p.input.dim, 2 * LENGTH) and (p.input.lo, p.input.hi) == (3.0, 8.0)


def test_reductions_try_coordinates_together_first():
    names = [("x1", 0, 1), ("x2", 2, 3), ("y1", 0, 1), ("y2", 2, 3), ("m1", 1, 2, NONE + [0, 0, 0, 1, 0, 0, 0], "kg"),
             ("m2", 1, 2, NONE + [0, 0, 0, 1, 0, 0, 0], "kg")]
    X = {"x1": np.array([0.5, 1.0]), "x2": np.array([2.5, 2.0]), "y1": np.array([0.0, 1.0]),
         "y2": np.array([3.0, 2.0]), "m1": np.array([1.0, 1.5]), "m2": np.array([2.0, 1.0])}
    options = D.reductions([inp(*t) for t in names], X)
    # the masses share a stem but are of another kind: not a coordinate
    (r2,) = options[0]
    assert r2.replaces == ("x1", "x2", "y1", "y2") and np.array_equal(r2.input.dim, 2 * LENGTH)
    assert np.allclose(r2.values(X), [2.0 ** 2 + 3.0 ** 2, 1.0 ** 2 + 1.0 ** 2])
    assert np.allclose(evaluate_predictor({"y": r2.tree}, X)["y"], [13.0, 2.0])
    assert [d.text for d in options[1]] == ["(x2 - x1)", "(y2 - y1)"]
    assert len(options) <= D.MAX_REDUCTIONS


def test_lifted_law_is_written_over_the_original_inputs():
    from scigame.players.baseline.fitting import Law
    T1, T2 = inp("T1", 280, 300, TEMPERATURE, "K"), inp("T2", 320, 350, TEMPERATURE, "K")
    X = {"T1": np.array([280.0, 300.0]), "T2": np.array([330.0, 320.0]), "k": np.array([2.0, 3.0])}
    (d,) = D._difference(T1, T2, X)
    inner = Law("monomial", "y = 2·k·(T2 - T1)", {"op": "mul", "args": [2.0, {"var": "k"}, {"var": d.input.name}]},
                1, 3.0, lambda idx: (lambda Xr: 2.0 * Xr["k"] * Xr["(T2 - T1)"]))
    law = D.lift(inner, [d], cost=1.5)
    validate_predictor({"y": law.tree}, ["T1", "T2", "k"], ["y"])
    assert np.allclose(evaluate_predictor({"y": law.tree}, X)["y"], [200.0, 120.0])  # 2·k·(T2 − T1)
    assert law.complexity == 4.5 and "(T2 - T1) as a derived variable" in law.kind
    assert np.allclose(law.refit(np.arange(2))(X), [200.0, 120.0])


def _top(action):
    return action.hypotheses[action.submission.selected].statement


def test_difference_of_temperatures_is_found():
    """P = κ·(T₂ − T₁)²·A/d² with no law over T₁ and T₂ apart that fits
    (Fourier's law with a changed exponent; to the first power it is also
    a difference of one function of T₁ and T₂, differences.py's)."""
    dims = {"kappa": si(mass=1, length=1, time=-3, temperature=-1), "T1": si(temperature=1),
            "T2": si(temperature=1), "A": si(length=2), "d": si(length=1)}
    law = lambda kappa, T1, T2, A, d: kappa * (T2 - T1) ** 2 * A / d ** 2  # noqa: E731
    ranges = {"kappa": (1.0, 10.0), "T1": (280.0, 300.0), "T2": (320.0, 350.0), "A": (0.1, 1.0), "d": (0.01, 0.1)}
    action = fixed_discovery(ranges, {"tolerance": {"abs": 0.0, "rel": 0.01},
                                      "dimension": si(mass=1, length=2, time=-3)}, law, dims=dims)
    assert "(T2 - T1) as a derived variable" in _top(action)
    rng = np.random.default_rng(3)
    grid = {k: rng.uniform(lo, hi, 20) for k, (lo, hi) in ranges.items()}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-6)


def test_distance_between_points_is_found():
    """y = √((x₂ − x₁)² + (y₂ − y₁)²): the squared distance of two points."""
    law = lambda x1, x2, y1, y2: np.sqrt((x2 - x1) ** 2 + (y2 - y1) ** 2)  # noqa: E731
    ranges = {"x1": (0.0, 1.0), "x2": (2.0, 3.0), "y1": (0.0, 1.0), "y2": (2.0, 3.0)}
    length = si(length=1)
    action = fixed_discovery(ranges, {"tolerance": {"abs": 0.0, "rel": 0.001}, "dimension": length}, law,
                             dims={k: length for k in ranges})
    assert "((x2 - x1)^2 + (y2 - y1)^2) as a derived variable" in _top(action)
    grid = {k: np.linspace(lo, hi, 9) for k, (lo, hi) in ranges.items()}
    grid["y1"] = grid["y1"][::-1]
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-6)


def test_law_symmetric_in_a_pair_is_found():
    """y = (u + v)/(1 + u·v/c²) in its strong form (u, v up to c/2): the sum
    and product of u and v make it a monomial times a function of a group."""
    law = lambda u, v, c: (u + v) / (1 + u * v / c ** 2)  # noqa: E731
    speed = si(length=1, time=-1)
    ranges = {"u": (1.0, 5.0), "v": (1.0, 5.0), "c": (9.0, 11.0)}
    action = fixed_discovery(ranges, {"tolerance": {"abs": 0.0, "rel": 0.001}, "dimension": speed}, law, n=10,
                             dims={k: speed for k in ranges})
    assert "(u + v) and (u·v) as derived variables" in _top(action)
    rng = np.random.default_rng(4)
    grid = {k: rng.uniform(lo, hi, 20) for k, (lo, hi) in ranges.items()}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-6)


def test_law_without_a_derived_variable_wins_when_it_fits():
    """y = κ·T₂·A/d over the same inputs: the derived variables' laws pay
    for their choice, so the plain monomial is submitted."""
    dims = {"T1": si(temperature=1), "T2": si(temperature=1), "A": si(length=2), "d": si(length=1)}
    law = lambda T1, T2, A, d: T2 * A / d  # noqa: E731
    ranges = {"T1": (280.0, 300.0), "T2": (320.0, 350.0), "A": (0.1, 1.0), "d": (0.01, 0.1)}
    action = fixed_discovery(ranges, {"tolerance": {"abs": 0.0, "rel": 0.01},
                                      "dimension": si(temperature=1, length=1)}, law, dims=dims)
    assert "derived" not in _top(action)
    grid = {k: np.linspace(lo, hi, 5) for k, (lo, hi) in ranges.items()}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-6)


def test_inverse_square_of_a_distance_in_space():
    """F = m₁·m₂/((x₂ − x₁)² + (y₂ − y₁)² + (z₂ − z₁)²) (Feynman I.9.18 with
    G = 1): the squared distance over three coordinates, not the masses."""
    def law(m1, m2, x1, x2, y1, y2, z1, z2):
        return m1 * m2 / ((x2 - x1) ** 2 + (y2 - y1) ** 2 + (z2 - z1) ** 2)
    ranges = {"m1": (1.0, 2.0), "m2": (1.0, 2.0), "x1": (0.0, 1.0), "x2": (2.0, 3.0), "y1": (0.0, 1.0),
              "y2": (2.0, 3.0), "z1": (0.0, 1.0), "z2": (2.0, 3.0)}
    dims = {k: si(mass=1) if k[0] == "m" else si(length=1) for k in ranges}
    action = fixed_discovery(ranges, {"tolerance": {"abs": 0.0, "rel": 0.001}, "dimension": si(mass=2, length=-2)},
                             law, n=12, dims=dims)
    assert "((x2 - x1)^2 + (y2 - y1)^2 + (z2 - z1)^2) as a derived variable" in _top(action)
    rng = np.random.default_rng(7)
    grid = {k: rng.uniform(lo, hi, 20) for k, (lo, hi) in ranges.items()}
    assert np.allclose(evaluate_predictor(action.submission.predictor, grid)["y"], law(**grid), rtol=1e-6)


def test_only_the_best_derived_laws_reach_the_model_choice():
    from scigame.players.baseline.fitting import Law
    laws = [Law("m", f"law {i}", 1.0, k=1, complexity=1.0, refit=lambda idx: None, fit_error=float(i))
            for i in range(D.KEEP + 10)]
    kept = D.best(laws[::-1], n=8)
    # in-sample BIC: ½·Σe² + ½·k·ln n + L, equal k and L: the smallest errors
    assert [law.text for law in kept] == [f"law {i}" for i in range(D.KEEP)]
