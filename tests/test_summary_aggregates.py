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
