"""Reading run folders for a report: every run's rows, judgements,
episodes, compiled cards and provenance, pooled into one `Runs`.

Several folders are reported side by side, each player of each folder a
column. Rows are keyed by player, so two runs of different players simply
sit next to each other. One player in several folders (two seeds of the
baseline, say) gets one column per folder, labelled `PLAYER @ FOLDER`;
with `pool=True` (`scigame report --pool`) its folders are one column, the
later folders' repetitions numbered on after the earlier ones'. Naming one
folder twice is an error.
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
        """The columns, in the order of the folders on the command line (and by name within one)."""
        present = {r["player"] for r in self.rows}
        return list(dict.fromkeys(p for f in self.provenance for p in f.players if p in present)) or sorted(present)

    #: each column's label -> the run folders behind it
    folders: dict[str, list[str]] = field(default_factory=dict)


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


def _read_folder(folder: Path) -> tuple[list[dict], list[Episode], list[dict], dict, list[str], int]:
    """A folder's current rows, their episode records, judgements, spend, key fields and stale count."""
    if not (folder / DB_NAME).exists():
        raise RunFolderError(f"{folder} is not a run folder (no {DB_NAME})")
    with Store(folder) as store:
        rows, judgements = store.rows(), store.judgement_rows()
        spend = spend_summary(store)
        fields = _key_fields(store)
        rows, stale = current_rows(rows)
        episodes = [store.read_episode(r.pop("record")) for r in rows]  # tolerates what older versions wrote
    return rows, episodes, judgements, spend, fields, stale


def column_label(player: str, folder: str, shared: bool) -> str:
    """A player's column: its name, or `PLAYER @ FOLDER` when another folder has the same player."""
    return f"{player} @ {folder}" if shared else player


def _relabel(records: list[dict], labels: dict[str, str], offsets: dict[str, int]) -> None:
    """Each record's player as its column label, its repetition moved on by the pool's offset."""
    for r in records:
        offset = offsets.get(r["player"], 0)
        r["player"] = labels[r["player"]]
        r["repetition"] = r["repetition"] + offset


def load_runs(folders: list[str | Path], pool: bool = False) -> Runs:
    """Every folder's current rows (latest card versions), side by side
    (or one player's folders pooled)."""
    from ..llm.judge import compiled_cards

    seen: dict[Path, str] = {}
    for folder in map(Path, folders):
        if folder.resolve() in seen:
            raise RunFolderError(f"{folder}: the same run folder as {seen[folder.resolve()]}; report each run once")
        seen[folder.resolve()] = str(folder)
    read = [(Path(f), *_read_folder(Path(f))) for f in folders]
    homes: dict[str, list[str]] = {}
    for folder, rows, *_ in read:
        for p in sorted({r["player"] for r in rows}):
            homes.setdefault(p, []).append(str(folder))
    runs, next_rep = Runs(), {}
    for folder, rows, episodes, judgements, spend, fields, stale in read:
        labels = {p: column_label(p, str(folder), len(homes[p]) > 1 and not pool) for p in homes}
        offsets = {p: next_rep.get(p, 0) for p in homes} if pool else {}
        for p in {r["player"] for r in rows}:
            runs.folders.setdefault(labels[p], []).append(str(folder))
            if pool:
                next_rep[p] = offsets[p] + 1 + max(r["repetition"] for r in rows if r["player"] == p)
        _relabel(rows, labels, offsets)
        _relabel(judgements, labels, offsets)
        _add_folder(runs, folder, rows, episodes, judgements, spend, fields, stale, compiled_cards(folder))
    return runs


def _add_folder(runs: Runs, folder: Path, rows, episodes, judgements, spend, fields, stale, cards) -> None:
    runs.key_fields += [f for f in fields if f not in runs.key_fields]
    for r, episode in zip(rows, episodes):
        key = tuple(sorted((k, r[k]) for k in fields))
        episode = episode.model_copy(update={"key": episode.key.model_copy(
            update={"player": r["player"], "repetition": r["repetition"]})})
        runs.episodes[key] = episode
        runs.rows.append(_with_form_credit(r, episode))
    runs.judgements += judgements
    runs.cards.update(cards)
    config = _read_json(folder / "config.json") or {}
    runs.provenance.append(Provenance(
        folder=str(folder), players=sorted({r["player"] for r in rows}),
        versions=config.get("versions") or {}, cards=config.get("cards") or {},
        invocations=_invocations(folder), episodes=len(rows), stale=stale,
        spent_usd=spend["spent_usd"] + sum(j["cost_usd"] or 0.0 for j in judgements),
        judge_usd=sum(j["cost_usd"] or 0.0 for j in judgements), spend=spend))
