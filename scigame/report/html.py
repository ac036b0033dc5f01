"""The report as one self-contained HTML page: tables, inline SVG figures,
a drill-down per card (its law in both worlds, every episode's outcome and
transcript) and the runs' provenance.

No script, no font, no network: a Content-Security-Policy of
`default-src 'none'` forbids every load, styles are allowed by hash only,
figures are inline SVG, formulas are MathML, and the drill-down is
`<details>`. Every untrusted string reaches the page through `markup`
(`_e` is `markup.text`); see that module for the policy.
"""

from __future__ import annotations

import json
import time

from .. import __version__
from ..records import Episode
from .data import Runs
from .formats import cell
from .formula import formula_html
from ..intervals import ADJUSTMENT, ALPHA, CONFIDENCE, RESAMPLES, SEED, TEST
from .markup import content_security_policy, ident
from .markup import text as _e
from .plots import Figure
from .tables import Table
from .trajectories import trajectories_html

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem auto;max-width:1400px;
padding:0 1rem;color:#1b1f24;line-height:1.4;box-sizing:border-box}
h1{font-size:1.6rem}h2{border-bottom:1px solid #ccd;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0;max-width:100%}
caption{caption-side:top;text-align:left;font-weight:600;padding:.2rem 0;font-size:.9rem}
caption .fixed{display:block;font-weight:400;color:#556}
th,td{border:1px solid #d4d7dd;padding:.15rem .35rem;vertical-align:top}
th{background:#eef1f5;position:sticky;top:0;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:normal}
td.n .v,td.n .ci{white-space:nowrap}td.n .ci{color:#556}
tr:nth-child(even) td{background:#fafbfc}.note{color:#6a4a00;background:#fff8e1;padding:.3rem .5rem;
margin:.3rem 0;font-size:.85rem}.legend{font-size:.8rem;color:#445;margin:.2rem 0 .8rem}
figure{margin:1.5rem 0 1rem}figcaption{font-weight:600;margin-bottom:.3rem}
details{margin:.3rem 0 .3rem .5rem}summary{cursor:pointer}.ok{color:#0a6b2d}.bad{color:#a3161b}
.muted{color:#667}pre{background:#f4f5f7;padding:.4rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}
nav a{margin-right:.8rem}figure svg{max-width:100%;height:auto}.scroll{max-width:100%}
math.formula{font-size:1.2rem}ul.hypotheses{list-style:none;padding-left:.5rem}.turn{border-left:3px solid #ccd;
padding-left:.5rem;margin:.4rem 0}code.law{white-space:pre-wrap}
"""


def _cell_html(row: dict, col) -> str:
    """A cell; a value and its interval may wrap between them, never inside a number."""
    text = cell(row, col)
    if col.kind in ("rate", "mean", "diff") and " [" in text:
        value, _, ci = text.partition(" [")
        return f'<span class="v">{_e(value)}</span> <span class="ci">[{_e(ci)}</span>'
    return _e(text)


def table_html(t: Table, number: int | None = None) -> str:
    """A table with its caption above it: the title, then the columns whose value
    is the same in every row (said once rather than in every row), then the legend and notes."""
    texts = [[cell(r, c) for c in t.columns] for r in t.rows]
    fixed = [i for i, c in enumerate(t.columns)
             if c.kind == "text" and len(texts) > 1 and len({r[i] for r in texts}) == 1]
    cols = [c for i, c in enumerate(t.columns) if i not in fixed]
    head = "".join(f"<th>{_e(c.label)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(
        f'<td class="{"" if c.kind == "text" else "n"}">{_cell_html(r, c)}</td>' for c in cols) + "</tr>"
        for r in t.rows)
    said = "; ".join(f"{t.columns[i].label}: {texts[0][i]}" for i in fixed)
    caption = (f"{f'Table {number}. ' if number else ''}{_e(t.title)}"
               + (f'<span class="fixed">in every row: {_e(said)}</span>' if said else ""))
    legend = "; ".join(dict.fromkeys(f"{c.label}: {c.legend}" for c in cols if c.legend))
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in t.notes)
    return (f'<div class="scroll"><table id="table-{t.name}" data-rows="{len(t.rows)}"><caption>{caption}'
            f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
            + (f'<p class="legend">{_e(legend)}</p>' if legend else "") + notes)


def _figure_html(f: Figure, number: int | None = None) -> str:
    """A figure with its caption above it (the caption names it; it is not read as the next figure's title)."""
    caption = f"{f'Figure {number}. ' if number else ''}{_e(f.title)}"
    return f'<figure id="fig-{f.name}" class="figure"><figcaption>{caption}</figcaption>{f.svg()}</figure>'


def _card_text(d) -> list[str]:
    """The card's own `law` lines, read from its source when the file there is
    still the compiled text (same hash); empty when it is not."""
    from pathlib import Path

    from ..compiler.source import content_hash
    try:
        text = Path(d.source_path).read_text("utf-8")
    except (OSError, ValueError):
        return []
    if content_hash(text) != d.source_sha256:
        return []
    import re
    body = re.split(r"^\s*counterfactual\b", text, maxsplit=1, flags=re.M)[0]
    return [ln.strip() for ln in body.splitlines() if ln.strip().startswith("law ")]


def _law_html(card) -> str:
    """Both worlds' laws as the card writes them (its `law` lines, and the
    counterfactual's mutations), then as evaluated with the params' values."""
    d = card.data
    own = _card_text(d)
    mutations = [m.text for m in d.mutations]
    rows = []
    for env_name in ("original", "counterfactual"):
        env = d.environments.get(env_name)
        if env is None:
            continue
        params = ", ".join(f"{p.name} = {p.value_si:g}{'' if p.unit == '1' else ' ' + p.unit}"
                           for p in env.params) or "none"
        evaluated = "; ".join(f"{out} = {text}" for out, text in env.law_text.items())
        written = own or [f"law {evaluated}"]
        if env_name == "counterfactual":
            written = written + mutations
        rows.append(f"<tr><td>{env_name}</td><td><code class=\"law\">{_e(chr(10).join(written))}</code></td>"
                    f"<td><code>{_e(evaluated)}</code></td><td>{_e(params)}</td></tr>")
    ins = ", ".join(f"{s.name} [{s.unit}]" for s in d.inputs)
    outs = ", ".join(f"{o.name} [{o.unit}]" for o in d.outputs)
    mutation = "; ".join(f"{m.kind} {m.target}: {m.text}" for m in d.mutations)
    return (f'<p>{_e(d.title)} ({_e(d.collection)}, {_e(d.field)}). Inputs: {_e(ins)}; outputs: {_e(outs)}. '
            f'Counterfactual: {_e(d.counterfactual_label)} <span class="muted">({_e(mutation)})</span>. '
            f'Source hash <code>{_e(d.source_sha256[:16])}</code>.</p>'
            '<table class="law"><caption>The law in both worlds</caption><thead><tr><th>world</th>'
            "<th>the card's text</th><th>with the params' values</th><th>params (SI)</th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _num(v: float) -> str:
    return f"{v:.6g}"


def _obs(values: dict) -> str:
    return ", ".join(f"{_e(k)}={_num(v)}" for k, v in values.items())


def _turn_html(turn) -> str:
    a = turn.action
    parts = [f'<div class="turn"><b>Turn {turn.index}</b>']
    if turn.malformed:
        parts.append(f' <span class="bad">malformed: {_e(turn.malformed)}</span>')
    if turn.tool is not None:
        t = turn.tool
        ended = f'<span class="bad">{_e(t.error)}</span>' if t.error else "ran to its end"
        parts.append(f' tool call <code>{_e(t.name)}</code> ({t.cpu_seconds:.2f} CPU s, {t.wall_seconds:.2f} s): '
                     f"{ended}<pre>{_e(t.code)}</pre><pre>{_e(t.output)}</pre>")
    if a is not None:
        hyps = "".join(f"<li>[{i}] confidence {h.confidence:.2f}: {_e(h.statement)}</li>"
                       for i, h in enumerate(a.hypotheses))
        parts.append(f'<ul class="hypotheses">{hyps}</ul>')
        if a.notes:
            parts.append(f'<p class="muted">notes: {_e(a.notes)}</p>')
        if a.experiment is not None:
            parts.append(_experiment_html(a.experiment, turn.response))
        if a.submission is not None:
            s = a.submission
            formulas = "<br>".join(formula_html(out, tree) for out, tree in s.predictor.items())
            parts.append(f"<p>Submitted hypothesis [{s.selected}]:<br>{formulas}</p>"
                         f"<p>Explanation: {_e(s.explanation)}<br>Applicability: {_e(s.applicability)}</p>")
    if turn.breaks:
        parts.append(f'<p class="bad">protocol breaks: {_e("; ".join(turn.breaks))}</p>')
    return "".join(parts) + "</div>"


def _experiment_html(exp, response) -> str:
    """The proposed inputs, each hypothesis's forecast and the observation, side by side."""
    obs = response.observation if response is not None else None
    head = "<tr><th>output</th>" + "".join(f"<th>forecast [{i}]</th>" for i in range(len(exp.predictions)))
    head += "<th>observed</th></tr>"
    rows = ""
    for out in exp.outputs:
        forecasts = "".join(f'<td class="n">{_num(p[out]) if out in p else "–"}</td>' for p in exp.predictions)
        seen = _num(obs.outputs[out]) if obs is not None and out in obs.outputs else "–"
        rows += f'<tr><td>{_e(out)}</td>{forecasts}<td class="n">{seen}</td></tr>'
    rejected = ""
    if response is not None and response.rejected:
        rejected = f'<p class="bad">rejected: {_e("; ".join(response.rejected))}</p>'
    return (f"<p>Experiment at {_obs(exp.inputs)}</p><table class=\"experiment\"><thead>{head}</thead>"
            f"<tbody>{rows}</tbody></table>{rejected}")


def _outcome_text(e: Episode) -> str:
    o = e.outcome
    if e.status != "finished" or o is None:
        return f"unfinished: {e.error}"
    strict = "undetermined" if o.strict_success is None else ("pass" if o.strict_success else "fail")
    extra = f", form credit {o.form_credit:.3f}" if getattr(o, "form_credit", None) is not None else ""
    return (f"PS {o.ps:.3f}, weak {'pass' if o.weak_success else 'fail'}, strict {strict}, "
            f"{'valid' if o.valid else ('invalid' if o.submitted else 'missing')}, "
            f"{o.steps} steps{extra}{', ' + o.failure_mode if o.failure_mode else ''}")


def _episode_html(e: Episode) -> str:
    k = e.key
    ok = e.outcome is not None and e.outcome.weak_success
    label = (_e(f"{k.player} · {k.environment} · {k.setting} · {k.protocol} B={k.budget} · rep {k.repetition}")
             + ": "
             f'<span class="{"ok" if ok else "bad"}">{_e(_outcome_text(e))}</span>')
    given = "".join(f"<li>{_obs(g.inputs)} → {_obs(g.outputs)}</li>" for g in e.given)
    given = f"<p>Given observations:</p><ul>{given}</ul>" if given else ""
    reason = ""
    if e.outcome is not None and (e.outcome.reason or e.outcome.strict_reason):
        reason = f'<p class="muted">{_e(e.outcome.reason)} {_e(e.outcome.strict_reason)}</p>'
    turns = "".join(_turn_html(t) for t in e.turns)
    observed = list(e.given) + [t.response.observation for t in e.turns
                                if t.response is not None and t.response.observation is not None]
    trajectories = trajectories_html(e.task, observed)
    return f'<details class="episode"><summary>{label}</summary>{given}{turns}{trajectories}{reason}</details>'


def _cards_html(runs: Runs) -> str:
    by_card: dict[str, list[Episode]] = {}
    for e in runs.episodes.values():
        by_card.setdefault(e.key.card_hash, []).append(e)
    parts = []
    for h, episodes in sorted(by_card.items(), key=lambda kv: kv[1][0].key.card):
        name = episodes[0].key.card
        solved = sum(1 for e in episodes if e.outcome is not None and e.outcome.weak_success)
        card = runs.cards.get(h)
        law = _law_html(card) if card is not None else '<p class="bad">the compiled card is not in the run folder</p>'
        eps = "".join(_episode_html(e) for e in sorted(
            episodes, key=lambda e: (e.key.player, e.key.environment, e.key.setting, e.key.protocol,
                                     e.key.budget, e.key.repetition)))
        parts.append(f'<details class="card" id="card-{ident(name)}"><summary><b>{_e(name)}</b> — {len(episodes)} '
                     f"episodes, {solved} weak successes</summary>{law}{eps}</details>")
    return "".join(parts)


def _provenance_html(runs: Runs) -> str:
    parts = []
    for p in runs.provenance:
        versions = ", ".join(f"{k} {v}" for k, v in p.versions.items())
        cards = "".join(f"<tr><td>{_e(n)}</td><td><code>{_e(h)}</code></td></tr>" for n, h in sorted(p.cards.items()))
        invs = "".join(
            f"<details><summary>{_e(time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(i.get('written_at', 0))))}"
            f" — {_e(i.get('player', ''))}</summary><pre>{_e(json.dumps(i.get('config', {}), indent=1))}</pre>"
            "</details>" for i in p.invocations)
        parts.append(
            f'<section class="run"><h3>{_e(p.folder)}</h3><p>players: {_e(", ".join(p.players))}; '
            f"{p.episodes} episodes of the current card versions ({p.stale} of earlier versions left out); "
            f"spent ${p.spent_usd:.4f} (judges ${p.judge_usd:.4f}).</p><p>versions: {_e(versions or 'unknown')}</p>"
            f'<table class="hashes"><thead><tr><th>card</th><th>source sha256</th></tr></thead><tbody>{cards}'
            f"</tbody></table><p>{len(p.invocations)} invocation(s):</p>{invs}</section>")
    return "".join(parts)


def _methods_html() -> str:
    return (f"<p>The unit of evidence is the card: a cell's repetitions of one card are not independent "
            f"draws (a deterministic player repeats itself), so n counts cards, and each cell shows its "
            f"cards, repetitions per card and the cards whose repetitions all gave the same outcome. "
            f"Rates (ESR) carry a {CONFIDENCE:.0%} Wilson score interval over the cell's cards (the share is "
            f"the mean of the per-card rates); means (PS, SES, form credit) a {CONFIDENCE:.0%} two-stage "
            f"percentile bootstrap that resamples cards and, inside each drawn card, its repetitions "
            f"({RESAMPLES} resamples, seed {SEED}). Two runs are compared on the cards both played, in the "
            f"cells both have: the interval of the difference comes from the same two-stage bootstrap, and "
            f"they are called apart in a cell only where the {_e(TEST)} gives p &lt; {ALPHA:.2f} after "
            f"{_e(ADJUSTMENT)}. Counts of valid, invalid, missing and undetermined answers stand beside each "
            "rate: undetermined episodes (strict verdict not reached) are left out of the strict ESR's "
            "denominator, invalid and missing answers count as failures with PS 0. Table and figure numbers "
            "are this page's; where a title names the paper's Table 2 or Figure 5, the table is its "
            "analogue computed on these runs.</p>")


def render_html(runs: Runs, tables: dict[str, Table], figures: list[Figure], title: str | None = None) -> str:
    title = title or "scigame report: " + ", ".join(runs.players)
    sections = [("tables", "Tables", "".join(table_html(t, i) for i, t in enumerate(tables.values(), 1))),
                ("figures", "Figures", "".join(_figure_html(f, i) for i, f in enumerate(figures, 1))
                 or "<p>No finished episodes.</p>"),
                ("cards", "Cards", _cards_html(runs)),
                ("provenance", "Provenance", _provenance_html(runs)),
                ("methods", "Intervals, comparisons and counts", _methods_html())]
    nav = "".join(f'<a href="#{sid}">{_e(label)}</a>' for sid, label, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{_e(label)}</h2>{content}</section>' for sid, label, content in sections)
    csp = content_security_policy([f"<style>{_CSS}</style>", *(f.svg() for f in figures)])
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"scigame {_e(__version__)}\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
            f"<p class=\"muted\">scigame {_e(__version__)}; {len(runs.provenance)} run folder(s), "
            f"{len(runs.rows)} episodes, {len(runs.judgements)} judgements.</p><nav>{nav}</nav>{body}</body></html>\n")
