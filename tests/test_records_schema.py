"""The records are the one schema: the store's tables, the outcome a record
keeps of a Score, and the episode key's uses all follow the models."""

from __future__ import annotations

import json
import sqlite3

import pytest

from scigame.records import SCORE_FIELDS, Episode, EpisodeKey, Outcome, Usage, load_episode
from scigame.scoring import Score
from scigame.store import Store

#: The outcome's JSON keys as the first record format wrote them (written out
#: by hand: the stored JSON must keep them).
OUTCOME_KEYS = {"submitted", "valid", "reason", "ps", "weak", "strict", "strict_reason", "protocol_ok", "breaks",
                "weak_success", "strict_success", "form_credit", "failure_mode", "steps", "wall_time", "usage",
                "ps_ood", "weak_ood", "ps_system", "weak_system"}
KEY = ["card_hash", "environment", "setting", "protocol", "budget", "repetition", "player", "noise", "context",
       "distractors", "tools"]


def _key(**controls) -> EpisodeKey:
    return EpisodeKey(card_hash="h", card="c", environment="counterfactual", setting="discovery",
                      protocol="fixed", budget=4, repetition=2, player="p", **controls)


def _score(**over) -> Score:
    values = dict(environment="counterfactual", valid=True, reason="", path="", ps=0.75, weak=True, strict=None,
                  strict_reason="sympy ran out of time", points=64, ps_ood=0.5, weak_ood=False, form_credit=0.8)
    return Score(**{**values, **over})


def test_outcome_keeps_the_verdict_of_the_score():
    score = _score()
    outcome = Outcome.of(score, protocol_ok=True, breaks=[], weak_success=True, strict_success=None,
                         failure_mode=None, steps=4, wall_time=1.5)
    assert (outcome.valid, outcome.ps, outcome.weak, outcome.strict, outcome.strict_reason) == \
        (True, 0.75, True, None, "sympy ran out of time")
    assert (outcome.form_credit, outcome.ps_ood, outcome.weak_ood, outcome.submitted) == (0.8, 0.5, False, True)
    # the verdict's fields are Score's own definitions
    for name in SCORE_FIELDS:
        if name != "form_credit":  # an Outcome's is None in records from before form credit
            assert Outcome.model_fields[name].annotation == Score.model_fields[name].annotation, name
    assert set(json.loads(outcome.model_dump_json())) == OUTCOME_KEYS


def test_an_old_record_reads_and_writes_the_same_keys():
    old = {"submitted": True, "valid": False, "reason": "bad", "ps": 0.0, "weak": False, "strict": False,
           "strict_reason": "", "protocol_ok": True, "breaks": [], "weak_success": False, "strict_success": False,
           "failure_mode": "no_usable_answer", "steps": 0, "wall_time": 0.1}
    record = {"key": _key().model_dump(), "collection": "historical", "seed": 1, "task": {}, "outcome": old}
    episode = load_episode(json.dumps(record))
    assert episode.outcome.form_credit is None and episode.outcome.reason == "bad"
    assert set(json.loads(episode.outcome.model_dump_json())) == OUTCOME_KEYS


def test_every_keyed_table_has_the_key_columns(tmp_path):
    with Store(tmp_path) as store:
        for table, extra in (("episodes", []), ("judgements", ["judge"]), ("attempts", None)):
            info = {r[1]: r for r in store.db.execute(f"PRAGMA table_info({table})")}
            assert [c for c in info if c in KEY] == KEY, table
            assert info["noise"][4] == "'card'" and info["context"][4] == "'full'" and info["distractors"][4] == "0"
            assert info["tools"][4] == "'none'"
            if extra is not None:
                pk = [name for name, r in sorted(info.items(), key=lambda kv: kv[1][5]) if r[5]]
                assert pk == KEY + extra, table
    assert list(EpisodeKey.COLUMNS) == KEY


def test_a_stored_episode_row_holds_the_outcome(tmp_path):
    key = _key(noise=0.01, distractors=2, tools="python")
    outcome = Outcome.of(_score(), protocol_ok=False, breaks=["x"], weak_success=False, strict_success=False,
                         failure_mode="protocol_violation", steps=4, wall_time=2.0,
                         usage=Usage(calls=1, input_tokens=10, output_tokens=3, cost_usd=0.25))
    with Store(tmp_path) as store:
        store.put(Episode(key=key, collection="historical", seed=3, task={}, outcome=outcome))
        (row,) = store.rows()
        (back,) = store.episodes()
    assert {k: row[k] for k in KEY} == dict(zip(KEY, ("h", "counterfactual", "discovery", "fixed", 4, 2, "p",
                                                      "0.01", "full", 2, "python")))
    assert (row["card"], row["collection"], row["status"]) == ("c", "historical", "finished")
    assert (row["submitted"], row["valid"], row["weak"], row["strict"], row["protocol_ok"]) == (1, 1, 1, None, 0)
    assert (row["weak_success"], row["strict_success"], row["failure_mode"]) == (0, 0, "protocol_violation")
    assert (row["ps"], row["steps"], row["wall_time"], row["ps_ood"], row["weak_ood"]) == (0.75, 4, 2.0, 0.5, 0)
    assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (10, 3, 0.25)
    assert back == Episode(key=key, collection="historical", seed=3, task={}, outcome=outcome)


def test_calls_and_attempts_are_written_by_name(tmp_path):
    with Store(tmp_path) as store:
        attempt = store.begin_attempt(_key())
        store.record_call(attempt, Usage(calls=1, input_tokens=5, cached_tokens=1, output_tokens=2,
                                         reasoning_tokens=1, cost_usd=0.5, retries=2, estimated=1))
        store.record_call(attempt, Usage(calls=1, input_tokens=1, cost_usd=0.25))
        assert store.attempt_usage(attempt) == Usage(calls=2, input_tokens=6, cached_tokens=1, output_tokens=2,
                                                     reasoning_tokens=1, cost_usd=0.75, estimated=1)
        calls = store.db.execute("SELECT attempt, input_tokens, retries, estimated FROM calls").fetchall()
        assert calls == [(attempt, 5, 2, 1), (attempt, 1, 0, 0)]
        (row,) = store.attempt_rows()
        assert (row["card"], row["player"], row["status"], row["noise"]) == ("c", "p", "running", "card")


def test_the_key_without_the_player_and_for_people():
    key = _key(context="anonymous")
    other = key.model_copy(update={"player": "q"})
    assert key.replay_key() == other.replay_key() != key.model_copy(update={"repetition": 3}).replay_key()
    assert len(key.replay_key()) == len(KEY) - 1
    assert key.label == "c counterfactual discovery fixed rep 2"
    assert EpisodeKey.row_key({**dict(zip(KEY, key.as_tuple()))}) == key.as_tuple()


def test_a_store_without_the_ood_columns_is_migrated(tmp_path):
    """A store written before the out-of-domain columns (ps_ood, weak_ood) and the tools control keeps its rows."""
    before = KEY[:-1]  # no `tools` yet
    db = sqlite3.connect(tmp_path / "episodes.sqlite")
    db.execute(f"""CREATE TABLE episodes ({', '.join(f'{c} TEXT' for c in before)}, card TEXT, collection TEXT,
        status TEXT, submitted INTEGER, valid INTEGER, ps REAL, weak INTEGER, strict INTEGER, weak_success INTEGER,
        strict_success INTEGER, protocol_ok INTEGER, failure_mode TEXT, steps INTEGER, wall_time REAL,
        input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL, record TEXT, written_at REAL,
        PRIMARY KEY ({', '.join(before)}))""")
    db.execute("INSERT INTO episodes (card_hash, environment, setting, protocol, budget, repetition, player, noise, "
               "context, distractors, card, collection, status, ps, record, written_at) "
               f"VALUES ({', '.join('?' * 16)})",
               (*_key().as_tuple()[:-1], "c", "historical", "finished", 0.5, "{}", 1.0))
    db.commit()
    db.close()
    with Store(tmp_path) as store:
        (row,) = store.rows()
    assert row["ps_ood"] is None and row["weak_ood"] is None and row["ps"] == 0.5 and row["noise"] == "card"
    assert row["tools"] == "none"
