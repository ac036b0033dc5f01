"""The report's aggregates live in summary.py (the tables only lay them
out): each checked against counts worked out by hand."""

from __future__ import annotations

from scigame.summary import failures_by_player, finished_groups, sample_counts, usage_by_who


def _row(card, weak, strict, ps, status="finished", player="p", protocol="prior", **kw):
    return {"card": card, "weak_success": weak, "strict_success": strict, "ps": ps, "status": status,
            "player": player, "protocol": protocol, "failure_mode": kw.get("failure_mode"),
            "input_tokens": kw.get("tokens", 0), "output_tokens": 0, "cost_usd": kw.get("cost", 0.0)}


def test_sample_counts_by_hand():
    done = [_row("a", True, True, 1.0), _row("a", True, True, 1.0),  # a: 2 identical repetitions
            _row("b", True, False, 0.5), _row("b", False, None, 0.0),  # b: differ; one undecided
            _row("c", False, False, 0.0)]
    assert sample_counts(done) == {"cards": 3, "reps": 2, "identical": 2, "strict_k": 2, "strict_n": 4,
                                   "weak_k": 3, "weak_n": 5}
    assert sample_counts([]) == {"cards": 0, "reps": 0, "identical": 0, "strict_k": 0, "strict_n": 0,
                                 "weak_k": 0, "weak_n": 0}


def test_finished_groups_leave_out_unfinished_rows():
    rows = [_row("a", True, True, 1.0), _row("a", True, True, 1.0, status="failed"), _row("b", 0, 0, 0.0)]
    groups = finished_groups(rows, ("card",))
    assert {k: len(v) for k, v in groups.items()} == {("a",): 1, ("b",): 1}


def test_usage_by_who_adds_an_all_row_per_player_and_judge():
    rows = [_row("a", 1, 1, 1.0, protocol="prior", tokens=10, cost=0.5),
            _row("a", 1, 1, 1.0, protocol="fixed", tokens=5, cost=0.25, status="failed")]
    judgements = [{"judge": "j", "protocol": "prior", "input_tokens": 7, "output_tokens": 1, "cost_usd": 0.1}]
    out = usage_by_who(rows, judgements)
    assert [(r["role"], r["who"], r["protocol"], r["episodes"], r["input_tokens"]) for r in out] == [
        ("judge", "j", "prior", 1, 7), ("judge", "j", "all", 1, 7),
        ("player", "p", "fixed", 1, 5), ("player", "p", "prior", 1, 10), ("player", "p", "all", 2, 15)]
    assert out[-1]["cost_usd"] == 0.75


def test_failures_by_player_counts_each_mode_and_the_finished_episodes():
    rows = [_row("a", 0, 0, 0.0, player="x", failure_mode="wrong_form"),
            _row("b", 0, 0, 0.0, player="x", failure_mode="wrong_form"),
            _row("c", 0, 0, 0.0, player="y", failure_mode="no_submission"),
            _row("d", 1, 1, 1.0, player="y", status="failed")]
    judgements = [{"player": "y", "failure": "vague"}, {"player": "y", "failure": None}]
    assert failures_by_player(rows, judgements, ["x", "y"]) == [
        {"source": "outcome", "mode": "no_submission", "x": 0, "y": 1},
        {"source": "outcome", "mode": "wrong_form", "x": 2, "y": 0},
        {"source": "judges", "mode": "vague", "x": 0, "y": 1},
        {"source": "outcome", "mode": "(finished episodes)", "x": 2, "y": 1}]


def _wilson(k: float, n: int) -> tuple[float, float]:
    """The Wilson score interval written out from its textbook formula (z of 95%)."""
    import math
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def test_cell_intervals_count_cards_not_repetitions():
    from pytest import approx
    from scigame.summary import cell_intervals
    # 3 cards x 2 identical repetitions: the interval is Wilson on 2 of 3 cards, not on 4 of 6 episodes
    from scigame.records import EpisodeKey
    key = dict.fromkeys(EpisodeKey.COLUMNS, "x")
    done = [{**key, **_row(c, ok, ok, ps), "repetition": i}
            for c, ok, ps in (("a", 1, 0.9), ("b", 1, 0.8), ("c", 0, 0.2)) for i in range(2)]
    out = cell_intervals({}, done, {})
    assert out["strict_esr_ci"] == approx(_wilson(2, 3), abs=1e-12)
    assert out["weak_esr_ci"] == approx(_wilson(2, 3), abs=1e-12)
    assert out["strict_esr_ci"] != approx(_wilson(4, 6), abs=1e-3)
    lo, hi = out["mean_ps_ci"]  # a bootstrap over the three per-card means stays within their range
    assert 0.2 <= lo < hi <= 0.9
    assert "mean_form_credit_ci" not in out and "mean_ps_ood_ci" not in out


def test_paired_comparisons_pair_by_card():
    from scigame.summary import paired_comparisons
    rows = [dict(_row(c, w, w, float(w), player=p), setting="s") for p, wins in (("A", "abcd"), ("B", "ab"))
            for c in "abcd" for w in [int(c in wins)]]
    out = [r for r in paired_comparisons(rows, ["A", "B"], ("setting",)) if r["metric"] == "weak ESR"]
    assert len(out) == 1
    r = out[0]
    assert (r["shared_cards"], r["differing"], r["value_a"], r["value_b"], r["difference"]) == (4, 2, 1.0, 0.5, 0.5)
    assert r["p"] == 0.5  # two cards differ, both the same way: exact p = 2 * (1/2)^2


def test_the_report_lays_out_and_does_not_aggregate():
    """report/ takes its aggregates from summary.py: none of its modules
    calls the interval functions itself (constants naming the method are fine)."""
    import ast
    from pathlib import Path
    import scigame.report
    aggregates = {"by_card", "card_rate_interval", "cluster_bootstrap", "paired", "holm", "wilson", "card_means"}
    for path in Path(scigame.report.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("intervals"):
                assert not aggregates & {a.name for a in node.names}, path.name
