"""The baseline's differences of powers of two inputs of one kind
(scigame/players/baseline/differences.py): heat lost by conduction and
radiation, a radiating plate with a moved exponent, a conductivity that
grows with the mean temperature, recovered from exact readings and checked
against the closed forms (numpy) at new points; the screen of exponents
against one scipy least-squares solve per exponent."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from scigame.players.baseline import differences
from scigame.players.baseline.dims import analyse
from scigame.players.baseline.search import OutputData
from scigame.players.baseline.task import Input, Output

from .test_baseline_biexp import _misses  # a found law's error against the closed form at new points


def _dim(**exps: int) -> np.ndarray:
    return np.array([float(exps.get(k, 0)) for k in ("A", "K", "kg", "m", "s")])


AREA = Input("A", "m^2", "range", 0.5, 5.0, [], _dim(m=2))
WALL = Input("T", "K", "range", 310.0, 370.0, [], _dim(K=1))
AIR = Input("Ta", "K", "range", 280.0, 300.0, [], _dim(K=1))
THICK = Input("d", "m", "range", 0.01, 0.1, [], _dim(m=1))
POWER = Output("P", "W", 1e-3, 0.01, _dim(kg=1, m=2, s=-3))
INPUTS = [AREA, WALL, AIR, THICK]


def _data(law, n=8, seed=3) -> OutputData:
    rng = np.random.default_rng(seed)
    X = {i.name: rng.uniform(i.lo, i.hi, n) for i in INPUTS}
    return OutputData(INPUTS, POWER, X, np.round(law(**X), 3), analyse(INPUTS, POWER))


def _first(laws):
    """The law of fewest nats among those that fit every reading."""
    return min((f for f in laws if f.fit_max <= 1.0), key=lambda f: f.complexity)


def test_conduction_and_radiation_are_found_from_eight_readings():
    """P = h·A·(T − Ta) + ε·σ·A·(T⁴ − Ta⁴): four monomials with tied
    coefficients, two differences of one function of two temperatures."""
    def law(A, T, Ta, d):
        return 10.0 * A * (T - Ta) + 5.4e-8 * A * (T ** 4 - Ta ** 4)
    data = _data(law)
    best = _first(differences.differences(data))
    assert best.text == "P = A·(10·(T - Ta) + 5.4e-08·(T^4 - Ta^4))"
    assert _misses(best, law, data) < 0.2


def test_a_moved_exponent_is_written_as_a_fraction():
    """σ·A·(T^(5/3) − Ta^(5/3)) with a visible constant: the exponent exactly 5/3, not 1.667."""
    def law(A, T, Ta, d):
        return 0.0567 * A * (T ** (5 / 3) - Ta ** (5 / 3))
    data = _data(law)
    best = _first(differences.differences(data))
    assert best.text == "P = 0.0567·A·(T^(5/3) - Ta^(5/3))"


def test_a_conductivity_growing_with_the_mean_temperature():
    """k·(1 + β·(T + Ta)/2)·A·(T − Ta)/d = A/d·(k·(T − Ta) + k·β/2·(T² − Ta²))."""
    def law(A, T, Ta, d):
        return 2.0 * (1 + 0.0028 * (T + Ta) / 2) * A * (T - Ta) / d
    data = _data(law, n=12)
    laws = differences.differences(data)
    texts = [f.text for f in laws if f.fit_max <= 1.0]
    assert "P = A·d^-1·(2·(T - Ta) + 0.0028·(T^2 - Ta^2))" in texts
    best = next(f for f in laws if f.text == "P = A·d^-1·(2·(T - Ta) + 0.0028·(T^2 - Ta^2))")
    assert _misses(best, law, data) < 0.2


@settings(max_examples=25, deadline=None)
@given(p=st.sampled_from([-2.0, -1.0, 0.5, 4 / 3, 5 / 3, 2.6, 3.0, 4.0]),
       m=st.sampled_from([0.0, 1.0, 1.5, -1.0]), c=st.sampled_from([0.7, 3.0, 42.0]))
def test_one_difference_is_recovered_everywhere(p, m, c):
    """c·d^m·(T^p − Ta^p) over the sixths' grid and off it (2.6): some law of
    one coefficient reproduces the closed form at 300 new points."""
    def law(A, T, Ta, d):
        return c * d ** m * (T ** p - Ta ** p) / abs(310.0 ** p - 300.0 ** p)
    data = _data(law, n=10, seed=5)
    ones = [f for f in differences.differences(data) if f.k == 1 and f.fit_max <= 1.0]
    assert ones
    assert min(_misses(f, law, data) for f in ones) < 0.3


def test_the_screen_is_one_least_squares_per_exponent():
    """The screened exponent and M's exponents equal those of a weighted
    least-squares solve (scipy) of log|y| − log|T^p − Ta^p| per grid exponent."""
    def law(A, T, Ta, d):
        return 0.3 * A ** 1.5 / d * (T ** 2.6 - Ta ** 2.6)
    data = _data(law, n=14, seed=9)
    others = ["A", "d"]
    p, shift, coef, sign = differences._screen(data, "T", "Ta", others)[0]
    L = np.column_stack([np.ones(data.n), np.log(data.X["A"]), np.log(data.X["d"])])
    w = np.abs(data.y) / data.sw
    best = None
    for q in differences.SINGLE:
        D = np.log(data.X["T"] / data.X["Ta"]) if q == 0 else data.X["T"] ** q - data.X["Ta"] ** q
        r = np.log(np.abs(data.y)) - np.log(np.abs(D))
        sol, *_ = scipy.linalg.lstsq(L * w[:, None], r * w)
        chi2 = float(np.sum(((L @ sol - r) * w) ** 2))
        if best is None or chi2 < best[0]:
            best = (chi2, q, sol)
    assert p == best[1] and shift == 0.0 and sign == 1.0
    assert np.allclose(coef, best[2], rtol=1e-8, atol=1e-10)
    assert Fraction(p).limit_denominator(6) in (Fraction(5, 2), Fraction(8, 3))


def test_a_logarithm_of_shifted_masses():
    """A rocket whose masses both carry 20 t more: ve·(ln(m₀ + 20) − ln(m_f + 20)),
    the logarithm being g₀ and the shift fitted."""
    m0 = Input("m0", "t", "range", 100.0, 500.0, [], _dim(kg=1))
    mf = Input("mf", "t", "range", 20.0, 90.0, [], _dim(kg=1))
    out = Output("dv", "km/s", 1e-5, 0.01, _dim(m=1, s=-1))
    rng = np.random.default_rng(2)
    X = {"m0": rng.uniform(100.0, 500.0, 12), "mf": rng.uniform(20.0, 90.0, 12)}

    def law(m0, mf):
        return 3.0 * np.log((m0 + 20.0) / (mf + 20.0))
    data = OutputData([m0, mf], out, X, np.round(law(**X), 5), analyse([m0, mf], out))
    best = _first(differences.differences(data))
    assert best.text == "dv = 3·(log(m0 + 20) - log(mf + 20))"
    assert _misses(best, law, data) < 0.2


def test_a_scale_beyond_floating_point_is_no_crash():
    """y = 10³¹⁶·(a⁻⁴ − b⁻⁴) read near 10³⁰⁰: the screen's scale c overflows a
    float (it raised OverflowError); the family then has no law to refine."""
    a = Input("a", "K", "range", 1e4, 2e4, [], _dim(K=1))
    b = Input("b", "K", "range", 3e4, 4e4, [], _dim(K=1))
    rng = np.random.default_rng(0)
    X = {"a": rng.uniform(1e4, 2e4, 10), "b": rng.uniform(3e4, 4e4, 10)}
    with np.errstate(all="ignore"):
        data = OutputData([a, b], POWER, X, 1e300 * (X["a"] ** -4 - X["b"] ** -4) * 1e16, analyse([a, b], POWER))
        laws = differences.differences(data)
    assert laws == []  # the unshifted screen gave no finite start, so no M for two differences either


def test_only_pairs_of_one_kind_are_differenced():
    """An area and a thickness, or a temperature and an area, are never
    subtracted: with no two inputs of one kind there is no law."""
    inputs = [AREA, WALL, THICK]
    rng = np.random.default_rng(1)
    X = {i.name: rng.uniform(i.lo, i.hi, 10) for i in inputs}
    data = OutputData(inputs, POWER, X, 3.0 * X["A"] * X["T"] ** 2, analyse(inputs, POWER))
    assert differences.differences(data) == []
