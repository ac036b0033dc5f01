"""The run store: one SQLite database per run folder, one row per episode.

Rows are keyed by (card hash, environment, setting, protocol, budget,
repetition, player, and the controls noise, context and distractors) and hold the full episode record as JSON plus the
columns summaries need. Each episode is written in its own transaction
(WAL mode), so a run killed at any moment loses at most the episodes in
flight, and rerunning the same command skips what is finished.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Iterator, Optional

from .records import Episode, EpisodeKey

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    card_hash   TEXT NOT NULL,
    environment TEXT NOT NULL,
    setting     TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    budget      INTEGER NOT NULL,
    repetition  INTEGER NOT NULL,
    player      TEXT NOT NULL,
    noise       TEXT NOT NULL DEFAULT 'card',
    context     TEXT NOT NULL DEFAULT 'full',
    distractors INTEGER NOT NULL DEFAULT 0,
    card        TEXT NOT NULL,
    collection  TEXT NOT NULL,
    status      TEXT NOT NULL,
    submitted   INTEGER,
    valid       INTEGER,
    ps          REAL,
    weak        INTEGER,
    strict      INTEGER,
    weak_success   INTEGER,
    strict_success INTEGER,
    protocol_ok INTEGER,
    failure_mode TEXT,
    steps       INTEGER,
    wall_time   REAL,
    input_tokens  INTEGER,
    output_tokens INTEGER,
    cost_usd    REAL,
    ps_ood      REAL,
    weak_ood    INTEGER,
    record      TEXT NOT NULL,
    written_at  REAL NOT NULL,
    PRIMARY KEY (card_hash, environment, setting, protocol, budget, repetition, player,
                 noise, context, distractors)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judgements (
    card_hash   TEXT NOT NULL,
    environment TEXT NOT NULL,
    setting     TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    budget      INTEGER NOT NULL,
    repetition  INTEGER NOT NULL,
    player      TEXT NOT NULL,
    noise       TEXT NOT NULL DEFAULT 'card',
    context     TEXT NOT NULL DEFAULT 'full',
    distractors INTEGER NOT NULL DEFAULT 0,
    judge       TEXT NOT NULL,
    effects     REAL,
    comparison  REAL,
    evidence    REAL,
    ses         REAL,
    unverified  INTEGER NOT NULL,
    failure     TEXT,
    input_tokens  INTEGER,
    output_tokens INTEGER,
    cost_usd    REAL,
    record      TEXT NOT NULL,
    written_at  REAL NOT NULL,
    PRIMARY KEY (card_hash, environment, setting, protocol, budget, repetition, player,
                 noise, context, distractors, judge)
);
"""

#: Columns that identify an episode, in key order, and the WHERE clause on them.
KEY_COLUMNS = EpisodeKey.COLUMNS
_WHERE_KEY = " AND ".join(f"{c}=?" for c in KEY_COLUMNS)
#: Columns added since the first store format, with what an older row means by them.
_ADDED = {"episodes": {"noise": "'card'", "context": "'full'", "distractors": "0", "ps_ood": "NULL",
                       "weak_ood": "NULL"},
          "judgements": {"noise": "'card'", "context": "'full'", "distractors": "0"}}

DB_NAME = "episodes.sqlite"


def _b(value: Optional[bool]) -> Optional[int]:
    return None if value is None else int(value)


class Store:
    """Episodes of one run folder."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        self.db = sqlite3.connect(self.path, timeout=30.0)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()
        self.db.executescript(SCHEMA)
        self.db.commit()

    def _migrate(self) -> None:
        """Bring a store written before the control columns up to date: the
        key changed, so each such table is rebuilt with its rows kept (they
        were played with the default controls)."""
        for table, added in _ADDED.items():
            have = [r[1] for r in self.db.execute(f"PRAGMA table_info({table})")]
            if not have or all(c in have for c in added):
                continue
            old = f"{table}_before_controls"
            with self.db:
                self.db.execute(f"ALTER TABLE {table} RENAME TO {old}")
                self.db.executescript(SCHEMA)
                fill = ", ".join(c if c in have else added[c] for c in self._columns(table))
                self.db.execute(f"INSERT INTO {table} ({', '.join(self._columns(table))}) SELECT {fill} FROM {old}")
                self.db.execute(f"DROP TABLE {old}")

    def _columns(self, table: str) -> list[str]:
        return [r[1] for r in self.db.execute(f"PRAGMA table_info({table})")]

    def _insert(self, table: str, values: dict) -> None:
        """INSERT OR REPLACE one row, naming its columns."""
        names = ", ".join(values)
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})",
                            tuple(values.values()))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- meta ----------------------------------------------------------------
    def set_meta(self, key: str, value) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def get_meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # -- episodes ----------------------------------------------------------------
    def status(self, key: EpisodeKey) -> Optional[tuple[str, Optional[int]]]:
        """(status, weak_success) of a stored episode, or None."""
        row = self.db.execute(f"SELECT status, weak_success FROM episodes WHERE {_WHERE_KEY}",
                              key.as_tuple()).fetchone()
        return (row[0], row[1]) if row else None

    def put(self, episode: Episode) -> None:
        """Write one episode atomically (replacing an earlier attempt)."""
        k, o = episode.key, episode.outcome
        usage = episode.spent if episode.spent.calls or not o else o.usage
        outcome = {} if o is None else {
            "submitted": _b(o.submitted), "valid": _b(o.valid), "ps": o.ps, "weak": _b(o.weak),
            "strict": _b(o.strict), "weak_success": _b(o.weak_success),
            "strict_success": _b(o.strict_success), "protocol_ok": _b(o.protocol_ok),
            "failure_mode": o.failure_mode, "steps": o.steps, "wall_time": o.wall_time,
            "ps_ood": o.ps_ood, "weak_ood": _b(o.weak_ood)}
        self._insert("episodes", {
            **dict(zip(KEY_COLUMNS, k.as_tuple())), "card": k.card, "collection": episode.collection,
            "status": episode.status, **outcome, "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens, "cost_usd": usage.cost_usd,
            "record": episode.model_dump_json(), "written_at": time.time()})

    def episodes(self, **where) -> Iterator[Episode]:
        """Stored episodes, optionally filtered by column values."""
        sql = "SELECT record FROM episodes"
        if where:
            sql += " WHERE " + " AND ".join(f"{k} = ?" for k in where)
        sql += " ORDER BY card, environment, setting, protocol, budget, repetition, player, noise, context, distractors"
        for (record,) in self.db.execute(sql, tuple(where.values())):
            yield Episode.model_validate_json(record)

    def rows(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM episodes ORDER BY card, environment, setting, protocol, "
                              "budget, repetition, player, noise, context, distractors")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    # -- judgements ---------------------------------------------------------------
    def judged(self, key: EpisodeKey, judge: str) -> bool:
        return self.db.execute(f"SELECT 1 FROM judgements WHERE {_WHERE_KEY} AND judge=?",
                               (*key.as_tuple(), judge)).fetchone() is not None

    def put_judgement(self, key: EpisodeKey, judge: str, judgement) -> None:
        u = judgement.usage
        record = json.dumps({"scores": judgement.scores, "quotes": judgement.quotes,
                             "reasons": judgement.reasons, "failure": judgement.failure,
                             "unverified": judgement.unverified, "raw": judgement.raw,
                             "usage": u.model_dump()})
        self._insert("judgements", {
            **dict(zip(KEY_COLUMNS, key.as_tuple())), "judge": judge,
            "effects": judgement.scores["effects"], "comparison": judgement.scores["comparison"],
            "evidence": judgement.scores["evidence"], "ses": judgement.ses,
            "unverified": judgement.unverified, "failure": judgement.failure,
            "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cost_usd": u.cost_usd,
            "record": record, "written_at": time.time()})

    def judgement_rows(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM judgements ORDER BY card_hash, environment, setting, protocol, "
                              "budget, repetition, player, noise, context, distractors, judge")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def total_cost(self) -> float:
        return float(self.db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM episodes").fetchone()[0])

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
