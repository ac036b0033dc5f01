"""Reading run folders for a report: every run's rows, judgements,
episodes, compiled cards and provenance, pooled into one `Runs`.

Several folders are reported side by side. Rows are keyed by player, so
two runs of different players simply sit next to each other; the same
episode key in two folders (one player run twice) is an error, since
pooling it would count it twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..card import CompiledCard
from ..records import Episode
from ..errors import UserFacingError
from ..store import DB_NAME, Store
from ..summary import axes, current_rows, spend_summary


class RunFolderError(UserFacingError, ValueError):
    """A folder that cannot be reported; the message names the file."""


@dataclass
class Provenance:
    """Where one run folder's numbers come from."""

    folder: str
    players: list[str]
    versions: dict
    cards: dict[str, str]  # card name -> source hash, as the latest invocation compiled them
    invocations: list[dict]  # every `scigame eval` that wrote into the folder, in order
    episodes: int
    stale: int  # episodes of earlier versions of edited cards, left out
    spent_usd: float  # the folder's total, unfinished episodes and judges included
    judge_usd: float
    spend: dict = field(default_factory=dict)  # summary.spend_summary: every attempt vs finished episodes


@dataclass
class Runs:
    rows: list[dict] = field(default_factory=list)
    judgements: list[dict] = field(default_factory=list)
    episodes: dict[tuple, Episode] = field(default_factory=dict)  # by the store's key
    key_fields: list[str] = field(default_factory=list)  # the stores' key columns, in order
    cards: dict[str, CompiledCard] = field(default_factory=dict)  # by source hash
    provenance: list[Provenance] = field(default_factory=list)

    @property
    def axes(self) -> tuple[str, ...]:
        return axes(self.rows, self.key_fields)

    @property
    def players(self) -> list[str]:
        return sorted({r["player"] for r in self.rows})


#: The fields of config.json and of each invocations.jsonl line that a report reads, and their types.
_INVOCATION = {"config": dict, "player": str, "versions": dict, "cards": dict, "written_at": (int, float)}


def _invocation(where: str, data) -> dict:
    """One invocation record, or RunFolderError naming `where` (file[:line])."""
    if not isinstance(data, dict):
        raise RunFolderError(f"{where}: not an invocation record (a JSON object), but a {type(data).__name__}")
    for name, kind in _INVOCATION.items():
        value = data.get(name)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise RunFolderError(f"{where}: `{name}` is a {type(value).__name__}, not what scigame writes there")
    for name in ("versions", "cards"):
        if any(not isinstance(v, (str, type(None))) for v in (data.get(name) or {}).values()):
            raise RunFolderError(f"{where}: `{name}` holds values that are not text")
    return data


def _read_json(path: Path):
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path}: unreadable ({exc})") from None
    try:
        return _invocation(str(path), json.loads(text))
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, RunFolderError):
            raise
        raise RunFolderError(f"{path}: not JSON ({str(exc)[:200]})") from None


def _invocations(folder: Path) -> list[dict]:
    path = folder / "invocations.jsonl"
    if not path.exists():
        return []
    out = []
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path}: unreadable ({exc})") from None
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                data = json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise RunFolderError(f"{path}:{n}: not JSON ({str(exc)[:200]})") from None
            out.append(_invocation(f"{path}:{n}", data))
    return out


def _with_form_credit(row: dict, episode: Episode) -> dict:
    """The row, with the outcome's `form_credit` when the record has one
    and the store has no column for it."""
    if "form_credit" not in row and episode.outcome is not None:
        value = getattr(episode.outcome, "form_credit", None)
        if value is not None:
            row = {**row, "form_credit": value}
    return row


def _key_fields(store: Store) -> list[str]:
    """The episodes table's primary-key columns: the episode key as this
    store knows it (a newer scigame may key on more fields than this one)."""
    info = store.db.execute("PRAGMA table_info(episodes)").fetchall()
    return [name for _, name, *_rest, pk in sorted(info, key=lambda c: c[-1]) if pk]


def load_runs(folders: list[str | Path]) -> Runs:
    """Every folder's current rows (latest card versions), pooled."""
    from ..llm.judge import compiled_cards

    runs = Runs()
    for folder in map(Path, folders):
        if not (folder / DB_NAME).exists():
            raise RunFolderError(f"{folder} is not a run folder (no {DB_NAME})")
        with Store(folder) as store:
            rows, judgements = store.rows(), store.judgement_rows()
            spend = spend_summary(store)
            spent = spend["spent_usd"]
            fields = _key_fields(store)
        runs.key_fields += [f for f in fields if f not in runs.key_fields]
        rows, stale = current_rows(rows)
        for r in rows:
            key = tuple(sorted((k, r[k]) for k in fields))
            if key in runs.episodes:
                raise RunFolderError(f"{folder}: episode {r['card']} {r['environment']} {r['setting']} "
                                     f"{r['protocol']} B={r['budget']} rep {r['repetition']} of "
                                     f"{r['player']} is also in an earlier folder; report each run once")
            episode = store.read_episode(r.pop("record"))  # tolerates what older versions wrote
            runs.episodes[key] = episode
            runs.rows.append(_with_form_credit(r, episode))
        runs.judgements += judgements
        runs.cards.update(compiled_cards(folder))
        config = _read_json(folder / "config.json") or {}
        runs.provenance.append(Provenance(
            folder=str(folder), players=sorted({r["player"] for r in rows}),
            versions=config.get("versions") or {}, cards=config.get("cards") or {},
            invocations=_invocations(folder), episodes=len(rows), stale=stale,
            spent_usd=spent + sum(j["cost_usd"] or 0.0 for j in judgements),
            judge_usd=sum(j["cost_usd"] or 0.0 for j in judgements), spend=spend))
    return runs
