"""The run store: one SQLite database per run folder, one row per episode.

Rows are keyed by (card hash, environment, setting, protocol, budget,
repetition, player) and hold the full episode record as JSON plus the
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

from .errors import UserFacingError
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
    record      TEXT NOT NULL,
    written_at  REAL NOT NULL,
    PRIMARY KEY (card_hash, environment, setting, protocol, budget, repetition, player)
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
    PRIMARY KEY (card_hash, environment, setting, protocol, budget, repetition, player, judge)
);
"""

DB_NAME = "episodes.sqlite"


def _b(value: Optional[bool]) -> Optional[int]:
    return None if value is None else int(value)


class StoreError(UserFacingError):
    """A run store that cannot be opened (damaged, empty, not SQLite)."""


class Store:
    """Episodes of one run folder."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        if self.path.exists() and self.path.stat().st_size == 0:
            raise StoreError(f"{self.path} is empty (0 bytes), not a run store; move it away to start "
                             "a new run in this folder")
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            self.db.commit()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: not a readable run store ({exc}); move it away to start "
                             "a new run in this folder") from None

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
        row = self.db.execute(
            "SELECT status, weak_success FROM episodes WHERE card_hash=? AND environment=? AND setting=? "
            "AND protocol=? AND budget=? AND repetition=? AND player=?", key.as_tuple()).fetchone()
        return (row[0], row[1]) if row else None

    def put(self, episode: Episode) -> None:
        """Write one episode atomically (replacing an earlier attempt)."""
        k, o = episode.key, episode.outcome
        usage = episode.spent if episode.spent.calls or not o else o.usage
        row = (*k.as_tuple(), k.card, episode.collection, episode.status,
               _b(o.submitted) if o else None, _b(o.valid) if o else None, o.ps if o else None,
               _b(o.weak) if o else None, _b(o.strict) if o else None,
               _b(o.weak_success) if o else None, _b(o.strict_success) if o else None,
               _b(o.protocol_ok) if o else None, o.failure_mode if o else None,
               o.steps if o else None, o.wall_time if o else None,
               usage.input_tokens if usage else None, usage.output_tokens if usage else None,
               usage.cost_usd if usage else None, episode.model_dump_json(), time.time())
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO episodes VALUES ({', '.join('?' * len(row))})", row)

    def episodes(self, **where) -> Iterator[Episode]:
        """Stored episodes, optionally filtered by column values."""
        sql = "SELECT record FROM episodes"
        if where:
            sql += " WHERE " + " AND ".join(f"{k} = ?" for k in where)
        sql += " ORDER BY card, environment, setting, protocol, budget, repetition, player"
        for (record,) in self.db.execute(sql, tuple(where.values())):
            yield Episode.model_validate_json(record)

    def rows(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM episodes ORDER BY card, environment, setting, protocol, "
                              "budget, repetition, player")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    # -- judgements ---------------------------------------------------------------
    def judged(self, key: EpisodeKey, judge: str) -> bool:
        return self.db.execute(
            "SELECT 1 FROM judgements WHERE card_hash=? AND environment=? AND setting=? AND protocol=? "
            "AND budget=? AND repetition=? AND player=? AND judge=?", (*key.as_tuple(), judge)).fetchone() is not None

    def put_judgement(self, key: EpisodeKey, judge: str, judgement) -> None:
        u = judgement.usage
        record = json.dumps({"scores": judgement.scores, "quotes": judgement.quotes,
                             "reasons": judgement.reasons, "failure": judgement.failure,
                             "unverified": judgement.unverified, "raw": judgement.raw,
                             "usage": u.model_dump()})
        row = (*key.as_tuple(), judge, judgement.scores["effects"], judgement.scores["comparison"],
               judgement.scores["evidence"], judgement.ses, judgement.unverified, judgement.failure,
               u.input_tokens, u.output_tokens, u.cost_usd, record, time.time())
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO judgements VALUES ({', '.join('?' * len(row))})", row)

    def judgement_rows(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM judgements ORDER BY card_hash, environment, setting, protocol, "
                              "budget, repetition, player, judge")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def total_cost(self) -> float:
        return float(self.db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM episodes").fetchone()[0])

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
