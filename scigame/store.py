"""The run store: one SQLite database per run folder, one row per episode.

Rows are keyed by (card hash, environment, setting, protocol, budget,
repetition, player, and the controls noise, context and distractors) and hold the full episode record as JSON plus the
columns summaries need. Each episode is written in its own transaction
(WAL mode), so a run killed at any moment loses at most the episodes in
flight, and rerunning the same command skips what is finished.

Beside the episodes, an archive that nothing overwrites: `attempts` holds
every time an episode was played (finished, left unfinished by a fault, or
cut off by a kill), with that attempt's record, and `calls` holds the usage
of every LLM call the moment its answer arrives. The run's spend (and
`--max-cost`) is the sum over all attempts, so a fault, a resume or a
SIGKILL never loses a dollar; `spent_on_finished()` is what the finished
episodes' final attempts cost.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Iterator, Optional, get_args

from .episode_context import CALL_LEDGER, record_call  # noqa: F401 (the ledger the runner points here)
from .errors import UserFacingError
from .records import RECORD_VERSION, Episode, EpisodeKey, Outcome, Usage, load_episode

def _sql_literal(value) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)


def _sql_type(annotation) -> str:
    """The SQLite type of a record field (bools as 0/1)."""
    args = [a for a in get_args(annotation) if a is not type(None)] or [annotation]
    return {bool: "INTEGER", int: "INTEGER", float: "REAL"}.get(args[0], "TEXT")


def _ddl(columns: dict[str, str]) -> str:
    return "".join(f"    {name:<11} {sql},\n" for name, sql in columns.items())


#: Columns that identify an episode (EpisodeKey.COLUMNS, in key order), as
#: every table keyed by an episode has them: whole numbers or text (a noise
#: level is stored as its text), the controls defaulting to the card as written.
KEY_COLUMNS = EpisodeKey.COLUMNS
_KEY_DDL = _ddl({c: ("INTEGER" if EpisodeKey.model_fields[c].annotation is int else "TEXT") + " NOT NULL"
                 + (f" DEFAULT {_sql_literal(EpisodeKey.CONTROL_DEFAULTS[c])}" if c in EpisodeKey.CONTROL_DEFAULTS
                    else "") for c in KEY_COLUMNS})
_KEY_LIST = ", ".join(KEY_COLUMNS)
#: The Outcome fields the episodes table keeps for summaries (the out-of-domain
#: ones come after the usage columns, where they were added).
_OUTCOME_COLUMNS = ("submitted", "valid", "ps", "weak", "strict", "weak_success", "strict_success", "protocol_ok",
                    "failure_mode", "steps", "wall_time")
_USAGE_SUMMARY = ("input_tokens", "output_tokens", "cost_usd")
_OOD_COLUMNS = ("ps_ood", "weak_ood", "ps_system", "weak_system")  # the system ones: system cards only
_EPISODE_DDL = _ddl({
    **{c: _sql_type(Outcome.model_fields[c].annotation) for c in _OUTCOME_COLUMNS},
    **{c: _sql_type(Usage.model_fields[c].annotation) for c in _USAGE_SUMMARY},
    **{c: _sql_type(Outcome.model_fields[c].annotation) for c in _OOD_COLUMNS}})
#: The usage an attempt sums and each call records.
_USAGE_COLUMNS = ("calls", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "cost_usd",
                  "estimated")
_CALL_COLUMNS = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "retries",
                 "estimated")
#: The two statements of Store.record_call, written once (it runs on the event loop every call).
_CALL_INSERT = (f"INSERT INTO calls (attempt, {', '.join(_CALL_COLUMNS)}, written_at) "
                f"VALUES ({', '.join('?' * (len(_CALL_COLUMNS) + 2))})")
_CALL_ADDED = tuple(c for c in _USAGE_COLUMNS if c != "calls")
_CALL_ADD = (f"UPDATE attempts SET calls = calls + 1, {', '.join(f'{c} = {c} + ?' for c in _CALL_ADDED)} "
             "WHERE id = ?")
#: How rows are listed: by card name, then the rest of the key.
_ORDER = ", ".join(["card", *(c for c in KEY_COLUMNS if c != "card_hash")])

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
{key}    card        TEXT NOT NULL,
    collection  TEXT NOT NULL,
    status      TEXT NOT NULL,
{outcome}    record      TEXT NOT NULL,
    written_at  REAL NOT NULL,
    PRIMARY KEY ({key_list})
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    id          INTEGER PRIMARY KEY,
{key}    card        TEXT NOT NULL,
    status      TEXT NOT NULL,  -- running (or killed while running), finished, unfinished
    error       TEXT NOT NULL DEFAULT '',
    calls       INTEGER NOT NULL DEFAULT 0,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd    REAL NOT NULL DEFAULT 0,
    estimated   INTEGER NOT NULL DEFAULT 0,  -- calls whose tokens were estimated (no usage reported)
    record      TEXT,
    started_at  REAL NOT NULL,
    written_at  REAL
);
CREATE INDEX IF NOT EXISTS attempts_by_key ON attempts ({key_list});
CREATE TABLE IF NOT EXISTS calls (
    attempt     INTEGER NOT NULL REFERENCES attempts(id),
    input_tokens  INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd    REAL NOT NULL,
    retries     INTEGER NOT NULL,
    estimated   INTEGER NOT NULL,
    written_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS judgements (
{key}    judge       TEXT NOT NULL,
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
    PRIMARY KEY ({key_list}, judge)
);
""".replace("{key}", _KEY_DDL).replace("{key_list}", _KEY_LIST).replace("{outcome}", _EPISODE_DDL)

#: The WHERE clause on an episode's key.
_WHERE_KEY = " AND ".join(f"{c}=?" for c in KEY_COLUMNS)
#: Columns added since the first store format, with what an older row means by them.
_CONTROLS_ADDED = {c: _sql_literal(v) for c, v in EpisodeKey.CONTROL_DEFAULTS.items()}
_ADDED = {"episodes": {**_CONTROLS_ADDED, **dict.fromkeys(_OOD_COLUMNS, "NULL")},
          "judgements": _CONTROLS_ADDED, "attempts": _CONTROLS_ADDED}

DB_NAME = "episodes.sqlite"


def _key_values(key: EpisodeKey) -> dict:
    """An episode key as the values of its columns."""
    return dict(zip(KEY_COLUMNS, key.as_tuple()))


def _first_problem(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"[:200]
    return str(exc)[:200]


def _dicts(cur: sqlite3.Cursor) -> list[dict]:
    """A query's rows as column -> value."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


class StoreError(UserFacingError):
    """A run store that cannot be opened (damaged, empty, not SQLite)."""


def _create(path: Path) -> bool:
    """Make a new, empty run store at `path` in one step: it is written
    whole (WAL mode, the schema) under a name of its own and then linked to
    `path`, so neither a process that looks at the folder meanwhile (a
    report, a second run) nor a kill half-way ever finds a 0-byte or
    half-made store there. Returns False when another process made `path`
    first (that one is used)."""
    import os
    import tempfile
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
        os.close(fd)
        try:
            db = sqlite3.connect(tmp)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(SCHEMA)
                db.commit()
            finally:
                db.close()
            try:
                os.link(tmp, path)  # never replaces: a store made meanwhile by another process stays
            except FileExistsError:
                raise
            except OSError:  # a filesystem without hard links
                if path.exists():
                    raise FileExistsError(path) from None
                os.replace(tmp, path)
        finally:
            for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
                try:
                    os.unlink(leftover)
                except FileNotFoundError:
                    pass
    except FileExistsError:
        return False
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot create a run store here ({exc})") from None
    return True


class Store:
    """Episodes of one run folder."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        existed = self.path.exists()
        if not existed:
            existed = not _create(self.path)  # False: this call made it; True: another process did first
        if existed and self.path.stat().st_size == 0:
            raise StoreError(f"{self.path} is empty (0 bytes), not a run store; move it away to start "
                             "a new run in this folder")
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0)
            if existed:  # damage behind a valid header shows here, not half-way through a report
                found = self.db.execute("PRAGMA quick_check(1)").fetchone()
                if not found or found[0] != "ok":
                    why = " ".join(str(found[0]).split())[:200] if found else "no answer"
                    raise sqlite3.DatabaseError(f"the database is damaged: {why}")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            self.db.executescript(SCHEMA)
            self.db.commit()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: not a readable run store ({exc}); move it away to start "
                             "a new run in this folder") from None

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

    def _insert(self, table: str, values: dict, replace: bool = True) -> sqlite3.Cursor:
        """INSERT (OR REPLACE) one row, naming its columns (inside the caller's transaction)."""
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        return self.db.execute(f"{verb} INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
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
            self._insert("meta", {"key": key, "value": json.dumps(value)})

    def get_meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # -- episodes ----------------------------------------------------------------
    def status(self, key: EpisodeKey) -> Optional[tuple[str, Optional[int]]]:
        """(status, weak_success) of a stored episode, or None."""
        row = self.db.execute(f"SELECT status, weak_success FROM episodes WHERE {_WHERE_KEY}",
                              key.as_tuple()).fetchone()
        return (row[0], row[1]) if row else None

    # -- the attempt archive ------------------------------------------------------
    def begin_attempt(self, key: EpisodeKey) -> int:
        """Open a new attempt of an episode; returns its id."""
        with self.db:
            cur = self._insert("attempts", {**_key_values(key), "card": key.card, "status": "running",
                                            "started_at": time.time()}, replace=False)
        return int(cur.lastrowid)

    def record_call(self, attempt: int, usage: Usage) -> None:
        """One answered call of an attempt, written at once (a kill loses none)."""
        with self.db:
            self.db.execute(_CALL_INSERT, (attempt, *(getattr(usage, c) for c in _CALL_COLUMNS), time.time()))
            self.db.execute(_CALL_ADD, (*(getattr(usage, c) for c in _CALL_ADDED), attempt))

    def attempt_usage(self, attempt: int) -> Usage:
        row = self.db.execute(f"SELECT {', '.join(_USAGE_COLUMNS)} FROM attempts WHERE id = ?",
                              (attempt,)).fetchone()
        return Usage(**dict(zip(_USAGE_COLUMNS, row))) if row else Usage()

    def finish_attempt(self, attempt: int, episode: Episode, record: Optional[str] = None) -> float:
        """Close an attempt and write its episode, in one transaction. A
        player that made no metered calls (a Python player reporting its own
        usage) has its reported usage put on the attempt: the dollars so
        added are returned (0 when the calls were metered)."""
        record = record if record is not None else episode.model_dump_json()
        spent = episode.spent if episode.spent.calls or not episode.outcome else episode.outcome.usage
        with self.db:
            metered = self.db.execute("SELECT calls FROM attempts WHERE id = ?", (attempt,)).fetchone()[0]
            added = 0.0
            if not metered and spent.cost_usd:
                self.db.execute(
                    f"UPDATE attempts SET {', '.join(f'{c} = ?' for c in _USAGE_COLUMNS)} WHERE id = ?",
                    (*(getattr(spent, c) for c in _USAGE_COLUMNS), attempt))
                added = spent.cost_usd
            self.db.execute("UPDATE attempts SET status = ?, error = ?, record = ?, written_at = ? WHERE id = ?",
                            (episode.status, episode.error, record, time.time(), attempt))
            self._put(episode, record)
        return added

    def attempt_rows(self) -> list[dict]:
        cur = self.db.execute(f"SELECT id, card, {', '.join(c for c in KEY_COLUMNS if c != 'card_hash')}, status, "
                              f"error, {', '.join(_USAGE_COLUMNS)}, started_at, written_at FROM attempts ORDER BY id")
        return _dicts(cur)

    def put(self, episode: Episode) -> None:
        """Write one episode atomically (replacing the row of an earlier
        attempt; the runner also archives each attempt, see finish_attempt)."""
        with self.db:
            self._put(episode, episode.model_dump_json())

    def _put(self, episode: Episode, record: str) -> None:
        k, o = episode.key, episode.outcome
        usage = episode.spent if episode.spent.calls or not o else o.usage
        # sqlite3 stores a bool as 0/1
        outcome = {} if o is None else o.model_dump(include={*_OUTCOME_COLUMNS, *_OOD_COLUMNS})
        self._insert("episodes", {
            **_key_values(k), "card": k.card, "collection": episode.collection, "status": episode.status,
            **outcome, **usage.model_dump(include=set(_USAGE_SUMMARY)), "record": record, "written_at": time.time()})

    def episodes(self, **where) -> Iterator[Episode]:
        """Stored episodes, optionally filtered by column values."""
        sql = "SELECT record FROM episodes"
        if where:
            sql += " WHERE " + " AND ".join(f"{k} = ?" for k in where)
        sql += f" ORDER BY {_ORDER}"
        for (record,) in self.db.execute(sql, tuple(where.values())).fetchall():
            yield self.read_episode(record)

    def read_episode(self, record) -> Episode:
        """A stored episode record (tolerating what older versions wrote), or
        a StoreError naming the store: a record that is not JSON, or one of
        another shape (a newer scigame's, or damaged)."""
        try:
            return load_episode(record)
        except (ValueError, TypeError, RecursionError) as e:
            exc = e
        try:
            data = json.loads(record)
        except (ValueError, TypeError, RecursionError):
            raise StoreError(f"{self.path}: an episode record is not JSON; the store is damaged") from None
        key = data.get("key") if isinstance(data, dict) else None
        where = (f"episode {key.get('card')} {key.get('environment')} {key.get('setting')} {key.get('protocol')} "
                 f"rep {key.get('repetition')}" if isinstance(key, dict) else "an episode record")
        version = data.get("record_version") if isinstance(data, dict) else None
        if isinstance(version, int) and not isinstance(version, bool) and version > RECORD_VERSION:
            why = f"written by a newer scigame (record version {version}; this one reads {RECORD_VERSION})"
        else:
            why = f"not an episode record this scigame can read ({_first_problem(exc)})"
        raise StoreError(f"{self.path}: {where} is {why}; report it with the scigame that wrote it") from None

    def rows(self) -> list[dict]:
        cur = self.db.execute(f"SELECT * FROM episodes ORDER BY {_ORDER}")
        return _dicts(cur)

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
        with self.db:
            self._insert("judgements", {
                **_key_values(key), "judge": judge,
                "effects": judgement.scores["effects"], "comparison": judgement.scores["comparison"],
                "evidence": judgement.scores["evidence"], "ses": judgement.ses,
                "unverified": judgement.unverified, "failure": judgement.failure,
                "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cost_usd": u.cost_usd,
                "record": record, "written_at": time.time()})

    def judgement_rows(self) -> list[dict]:
        cur = self.db.execute(f"SELECT * FROM judgements ORDER BY {_KEY_LIST}, judge")
        return _dicts(cur)

    def total_cost(self) -> float:
        """The run's spend: every attempt of every episode, plus the episode
        rows an older version wrote without an attempt archive."""
        return self.spent().cost_usd

    def spent(self) -> Usage:
        """Tokens and dollars over every attempt (see total_cost)."""
        cols = ", ".join(f"COALESCE(SUM({c}), 0)" for c in _USAGE_COLUMNS)
        archived = self.db.execute(f"SELECT {cols} FROM attempts").fetchone()
        legacy = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0) FROM episodes e WHERE NOT EXISTS (SELECT 1 FROM attempts a WHERE "
            + " AND ".join(f"a.{c} = e.{c}" for c in KEY_COLUMNS) + ")").fetchone()
        total = Usage(**dict(zip(_USAGE_COLUMNS, archived)))
        return total + Usage(input_tokens=legacy[1], output_tokens=legacy[2], cost_usd=legacy[3])

    def spent_on_finished(self) -> float:
        """What the finished episodes cost (each episode's stored attempt)."""
        return float(self.db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM episodes "
                                     "WHERE status = 'finished'").fetchone()[0])

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
