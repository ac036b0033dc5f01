"""The explanation judge: scores each finished episode's final explanation.

Three criteria, each 0, 0.5, 1 or null (nothing to assess): the effects of
inputs on outputs, a valid controlled comparison or scaling consequence,
and staying within the evidence. The reference is the law of the world that
was played (the counterfactual's in a counterfactual episode). Every
non-null score must quote the transcript; the quote is checked here, and an
unverifiable quote (one not in the transcript, or too short to be evidence:
see `quote_found`) turns the score into null (and is counted). SES is the
mean of the non-null criteria. With several judges, agreement is reported as
Krippendorff's alpha (interval metric).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

from ..card import CompiledCard
from ..records import Episode, EpisodeKey, Usage
from .client import ChatClient, EndpointFault
from .conversation import converse
from .prompts import JUDGE_SYSTEM, judge_message, neutralise_markers, reply_object

CRITERIA = ("effects", "comparison", "evidence")
SCORES = (0.0, 0.5, 1.0)
JUDGE_FAILURES = ("evidence_misreading", "explanation_mismatch")
#: A quote is evidence only if one verified piece of it has at least this many
#: words and characters (after folding whitespace): "x" or "F" is in every
#: transcript and shows nothing.
MIN_QUOTE_WORDS = 3
MIN_QUOTE_CHARS = 12


@lru_cache(maxsize=1)
def judge_schema() -> dict:
    """The JSON Schema of a grade (built once and shared: do not modify)."""
    criterion = {"type": "object", "properties": {
        "score": {"anyOf": [{"type": "number", "enum": list(SCORES)}, {"type": "null"}]},
        "quote": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["score", "quote", "reason"], "additionalProperties": False}
    return {"type": "object",
            "properties": {**{c: criterion for c in CRITERIA},
                           "failure": {"anyOf": [{"type": "string", "enum": list(JUDGE_FAILURES)},
                                                 {"type": "null"}]}},
            "required": [*CRITERIA, "failure"], "additionalProperties": False}


def _fmt(v) -> str:
    """A number for the transcript; anything an older version stored (a null,
    an integer too large for a float) is shown as written."""
    try:
        return f"{v:.6g}"
    except (TypeError, ValueError, OverflowError):
        return "null" if v is None else str(v)[:40]


def _tree_line(tree) -> str:
    from ..compiler.trees import tree_text
    try:
        return tree_text(tree)
    except (KeyError, TypeError, ValueError, OverflowError, RecursionError, IndexError, AttributeError):
        try:
            return json.dumps(tree)[:500]
        except (TypeError, ValueError, RecursionError):
            return "(a predictor too deeply nested to show)"


def render_transcript(episode: Episode) -> str:
    """The episode as text for the judge (and the text quotes must come from)."""
    t = episode.task
    lines = [f"Setting: {episode.key.setting}; protocol: {episode.key.protocol}.",
             f"Background: {t.get('background', '')}"]
    for i in t.get("inputs", []):
        lines.append(f"Input {i['name']} [{i['unit']}] in {i.get('domain_text', '')}: {i.get('description', '')}")
    for o in t.get("outputs", []):
        lines.append(f"Output {o['name']} [{o['unit']}]: {o.get('description', '')}")
    for name, cand in (t.get("candidates") or {}).items():
        lines.append(f"Candidate for {name}: {cand['text']}")
    from ..system_transcript import system_lines, trajectory_lines
    lines += system_lines(t)
    for obs in episode.given:
        lines.append("Given observation: " + _obs_text(obs.inputs, obs.outputs))
    for turn in episode.turns:
        a = turn.action
        if a is None:
            continue
        lines.append(f"Turn {turn.index}:")
        for h_i, h in enumerate(a.hypotheses):
            lines.append(f"  Hypothesis {h_i} (confidence {_fmt(h.confidence)}): {h.statement}")
        if a.notes:
            lines.append(f"  Notes: {a.notes}")
        if a.experiment is not None:
            lines.append("  Proposed experiment: " + ", ".join(f"{k}={_fmt(v)}" for k, v in a.experiment.inputs.items()))
        if turn.response is not None:
            if turn.response.observation is not None:
                o = turn.response.observation
                lines.append("  Observed: " + _obs_text(o.inputs, o.outputs))
            if turn.response.rejected:
                lines.append("  Rejected: " + "; ".join(turn.response.rejected))
        if a.submission is not None:
            s = a.submission
            lines.append(f"  Submitted hypothesis {s.selected}.")
            for out, tree in s.predictor.items():
                lines.append(f"  Predictor {out} = {_tree_line(tree)}")
            lines.append(f"  Explanation: {s.explanation}")
            lines.append(f"  Applicability: {s.applicability}")
    observed = list(episode.given) + [turn.response.observation for turn in episode.turns
                                      if turn.response is not None and turn.response.observation is not None]
    lines += trajectory_lines(t, observed)
    return neutralise_markers("\n".join(lines))


def _obs_text(inputs: dict, outputs: dict) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in inputs.items()) + " -> " + \
        ", ".join(f"{k}={_fmt(v)}" for k, v in outputs.items())


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip("\"'“”").lower()


def quote_found(quote: str, transcript: str) -> bool:
    """Is the quote real evidence from the transcript? Every piece (an
    ellipsis may join pieces) must be in it, whitespace and case folded, and
    the longest piece must have at least MIN_QUOTE_WORDS words and
    MIN_QUOTE_CHARS characters."""
    pieces = [_normalise(p) for p in re.split(r"\.\.\.|…", quote) if _normalise(p)]
    if not pieces:
        return False
    longest = max(pieces, key=len)
    if len(longest) < MIN_QUOTE_CHARS or len(longest.split()) < MIN_QUOTE_WORDS:
        return False
    text = _normalise(transcript)
    return all(p in text for p in pieces)


@dataclass
class Judgement:
    scores: dict[str, Optional[float]]
    quotes: dict[str, str]
    reasons: dict[str, str]
    unverified: int  # non-null scores whose quote was not in the transcript (made null)
    failure: Optional[str]
    usage: Usage = field(default_factory=Usage)
    raw: str = ""

    @property
    def ses(self) -> Optional[float]:
        values = [v for v in self.scores.values() if v is not None]
        return sum(values) / len(values) if values else None


def parse_judgement(text: str, transcript: str) -> tuple[Optional[Judgement], str]:
    data, problem = reply_object(text)
    if data is None:
        return None, problem
    scores, quotes, reasons, unverified = {}, {}, {}, 0
    for c in CRITERIA:
        item = data.get(c)
        if not isinstance(item, dict) or "score" not in item:
            return None, f"`{c}` must be an object with score, quote and reason"
        score = item["score"]
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                  or float(score) not in SCORES):
            return None, f"`{c}.score` must be 0, 0.5, 1 or null"
        quote = str(item.get("quote") or "")
        if score is not None and not quote_found(quote, transcript):
            unverified += 1
            score = None
        scores[c] = None if score is None else float(score)
        quotes[c], reasons[c] = quote, str(item.get("reason") or "")
    failure = data.get("failure")
    if failure not in (None, *JUDGE_FAILURES):
        return None, f"`failure` must be null or one of {', '.join(JUDGE_FAILURES)}"
    return Judgement(scores, quotes, reasons, unverified, failure, raw=text), ""


def reference_text(card: CompiledCard, env: str) -> str:
    e = card.data.environments[env]
    units = {o.name: o.unit for o in card.data.outputs}
    ins = ", ".join(f"{s.name} [{s.unit}]" for s in card.data.inputs)
    return "\n".join(f"{out} [{units[out]}] = {text}" for out, text in e.law_text.items()) + f"\n(inputs: {ins})"


async def judge_episode(client: ChatClient, card: CompiledCard, episode: Episode) -> Judgement:
    """One judge's verdict on one episode (bounded corrections of bad replies;
    with none usable, every score is null). An EndpointFault propagates."""
    transcript = render_transcript(episode)
    messages = [{"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": judge_message(reference_text(card, episode.key.environment),
                                                          transcript)}]
    exchange = await converse(client, messages, lambda text: parse_judgement(text, transcript),
                              schema=judge_schema(), schema_name="judgement")
    if exchange.value is None:
        return Judgement({c: None for c in CRITERIA}, {}, {}, 0, None, usage=exchange.usage,
                         raw=f"no usable judgement: {exchange.problem}")
    exchange.value.usage = exchange.usage
    return exchange.value


def krippendorff_alpha(units: list[list[Optional[float]]]) -> Optional[float]:
    """Krippendorff's alpha, interval metric, for units rated by several
    coders (None = missing). None when it is undefined (no pairable values
    or no variation)."""
    values = [[v for v in u if v is not None] for u in units]
    values = [u for u in values if len(u) >= 2]
    n = sum(len(u) for u in values)
    if n < 2:
        return None
    d_o = sum(sum((a - b) ** 2 for i, a in enumerate(u) for j, b in enumerate(u) if i != j) / (len(u) - 1)
              for u in values) / n
    pooled = [v for u in values for v in u]
    d_e = sum((a - b) ** 2 for i, a in enumerate(pooled) for j, b in enumerate(pooled) if i != j) / (n * (n - 1))
    if d_e == 0:
        return None
    return 1.0 - d_o / d_e


# ---- judging a run ---------------------------------------------------------------

@dataclass
class JudgeReport:
    judged: int = 0
    skipped: int = 0
    unfinished: int = 0  # infrastructure faults outlasted retries: judged next time
    unverified: int = 0
    auth_error: str = ""
    errors: list[str] = field(default_factory=list)  # episodes a bug kept from being judged


def compiled_cards(run_dir: Path) -> dict[str, CompiledCard]:
    """The run's compiled cards by source hash."""
    out = {}
    for manifest in sorted((run_dir / "cards").rglob("manifest.json")):
        try:
            card = CompiledCard(manifest.parent)
        except Exception:  # a damaged folder: its episodes are reported as unjudgeable
            continue
        out[card.data.source_sha256] = card
    return out


async def judge_run(run_dir: Path, judges: list[tuple[str, ChatClient]], concurrency: int = 4,
                    force: bool = False, on_progress=None) -> JudgeReport:
    """Judge every finished episode with a submission, once per judge."""
    from ..store import Store
    from .client import AuthFailure, gather_until_auth_failure

    report = JudgeReport()
    cards = compiled_cards(run_dir)
    with Store(run_dir) as store:
        episodes = [e for e in store.episodes() if e.status == "finished" and e.outcome is not None
                    and e.outcome.submitted and e.key.card_hash in cards]
        todo = []
        for e in episodes:
            for name, client in judges:
                if not force and store.judged(e.key, name):
                    report.skipped += 1
                else:
                    todo.append((e, name, client))
        if on_progress:
            on_progress("plan", report.skipped, report.skipped + len(todo))
        semaphore = asyncio.Semaphore(max(1, concurrency))

        async def one(e: Episode, name: str, client: ChatClient):
            async with semaphore:
                try:
                    j = await judge_episode(client, cards[e.key.card_hash], e)
                except EndpointFault:
                    report.unfinished += 1
                    return
                except AuthFailure:
                    raise
                except Exception as exc:  # noqa: BLE001 - one episode must not stop the judging of the rest
                    report.unfinished += 1
                    report.errors.append(f"{e.key.label}: {type(exc).__name__}: {str(exc)[:300]}")
                    return
            store.put_judgement(e.key, name, j)
            report.judged += 1
            report.unverified += j.unverified
            if on_progress:
                on_progress("done", report.skipped + report.judged + report.unfinished, report.skipped + len(todo))

        try:
            report.auth_error = await gather_until_auth_failure([asyncio.create_task(one(*t)) for t in todo])
        finally:
            for _, client in judges:
                await client.close()
    return report


def agreement(judgement_rows: list[dict]) -> dict[str, Optional[float]]:
    """Krippendorff's alpha per criterion and for SES across judges."""
    by_episode: dict[tuple, dict[str, dict]] = {}
    judges = sorted({r["judge"] for r in judgement_rows})
    for r in judgement_rows:
        by_episode.setdefault(EpisodeKey.row_key(r), {})[r["judge"]] = r
    out = {}
    for column in (*CRITERIA, "ses"):
        units = [[rows.get(j, {}).get(column) for j in judges] for rows in by_episode.values()]
        out[column] = krippendorff_alpha(units) if len(judges) > 1 else None
    return out
