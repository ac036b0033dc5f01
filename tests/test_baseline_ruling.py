"""Families ruled out by the evidence (scigame/players/baseline/search.py,
issue #31): an Adaptive episode does not search a costly family again once
its best law missed a reading by more than RULED_OUT_MISFIT tolerances,
because more readings can only make a family's best in-sample fit worse,
or (noise-free readings) by more than one tolerance in two searches in a row."""

from __future__ import annotations

import numpy as np

from scigame.players.baseline import search
from scigame.players.baseline.fitting import Law
from scigame.players.baseline.search import RULED_OUT_MISFIT, STRUCK, Found, OutputData, ruled_out, search_found
from scigame.players.baseline.task import Input, Output


def _law(fit_max: float) -> Law:
    law = Law("constructed", "y = 1", 1.0, 0, 0.0, lambda idx: None)
    law.fit_max = fit_max
    return law


def _data(n: int = 12, noise_rel: float = 0.0) -> OutputData:
    rng = np.random.default_rng(5)
    x = np.linspace(1.0, 4.0, n)
    inputs = [Input("x", "1", "range", 1.0, 4.0, [], None)]
    return OutputData(inputs, Output("y", "1", 0.0, 0.01, None, noise_rel=noise_rel), {"x": x},
                      rng.uniform(-1.0, 1.0, n), None)


def test_a_family_whose_best_law_misses_is_ruled_out():
    found = Found(_data(), quick=False, nested=False, ruled_out=frozenset({"kinetics"}))
    found.by_family = {"monomials": [_law(50.0)],  # not a costly family: never ruled out
                       "bernoulli": [],  # tried, no law at all
                       "saturations": [_law(2 * RULED_OUT_MISFIT), _law(RULED_OUT_MISFIT)],  # one within the bound
                       "oscillations": [_law(RULED_OUT_MISFIT * 1.01), _law(40.0)]}
    # saturations' best misses by 3 tolerances: a first strike on noise-free readings (below)
    assert ruled_out(found) == {"kinetics", "bernoulli", "oscillations", "saturations" + STRUCK}


def test_a_family_that_gave_no_law_on_too_few_readings_is_not_ruled_out():
    """Kinetics has no law on the four readings of a one-input Adaptive
    design (too few for its constants): that says nothing about the family,
    which then held the law (a Gompertz curve) once there were six. From
    relax.PASS_READINGS readings on, no law rules it out as before."""
    from scigame.players.baseline.relax import PASS_READINGS

    for n, ruled in ((4, set()), (PASS_READINGS - 1, set()), (PASS_READINGS, {"kinetics"})):
        found = Found(_data(n), quick=False, nested=False, ruled_out=frozenset())
        found.by_family = {"monomials": [_law(50.0)], "kinetics": []}
        assert ruled_out(found) == ruled, n


def test_a_ruled_out_family_is_not_searched(monkeypatch):
    """Noise that nothing fits: every costly family is tried, unless skipped."""
    tried = []
    costly = ("kinetics", "two_exponentials", "differences", "bernoulli", "saturations", "oscillations", "waves",
              "powers")
    for name in costly:
        monkeypatch.setattr(search, name, lambda data, name=name: tried.append(name) or [])
    data = _data()
    search_found(data)
    assert tried == list(costly)
    tried.clear()
    found = search_found(data, skip=frozenset({"bernoulli", "oscillations", "waves"}))
    assert tried == ["kinetics", "two_exponentials", "differences", "saturations", "powers"]
    # the composed passes (relax.composed) found nothing within the bound on these 12 readings either
    assert ruled_out(found) == {"kinetics", "two exponentials", "differences", "bernoulli", "saturations",
                                "oscillations", "waves", "powers", "composed"}


def test_too_few_readings_do_not_rule_the_composed_passes_out():
    """With fewer readings than relax.PASS_READINGS the composed passes are not tried, so an
    Adaptive episode's early searches cannot rule them out for its later ones."""
    found = search_found(_data(n=6))
    assert "composed" not in found.by_family and "composed" not in ruled_out(found)


def test_nothing_new_is_ruled_out_while_a_relaxed_law_fits_nearly():
    """A costly family's laws are also the structures relax.py makes real:
    a relaxed law within the bound keeps every family in play (only the
    families ruled out before stay out)."""
    found = Found(_data(), quick=False, nested=False, ruled_out=frozenset({"kinetics"}))
    found.by_family = {"oscillations": [_law(40.0)], "relaxed": [_law(RULED_OUT_MISFIT)]}
    assert ruled_out(found) == {"kinetics"}
    found.by_family["relaxed"] = [_law(RULED_OUT_MISFIT * 1.5)]
    assert ruled_out(found) == {"kinetics", "oscillations"}


def test_powers_of_sums_are_ruled_out_even_while_a_relaxed_law_fits():
    """Powers of sums (powers.py) are no structure relax.py builds on: with
    no law of theirs within the bound they are ruled out whatever relax found."""
    found = Found(_data(), quick=False, nested=False)
    found.by_family = {"oscillations": [_law(40.0)], "powers": [], "relaxed": [_law(RULED_OUT_MISFIT)]}
    assert ruled_out(found) == {"powers"}
    found.by_family["powers"] = [_law(RULED_OUT_MISFIT)]
    assert ruled_out(found) == {"powers" + STRUCK}
    found.by_family["powers"] = [_law(1.0)]
    assert ruled_out(found) == frozenset()


def test_a_family_missing_noise_free_readings_twice_in_a_row_is_ruled_out():
    """On noise-free readings a family that held the true law has a law within
    the tolerance: its best missing by more than one tolerance is a strike, a
    second strike in the next search rules it out; a search in which it fits
    wipes the strike; missing once more later is a first strike again."""
    def after(previous: frozenset, best: float) -> frozenset:
        found = Found(_data(), quick=False, nested=False, ruled_out=previous)
        found.by_family = {"monomials": [_law(0.5)], "oscillations": [_law(best), _law(9.0)]}
        return ruled_out(found)

    first = after(frozenset(), 1.4)
    assert first == {"oscillations" + STRUCK}
    assert after(first, 1.3) == {"oscillations"}  # the second miss in a row
    assert after(first, 0.9) == frozenset()  # fits now: the strike is wiped
    assert after(after(first, 0.9), 1.3) == {"oscillations" + STRUCK}
    assert after(frozenset({"kinetics" + STRUCK}), 0.9) == frozenset()  # a strike not renewed goes


def test_a_struck_family_is_still_searched():
    """A strike only marks the family: the next search tries it again."""
    found = search_found(_data(), skip=frozenset({"oscillations" + STRUCK}))
    assert "oscillations" in found.by_family


def test_noisy_readings_rule_out_only_by_the_wide_bound():
    """A true law may miss a noisy reading by more than a tolerance: no strikes there."""
    found = Found(_data(noise_rel=0.01), quick=False, nested=False, ruled_out=frozenset({"oscillations" + STRUCK}))
    found.by_family = {"monomials": [_law(0.5)], "oscillations": [_law(2.0)], "kinetics": [_law(3.5)]}
    assert ruled_out(found) == {"kinetics"}
