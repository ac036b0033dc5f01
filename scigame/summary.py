"""Summaries of a run: ESR, PS and counts by collection × setting ×
environment × protocol (× budget × the controls noise, context and
distractors), from the store's rows.

Counts are reported apart and never folded into a mean silently:
  finished      episodes with an outcome (unfinished ones are listed apart)
  valid/invalid submissions whose predictor validated / did not
  missing       no submission at all
  undetermined  weak passes whose strict verdict sympy could not reach in time;
                they are left out of the strict ESR's denominator
Mean PS is over finished episodes, an invalid or missing answer counting 0.

The grouping axes are the episode key's fields (`axes`): a field a newer
run has and an older one lacks (say a noise level) is grouped on when any
row has it, and shown as None for the rows without it. Mean form credit (1 - normalised tree edit distance between the submitted
formula and the law, scigame.form_credit) likewise, an invalid or missing
answer counting 0; episodes recorded before form credit existed are left out.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from .intervals import by_card, card_rate_interval, cluster_bootstrap, holm, paired
from .records import EpisodeKey

#: The cell of the paper's tables, then the experimental controls with their defaults.
CELL = ("player", "collection", "setting", "environment", "protocol", "budget")
CONTROLS = EpisodeKey.CONTROL_DEFAULTS
GROUP = CELL + tuple(CONTROLS)
COLUMNS = GROUP + ("episodes", "finished", "unfinished", "weak_esr", "strict_esr", "mean_ps", "mean_form_credit", "valid",
                   "invalid", "missing", "undetermined", "protocol_breaks", "mean_ps_ood", "weak_ood",
                   "mean_ps_system", "weak_system",
                   "mean_ses", "judged", "input_tokens", "output_tokens", "cost_usd")

#: What the collections-side-by-side views show of each collection.
SIDE_BY_SIDE = ("finished", "strict_esr", "weak_esr", "mean_ps")

#: Key fields that identify an episode but are not a condition of it.
_NOT_AXES = ("card_hash", "card", "repetition")


def axes(rows: list[dict], key_fields=None) -> tuple[str, ...]:
    """The grouping axes: CELL, the controls some row sets to other than
    their default, then every other key field (`EpisodeKey`'s unless given,
    e.g. a store's primary key) that some row carries."""
    controls = [c for c, default in CONTROLS.items() if any(r.get(c, default) != default for r in rows)]
    extra = [f for f in (key_fields or EpisodeKey.model_fields) if f not in GROUP and f not in _NOT_AXES
             and any(r.get(f) is not None for r in rows)]
    return CELL + tuple(controls) + tuple(extra)


def episode_ses(judgements: list[dict]) -> dict[tuple, float]:
    """Each judged episode's SES, averaged over its judges (null SES left out)."""
    per: dict[tuple, list[float]] = defaultdict(list)
    for j in judgements:
        if j["ses"] is not None:
            per[EpisodeKey.row_key(j)].append(j["ses"])
    return {k: sum(v) / len(v) for k, v in per.items()}


def ses_values(rows: list[dict], ses: dict[tuple, float]) -> list[float]:
    """The SES of each of these rows' episodes that was judged (`episode_ses`)."""
    return [ses[k] for k in map(EpisodeKey.row_key, rows) if k in ses]


def current_rows(rows: list[dict]) -> tuple[list[dict], int]:
    """Rows of each card's latest version (by when its episodes were
    written); episodes of earlier, edited versions are left out and counted."""
    latest: dict[str, tuple[float, str]] = {}
    for r in rows:
        if r["card"] not in latest or r["written_at"] > latest[r["card"]][0]:
            latest[r["card"]] = (r["written_at"], r["card_hash"])
    kept = [r for r in rows if r["card_hash"] == latest[r["card"]][1]]
    return kept, len(rows) - len(kept)


def summarize(rows: list[dict], judgements: list[dict] | None = None,
              group: tuple[str, ...] = GROUP) -> list[dict]:
    """One row per cell of `group` (GROUP by default; `axes(rows)` for every axis)."""
    ses = episode_ses(judgements or [])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[tuple(r.get(k, CONTROLS.get(k)) for k in group)].append(r)
    out = []
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        rs = groups[key]
        done = [r for r in rs if r["status"] == "finished"]
        decided = [r for r in done if r["strict_success"] is not None]
        n = len(done)
        out.append({
            **dict(zip(group, key)),
            "episodes": len(rs),
            "finished": n,
            "unfinished": len(rs) - n,
            "weak_esr": sum(r["weak_success"] for r in done) / n if n else None,
            "strict_esr": sum(r["strict_success"] for r in decided) / len(decided) if decided else None,
            "mean_ps": sum(r["ps"] for r in done) / n if n else None,
            "mean_form_credit": mean_form_credit(done),
            "valid": sum(1 for r in done if r["valid"]),
            "invalid": sum(1 for r in done if r["submitted"] and not r["valid"]),
            "missing": sum(1 for r in done if not r["submitted"]),
            "undetermined": n - len(decided),
            "protocol_breaks": sum(1 for r in done if not r["protocol_ok"]),
            **_ood_columns([r for r in done if r.get("ps_ood") is not None]),
            **_system_columns([r for r in done if r.get("ps_system") is not None]),
            **_ses_columns(ses_values(done, ses)),
            "input_tokens": sum(r["input_tokens"] or 0 for r in done),
            "output_tokens": sum(r["output_tokens"] or 0 for r in done),
            "cost_usd": sum(r["cost_usd"] or 0.0 for r in done),
        })
    return out


def _ood_columns(rows: list[dict]) -> dict:
    """Mean out-of-domain PS and the share passing weak out of domain, over
    the episodes of cards with an out-of-domain set (None where there are none)."""
    if not rows:
        return {"mean_ps_ood": None, "weak_ood": None}
    return {"mean_ps_ood": sum(r["ps_ood"] for r in rows) / len(rows),
            "weak_ood": sum(r["weak_ood"] for r in rows) / len(rows)}


def _system_columns(rows: list[dict]) -> dict:
    """Mean PS and weak share of the observables a submitted law implies, over
    the episodes of system cards (None where there are none)."""
    if not rows:
        return {"mean_ps_system": None, "weak_system": None}
    return {"mean_ps_system": sum(r["ps_system"] for r in rows) / len(rows),
            "weak_system": sum(bool(r["weak_system"]) for r in rows) / len(rows)}


def form_credit(row: dict) -> float | None:
    """An episode's form credit: its row's, else its stored record's (None if it has none)."""
    if row.get("form_credit") is not None:
        return row["form_credit"]
    record = row.get("record")
    if not record:
        return None
    try:
        data = json.loads(record)
    except (ValueError, TypeError, RecursionError):
        return None  # a damaged record: the report names it (Store.read_episode)
    outcome = (data.get("outcome") if isinstance(data, dict) else None) or {}
    value = outcome.get("form_credit") if isinstance(outcome, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def mean_form_credit(rows: list[dict]) -> float | None:
    values = [v for v in map(form_credit, rows) if v is not None]
    return sum(values) / len(values) if values else None


def _ses_columns(values: list[float]) -> dict:
    return {"mean_ses": sum(values) / len(values) if values else None, "judged": len(values)}


def failure_counts(rows: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        if r["status"] == "finished" and r["failure_mode"]:
            counts[r["failure_mode"]] += 1
    return dict(sorted(counts.items()))


def spend_summary(store) -> dict:
    """The run's spend: `spent_usd` over every attempt (faults, kills and
    resumes included), `spent_on_finished_usd` on the finished episodes'
    stored attempts, and how many calls had estimated tokens."""
    total = store.spent()
    return {"spent_usd": total.cost_usd, "spent_on_finished_usd": store.spent_on_finished(),
            "calls": total.calls, "input_tokens": total.input_tokens, "output_tokens": total.output_tokens,
            "estimated_calls": total.estimated, "attempts": len(store.attempt_rows())}


def spend_text(spend: dict) -> str:
    """One line for people (eval and report print it)."""
    text = (f"spent ${spend['spent_usd']:.4f} over {spend['attempts']} attempts and {spend['calls']} calls "
            f"(every attempt counted); spent on finished episodes ${spend['spent_on_finished_usd']:.4f}")
    if spend["estimated_calls"]:
        text += (f"; {spend['estimated_calls']} calls estimated (the endpoint reported no usage), "
                 "so these figures are estimates")
    return text


def write_summary(folder: Path, rows: list[dict], judgements: list[dict] | None = None,
                  spend: dict | None = None) -> list[dict]:
    table = summarize(rows, judgements)
    buf = io.StringIO()
    # COLUMNS first, then what only some runs have (e.g. mean_form_credit)
    writer = csv.DictWriter(buf, fieldnames=list(dict.fromkeys([*COLUMNS, *(k for r in table for k in r)])))
    writer.writeheader()
    writer.writerows(table)
    from .compiler.atomic import write_atomic
    write_atomic(folder / "summary.csv", buf.getvalue())
    write_atomic(folder / "summary.json", json.dumps(
        {"groups": table, "collections": by_collection(table),
         "failure_modes": failure_counts(rows), "usage": usage_table(rows),
         **({"spend": spend} if spend is not None else {})}, indent=2))
    return table


def per_card(rows: list[dict]) -> list[dict]:
    """Weak and strict ESR per card × setting × environment (all protocols)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] == "finished":
            groups[(r["card"], r["setting"], r["environment"])].append(r)
    out = []
    for (card, setting, env), rs in sorted(groups.items()):
        decided = [r for r in rs if r["strict_success"] is not None]
        out.append({"card": card, "setting": setting, "environment": env, "episodes": len(rs),
                    "weak_esr": sum(r["weak_success"] for r in rs) / len(rs),
                    "strict_esr": (sum(r["strict_success"] for r in decided) / len(decided)) if decided else None,
                    "mean_ps": sum(r["ps"] for r in rs) / len(rs),
                    "mean_form_credit": mean_form_credit(rs)})
    return out


def finished_groups(rows: list[dict], group: tuple[str, ...]) -> dict[tuple, list[dict]]:
    """The finished episodes' rows by their values of `group`."""
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] == "finished":
            out[tuple(r.get(k) for k in group)].append(r)
    return out


def sample_counts(done: list[dict]) -> dict:
    """What a cell's finished episodes hold: its cards, the repetitions per
    card, the cards whose repetitions all gave the same outcome, and the
    strict (of decided episodes) and weak successes with their counts."""
    decided = [r for r in done if r["strict_success"] is not None]
    outcomes: dict[str, list] = defaultdict(list)
    for r in done:
        outcomes[r["card"]].append((r["weak_success"], r["strict_success"], r["ps"]))
    return {"cards": len(outcomes), "reps": max(map(len, outcomes.values()), default=0),
            "identical": sum(1 for v in outcomes.values() if len(set(v)) == 1),
            "strict_k": sum(bool(r["strict_success"]) for r in decided), "strict_n": len(decided),
            "weak_k": sum(bool(r["weak_success"]) for r in done), "weak_n": len(done)}


#: Scores a cell has only for some cards: (summary key, episode key).
EXTRA_SCORES = (("mean_ps_ood", "ps_ood"), ("weak_ood", "weak_ood"),
                ("mean_ps_system", "ps_system"), ("weak_system", "weak_system"))


def cell_intervals(row: dict, done: list[dict], ses: dict[tuple, float]) -> dict:
    """The 95% intervals beside a summary row's rates and means, from its
    cell's finished episodes, the card as the unit (scigame/intervals.py)."""
    decided = [r for r in done if r["strict_success"] is not None]
    out = {"strict_esr_ci": card_rate_interval(by_card(decided, lambda r: bool(r["strict_success"]))),
           "weak_esr_ci": weak_rate(done)[1] if done else None,
           "mean_ps_ci": mean_interval(done, "ps"),
           "mean_ses_ci": cluster_bootstrap(by_card(done, lambda r: ses.get(EpisodeKey.row_key(r))))}
    if "mean_form_credit" in row:
        out["mean_form_credit_ci"] = mean_interval(done, "form_credit")
    for key, score in EXTRA_SCORES:  # out-of-domain and system scores, where a cell has them
        if row.get(key) is not None:
            out[f"{key}_ci"] = (cluster_bootstrap if key.startswith("mean") else card_rate_interval)(
                by_card(done, lambda r, s=score: r.get(s)))
    return out


def cells(rows: list[dict], judgements: list[dict], group: tuple[str, ...]) -> list[dict]:
    """summarize()'s rows, each with its cell's cards and repetitions
    (`sample_counts`) and a 95% interval beside every rate and mean."""
    ses = episode_ses(judgements)
    members = finished_groups(rows, group)
    out = []
    for row in summarize(rows, judgements, group):
        done = members.get(tuple(row[k] for k in group), [])
        row.update(sample_counts(done), **cell_intervals(row, done, ses))
        out.append(row)
    return out


def weak_rate(rows: list[dict]) -> tuple[float, tuple | None]:
    """The weak ESR of episodes and its 95% interval over their cards."""
    return (sum(bool(r["weak_success"]) for r in rows) / len(rows),
            card_rate_interval(by_card(rows, lambda r: bool(r["weak_success"]))))


def mean_interval(rows: list[dict], score: str) -> tuple | None:
    """The 95% two-stage bootstrap interval of the mean of `score` over cards."""
    return cluster_bootstrap(by_card(rows, lambda r: r.get(score)))


#: What runs are compared on: (row key, label, the value of an episode).
METRICS = (("strict_esr", "strict ESR", lambda r: None if r["strict_success"] is None else bool(r["strict_success"])),
           ("weak_esr", "weak ESR", lambda r: bool(r["weak_success"])),
           ("mean_ps", "mean PS", lambda r: r["ps"]))


def paired_comparisons(rows: list[dict], players, cell_axes: tuple[str, ...]) -> list[dict]:
    """Every pair of players (runs), every cell both have, every metric:
    the paired comparison over the shared cards, Holm-adjusted per pair and metric."""
    from itertools import combinations
    members = finished_groups(rows, cell_axes + ("player",))
    cells_ = sorted({k[:-1] for k in members}, key=lambda k: tuple(map(str, k)))
    out = []
    for a, b in combinations(players, 2):
        for _, label, value in METRICS:
            found = []
            for c in cells_:
                if (*c, a) in members and (*c, b) in members:
                    res = paired(by_card(members[(*c, a)], value), by_card(members[(*c, b)], value))
                    if res is not None:
                        found.append((c, res))
            holm([res for _, res in found])
            out += [{**dict(zip(cell_axes, c)), "a": a, "b": b, "metric": label, "shared_cards": res.cards,
                     "differing": res.differing, "value_a": res.a, "value_b": res.b,
                     "difference": res.difference, "difference_ci": res.interval, "p": res.p,
                     "p_holm": res.p_adjusted, "apart": "apart" if res.apart else "–"}
                    for c, res in found]
    return out


def usage_table(rows: list[dict]) -> list[dict]:
    """Tokens and dollars by player and protocol (all episodes, finished or not)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["player"], r["protocol"])].append(r)
    return [{"player": player, "protocol": protocol, "episodes": len(rs),
             "input_tokens": sum(r["input_tokens"] or 0 for r in rs),
             "output_tokens": sum(r["output_tokens"] or 0 for r in rs),
             "cost_usd": sum(r["cost_usd"] or 0.0 for r in rs)}
            for (player, protocol), rs in sorted(groups.items())]


def judge_usage(judgements: list[dict]) -> dict:
    """Tokens and dollars the judges spent (all judges, all episodes)."""
    return {"input_tokens": sum(j["input_tokens"] or 0 for j in judgements),
            "output_tokens": sum(j["output_tokens"] or 0 for j in judgements),
            "cost_usd": sum(j["cost_usd"] or 0.0 for j in judgements)}


def judge_usage_table(judgements: list[dict]) -> list[dict]:
    """Tokens and dollars by judge and by the protocol of the judged episodes."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for j in judgements:
        groups[(j["judge"], j["protocol"])].append(j)
    return [{"judge": judge, "protocol": protocol, "episodes": len(js), **judge_usage(js)}
            for (judge, protocol), js in sorted(groups.items())]


def usage_by_who(rows: list[dict], judgements: list[dict]) -> list[dict]:
    """Tokens and dollars of every player and judge (`who`, `role`) per
    protocol, and over all protocols (protocol `all`), players first."""
    out = [{"who": u["player"], "role": "player", **u} for u in usage_table(rows)]
    out += [{"who": u["judge"], "role": "judge", **u} for u in judge_usage_table(judgements)]
    for who in sorted({(r["role"], r["who"]) for r in out}):
        mine = [r for r in out if (r["role"], r["who"]) == who and r["protocol"] != "all"]
        out.append({"who": who[1], "role": who[0], "protocol": "all", "episodes": sum(r["episodes"] for r in mine),
                    **{k: sum(r[k] for r in mine) for k in ("input_tokens", "output_tokens", "cost_usd")}})
    out.sort(key=lambda r: (r["role"], r["who"], r["protocol"] == "all", r["protocol"]))
    return out


def failures_by_player(rows: list[dict], judgements: list[dict], players) -> list[dict]:
    """Per failure mode (`source` outcome or judges), its count for each
    player, and last the finished episodes of each."""
    per = {p: failure_counts([r for r in rows if r["player"] == p]) for p in players}
    judged = {p: judge_failure_counts([j for j in judgements if j["player"] == p]) for p in players}
    out = [{"source": "outcome", "mode": m, **{p: per[p].get(m, 0) for p in players}}
           for m in sorted({m for c in per.values() for m in c})]
    out += [{"source": "judges", "mode": m, **{p: judged[p].get(m, 0) for p in players}}
            for m in sorted({m for c in judged.values() for m in c})]
    finished = {p: sum(1 for r in rows if r["player"] == p and r["status"] == "finished") for p in players}
    out.append({"source": "outcome", "mode": "(finished episodes)", **finished})
    return out


def judge_failure_counts(judgements: list[dict]) -> dict[str, int]:
    """The failure modes the judges assigned (one count per judge and episode)."""
    counts: dict[str, int] = defaultdict(int)
    for j in judgements:
        if j["failure"]:
            counts[j["failure"]] += 1
    return dict(sorted(counts.items()))


def alpha_text(alpha: dict) -> str:
    """Krippendorff's alpha per criterion, for people ('–' where undefined)."""
    return ", ".join(f"{k} {'–' if v is None else f'{v:.3f}'}" for k, v in alpha.items())


def report_notes(runs) -> list[str]:
    """The lines `scigame report` prints under its tables: each folder's
    spend, the episodes of edited cards left out, the judges' spend and
    (with several judges) their agreement."""
    lines = [f"{p.folder}: {spend_text(p.spend)}" for p in runs.provenance
             if p.spend.get("calls") or p.spend.get("spent_usd")]
    stale = sum(p.stale for p in runs.provenance)
    if stale:
        lines.append(f"({stale} episodes of earlier versions of edited cards are kept in the store "
                     "but left out of this report)")
    if runs.judgements:
        from .llm.judge import agreement
        u = judge_usage(runs.judgements)
        lines.append(f"judges: {u['input_tokens']} input and {u['output_tokens']} output tokens, "
                     f"${u['cost_usd']:.4f}")
        if len({j["judge"] for j in runs.judgements}) > 1:
            lines.append("judge agreement (Krippendorff's alpha): " + alpha_text(agreement(runs.judgements)))
    return lines


@dataclass
class RunSummary:
    """A run folder's current episodes summarised (what `scigame eval` prints and writes)."""

    table: list[dict]
    failures: dict[str, int]
    usage: list[dict]
    stale: int
    spend: dict


def summarize_run(folder: Path) -> RunSummary:
    """Summarise the run folder's store over each card's latest version and
    write summary.csv and summary.json into it."""
    from .store import Store

    with Store(folder) as store:
        rows, judgements, spend = store.rows(), store.judgement_rows(), spend_summary(store)
    rows, stale = current_rows(rows)
    table = write_summary(folder, rows, judgements, spend)
    return RunSummary(table, failure_counts(rows), usage_table(rows), stale, spend)


#: The benchmark's two collections, in the order the tables put them side by side.
COLLECTIONS = ("historical", "temporal")


def by_collection(table: list[dict], keys: tuple[str, ...] = SIDE_BY_SIDE,
                  group: tuple[str, ...] = GROUP) -> list[dict]:
    """summarize()'s rows (grouped by `group`) regrouped by every axis but
    `collection`, with each collection's `keys` (and their `_ci` intervals,
    where present) side by side as `historical_<key>` and `temporal_<key>`
    (None where a collection has no episodes in that cell), as the paper's
    Table 2 shows them."""
    rest = tuple(a for a in group if a != "collection")
    out: dict[tuple, dict] = {}
    for row in table:
        cell = tuple(row.get(a) for a in rest)
        merged = out.setdefault(cell, {**dict(zip(rest, cell)),
                                       **{f"{c}_{k}": None for c in COLLECTIONS for k in keys}})
        for k in keys:
            for suffix in ("", "_ci"):
                if k + suffix in row:
                    merged[f"{row['collection']}_{k}{suffix}"] = row[k + suffix]
    return list(out.values())
