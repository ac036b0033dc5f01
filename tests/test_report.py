"""`scigame report`: two real runs (the baseline, and an `openai:` player
dry-run against the fake server, judged by the fake judge) reported side by
side; every number checked against the SQLite stores read directly."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.testing.fake_openai import FakeOpenAI
from scigame.testing.responders import scientist

REPO = Path(__file__).resolve().parent.parent
CARDS = [str(REPO / f"cards/historical/{n}.sci") for n in ("gravitation", "pendulum")]
KEY_ENV = "SCIGAME_TEST_KEY"
MATRIX = ["--setting", "discovery", "--reps", "2", "--budget", "2,4", "--max-steps", "16", "--quiet"]
Z = 1.959963984540054  # the standard normal's 97.5% quantile
CELL = ("collection", "setting", "environment", "protocol", "budget", "player")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    cli = CliRunner()
    base = cli.invoke(main, ["eval", *CARDS, *MATRIX, "--out", str(root / "baseline")])
    assert base.exit_code == 0, base.output
    env = {KEY_ENV: "test-key"}
    with FakeOpenAI(scientist) as server:
        llm = cli.invoke(main, ["eval", *CARDS, *MATRIX, "--player", "openai:fake-model", "--concurrency", "4",
                                "--base-url", server.base_url, "--api-key-env", KEY_ENV,
                                "--out", str(root / "llm")], env=env)
        assert llm.exit_code == 0, llm.output
        judged = cli.invoke(main, ["judge", str(root / "llm"), "--judge", "openai:fake-model", "--quiet",
                                   "--base-url", server.base_url, "--api-key-env", KEY_ENV], env=env)
        assert judged.exit_code == 0, judged.output
    return [root / "baseline", root / "llm"]


def report(runs, *args) -> str:
    result = CliRunner().invoke(main, ["report", *map(str, runs), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _select(folders, sql: str) -> list[dict]:
    out = []
    for f in folders:
        db = sqlite3.connect(f / "episodes.sqlite")
        db.row_factory = sqlite3.Row
        out += [dict(r) for r in db.execute(sql)]
        db.close()
    return out


def store_rows(folders) -> list[dict]:
    return _select(folders, "SELECT * FROM episodes WHERE status = 'finished'")


def judge_rows(folders) -> list[dict]:
    return _select(folders, "SELECT * FROM judgements")


def expected_cells(folders) -> dict[tuple, dict]:
    """Table 2's cells recomputed from the stores with plain Python."""
    groups = defaultdict(list)
    for r in store_rows(folders):
        groups[tuple(r[k] for k in CELL)].append(r)
    out = {}
    for key, rs in groups.items():
        decided = [r for r in rs if r["strict_success"] is not None]
        per_card = defaultdict(list)
        for r in decided:
            per_card[r["card"]].append(r["strict_success"])
        out[key] = {"n": len(rs), "strict_k": sum(r["strict_success"] for r in decided), "strict_n": len(decided),
                    # the card is the unit: the sum of per-card rates of so many cards
                    "card_k": sum(sum(v) / len(v) for v in per_card.values()), "cards": len(per_card),
                    "weak_k": sum(r["weak_success"] for r in rs), "mean_ps": sum(r["ps"] for r in rs) / len(rs),
                    "ps": [r["ps"] for r in rs], "valid": sum(r["valid"] for r in rs),
                    "invalid": sum(1 for r in rs if r["submitted"] and not r["valid"]),
                    "missing": sum(1 for r in rs if not r["submitted"]), "undetermined": len(rs) - len(decided)}
    return out


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


# ---- the numbers ------------------------------------------------------------------------

def test_main_table_equals_the_stores(runs):
    data = json.loads(report(runs, "--format", "json"))
    rows = {tuple(r[k] for k in CELL): r for r in data["tables"]["main"]["rows"]}
    want = expected_cells(runs)
    assert set(rows) == set(want) and len(want) == 2 * 4 * 2  # worlds x (prior, fixed 2, fixed 4, adaptive) x players
    for key, w in want.items():
        got = rows[key]
        assert got["finished"] == w["n"] == 4
        assert got["strict_esr"] == pytest.approx(w["strict_k"] / w["strict_n"])
        assert got["cards"] == w["cards"] == 2 and got["reps"] == 2
        lo, hi = wilson_by_hand(w["card_k"], w["cards"])
        assert (got["strict_esr_lo"], got["strict_esr_hi"]) == (pytest.approx(max(lo, 0.0), abs=1e-12),
                                                                pytest.approx(min(hi, 1.0), abs=1e-12))
        assert got["mean_ps"] == pytest.approx(w["mean_ps"])
        assert min(w["ps"]) - 1e-12 <= got["mean_ps_lo"] <= got["mean_ps"] <= got["mean_ps_hi"] <= max(w["ps"]) + 1e-12
        for c in ("valid", "invalid", "missing", "undetermined"):
            assert got[c] == w[c], (key, c)
        # the fake judge grades 1, 0.5 and 1: SES 5/6 on every judged episode, none on the baseline's
        assert got.get("mean_ses") == (pytest.approx(5 / 6) if key[-1] == "openai:fake-model" else None)
    # the two players are the same scientist: the paired test finds them apart nowhere, and the note says so
    notes = data["tables"]["main"]["notes"]
    assert any("strict ESR, baseline against openai:fake-model, paired by card: apart in 0 of 8 shared cells" in n
               for n in notes), notes
    assert any("share 2 cards and 8 cells; nothing else differs" in n for n in notes), notes
    # the same aggregation `scigame eval` writes to summary.json
    assert {tuple(g[k] for k in CELL): (g["finished"], g["valid"]) for g in data["groups"]} == {
        k: (w["n"], w["valid"]) for k, w in want.items()}


def test_bootstrap_is_seeded_and_reproducible(runs):
    a = json.loads(report(runs, "--format", "json", "--table", "main"))["tables"]["main"]["rows"]
    b = json.loads(report(runs, "--format", "json", "--table", "main"))["tables"]["main"]["rows"]
    assert a == b


def test_weak_strict_usage_and_failures_equal_the_stores(runs):
    tables = json.loads(report(runs, "--format", "json"))["tables"]
    rows = store_rows(runs)
    for r in tables["weak_strict"]["rows"]:
        mine = [x for x in rows if all(x[k] == r[k] for k in ("player", "collection", "setting", "environment",
                                                                "protocol"))]
        assert r["finished"] == len(mine)
        assert r["weak_esr"] == pytest.approx(sum(x["weak_success"] for x in mine) / len(mine))
    all_rows = []
    for f in runs:  # usage counts unfinished episodes too
        db = sqlite3.connect(f / "episodes.sqlite")
        all_rows += db.execute("SELECT player, protocol, input_tokens, output_tokens, cost_usd FROM episodes").fetchall()
        db.close()
    usage = {(u["role"], u["who"], u["protocol"]): u for u in tables["usage"]["rows"]}
    for (player, protocol) in {(p, q) for p, q, *_ in all_rows}:
        mine = [x for x in all_rows if x[:2] == (player, protocol)]
        u = usage[("player", player, protocol)]
        assert (u["episodes"], u["input_tokens"], u["output_tokens"]) == (
            len(mine), sum(x[2] for x in mine), sum(x[3] for x in mine))
        assert u["cost_usd"] == pytest.approx(sum(x[4] for x in mine))
    judges = judge_rows(runs)
    j = usage[("judge", "openai:fake-model", "all")]
    assert j["episodes"] == len(judges) == 32 and j["cost_usd"] == pytest.approx(sum(x["cost_usd"] for x in judges))
    assert usage[("player", "openai:fake-model", "all")]["cost_usd"] > 0
    fails = {r["mode"]: r for r in tables["failures"]["rows"] if r["source"] == "outcome"}
    for player in ("baseline", "openai:fake-model"):
        counts = defaultdict(int)
        for x in rows:
            if x["player"] == player and x["failure_mode"]:
                counts[x["failure_mode"]] += 1
        assert {m: r[player] for m, r in fails.items() if m != "(finished episodes)" and r[player]} == dict(counts)


# ---- formats ------------------------------------------------------------------------------

def test_markdown_and_csv_are_well_formed(runs):
    md = report(runs, "--format", "markdown", "--table", "main")
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len({ln.count(" | ") for ln in lines if not ln.startswith("|-")}) == 1
    assert len(lines) == 2 + 16
    text = report(runs, "--format", "csv", "--table", "main")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == 16 and {"strict_esr", "strict_esr_lo", "strict_esr_hi", "undetermined"} <= set(table[0])
    want = expected_cells(runs)
    for r in table:
        w = want[(r["collection"], r["setting"], r["environment"], r["protocol"], int(r["budget"]), r["player"])]
        assert float(r["mean_ps"]) == pytest.approx(w["mean_ps"])
    blocks = report(runs, "--format", "csv").split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["# main", "# compare", "# weak_strict", "# usage", "# failures",
                                                   "# cards", "# collections"]


def _tabulars(tex: str) -> list[tuple[str, list[str]]]:
    out, spec, body = [], None, []
    for line in tex.splitlines():
        if line.startswith(r"\begin{tabular}{"):
            spec, body = line[len(r"\begin{tabular}{"):-1], []
        elif line == r"\end{tabular}":
            out.append((spec, body))
            spec = None
        elif spec is not None and line.endswith(r"\\"):
            body.append(line)
    return out


def test_latex_tables_are_structurally_sound(runs):
    tex = report(runs, "--format", "latex")
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 7
    tabulars = _tabulars(tex)
    assert len(tabulars) == 7
    for spec, body in tabulars:
        assert set(spec) <= {"l", "r"} and body
        for line in body:  # every row has one cell per column; no unescaped specials
            assert line.replace(r"\&", "").count("&") == len(spec) - 1, line
            assert "%" not in line.replace(r"\%", "") and "_" not in line.replace(r"\_", "")


def test_latex_compiles_with_pdflatex(runs, tmp_path):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pdflatex is missing in CI (.ci/run installs texlive-latex-base)")
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base)")
    tex = report(runs, "--format", "latex")
    doc = tmp_path / "tables.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
                   "\\usepackage[landscape,margin=1cm]{geometry}\n\\begin{document}\n" + tex + "\\end{document}\n")
    done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "tables.pdf").stat().st_size > 1000


# ---- the HTML page ---------------------------------------------------------------------

class _Page(HTMLParser):
    """Every element's id, every table's rows as cell texts, and every URL attribute."""

    def __init__(self):
        super().__init__()
        self.ids, self.urls, self.tags = set(), [], defaultdict(int)
        self.tables: dict[str, list[list[str]]] = {}
        self._table, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] += 1
        if "id" in a:
            self.ids.add(a["id"])
        self.urls += [v for k, v in attrs if k in ("src", "href", "xlink:href", "action") and v]
        if tag == "table":
            self._table.append(a.get("id") or f"anon{len(self.tables)}")
            self.tables.setdefault(self._table[-1], [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._table and self._row is not None:
            self.tables[self._table[-1]].append(self._row)
            self._row = None
        elif tag == "table" and self._table:
            self._table.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


@pytest.fixture(scope="module")
def page(runs, tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "report.html"
    report(runs, "--html", str(path))
    return path


def test_html_is_self_contained_and_has_every_section(page, runs):
    text = page.read_text("utf-8")
    p = _Page()
    p.feed(text)
    assert "<script" not in text and "@import" not in text
    assert all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", text))  # SVG clip paths only
    assert all(u.startswith("#") for u in p.urls), p.urls  # only in-page links; nothing to load
    assert "default-src 'none'" in text  # and the page forbids loads outright
    for section in ("tables", "figures", "cards", "provenance", "methods"):
        assert section in p.ids
    for table in ("main", "weak_strict", "usage", "failures", "cards"):
        assert f"table-{table}" in p.ids
    for fig in ("esr", "budget", "failures", "observations", "ps"):
        assert f"fig-{fig}" in p.ids
    assert p.tags["svg"] >= 5
    assert {"card-gravitation", "card-pendulum"} <= p.ids
    # provenance: the stores' card hashes, every invocation, versions and spend
    db = sqlite3.connect(runs[1] / "episodes.sqlite")
    hashes = {h for (h,) in db.execute("SELECT DISTINCT card_hash FROM episodes")}
    spent = db.execute("SELECT SUM(cost_usd) FROM episodes").fetchone()[0]
    db.close()
    assert all(h in text for h in hashes)
    judged = sum(j["cost_usd"] for j in judge_rows(runs))
    assert f"spent ${spent + judged:.4f} (judges ${judged:.4f})" in text
    assert "openai:fake-model" in text and "numpy" in text and "1 invocation(s)" in text


def test_html_main_table_equals_the_stores(page, runs):
    p = _Page()
    p.feed(page.read_text("utf-8"))
    head, *body = p.tables["table-main"]
    col = {name: i for i, name in enumerate(head)}
    # a column with one value in every row is said once, in the caption
    said = re.search(r'<table id="table-main".*?<span class="fixed">in every row: (.*?)</span>', page.read_text())
    fixed = dict(part.split(": ", 1) for part in said.group(1).split("; ")) if said else {}
    assert fixed == {"collection": "historical", "setting": "discovery"}
    want = expected_cells(runs)
    assert len(body) == len(want)
    for row in body:
        value = {**fixed, **{name: row[i] for name, i in col.items()}}
        key = (value["collection"], value["setting"], value["world"], value["protocol"], int(value["B"]),
               value["player"])
        w = want[key]
        lo, hi = wilson_by_hand(w["card_k"], w["cards"])
        assert row[col["strict ESR"]] == f"{100 * w['strict_k'] / w['strict_n']:.0f}% [{100 * lo:.0f}–{100 * hi:.0f}]"
        assert row[col["mean PS"]].startswith(f"{w['mean_ps']:.3f}")
        assert [row[col[c]] for c in ("cards", "valid", "inv.", "miss.", "undet.")] == [
            str(w[c]) for c in ("cards", "valid", "invalid", "missing", "undetermined")]


def test_html_drill_down_shows_laws_outcomes_and_transcripts(page, runs):
    text = page.read_text("utf-8")
    start = text.index('id="card-gravitation"')
    card = text[start:text.index('id="card-pendulum"')]
    # the law in both worlds as the card writes it (its law line, and the counterfactual's mutations)
    assert card.count("<td>original</td>") == 1 and card.count("<td>counterfactual</td>") == 1
    source = (REPO / "cards/historical/gravitation.sci").read_text()
    law = next(ln.strip() for ln in source.splitlines() if ln.strip().startswith("law "))
    assert card.count(f'<code class="law">{law}</code>') == 1
    assert f'<code class="law">{law}\nset n = 3\nrebalance G at r = 5 [m]</code>' in card
    assert card.count('<math class="formula"') >= 2  # the submissions, as MathML
    # every episode of the card, both players: 2 worlds x 4 protocol cells x 2 reps x 2 players
    assert card.count('<details class="episode">') == 32
    # transcripts: hypotheses, experiments with forecasts against observations, the submitted formula
    assert "forecast [0]" in card and "observed" in card and "Submitted hypothesis" in card
    assert card.count('<ul class="hypotheses">') > 32


def test_extra_axis_and_form_credit_are_shown_when_a_store_has_them(runs, tmp_path):
    """A store with a second noise level and a form credit per episode
    (a column a newer scigame may write) reports beside one without."""
    newer = tmp_path / "newer"
    shutil.copytree(runs[0], newer)
    db = sqlite3.connect(newer / "episodes.sqlite")
    db.executescript("""
        ALTER TABLE episodes ADD COLUMN form_credit REAL;
        UPDATE episodes SET player = 'noisy', form_credit = CASE WHEN weak_success THEN 1.0 ELSE 0.25 END;
        CREATE TEMP TABLE louder AS SELECT * FROM episodes WHERE environment = 'original';
        UPDATE louder SET noise = '0.1', form_credit = 0.5, weak_success = 0;
        INSERT INTO episodes SELECT * FROM louder;""")
    db.commit()
    db.close()
    html = tmp_path / "r.html"
    data = json.loads(report([runs[0], newer], "--format", "json", "--html", str(html), "--table", "main"))
    rows = data["tables"]["main"]["rows"]
    assert {r["noise"] for r in rows} == {"card", "0.1"}
    noisy = [r for r in rows if r["player"] == "noisy" and r["noise"] == "0.1"]
    assert noisy and all(r["mean_form_credit"] == pytest.approx(0.5) for r in noisy)
    assert all(0 <= r["mean_form_credit"] <= 1 for r in rows if r["player"] == "baseline")  # from the records
    text = html.read_text("utf-8")
    assert 'id="fig-axis_noise"' in text and 'id="fig-form_credit"' in text and "<th>form</th>" in text


# ---- errors -------------------------------------------------------------------------------

def test_bad_inputs_are_usage_errors(runs, tmp_path):
    cli = CliRunner()
    r = cli.invoke(main, ["report", str(tmp_path)])
    assert r.exit_code == 2 and "is not a run folder (no episodes.sqlite)" in r.output
    r = cli.invoke(main, ["report", str(runs[0]), str(runs[0])])
    assert r.exit_code == 2 and "report each run once" in r.output
    r = cli.invoke(main, ["report", str(runs[0]), "--table", "nope"])
    assert r.exit_code == 2 and "--table" in r.output and "weak_strict" in r.output
    r = cli.invoke(main, ["report", str(runs[0]), "--format", "docx"])
    assert r.exit_code == 2 and "--format" in r.output


# ---- in a real browser -------------------------------------------------------------------

def artifacts_dir() -> Path:
    """Where tests keep files worth looking at after the run ($SCIGAME_TEST_ARTIFACTS)."""
    folder = Path(os.environ.get("SCIGAME_TEST_ARTIFACTS") or REPO / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.browser
def test_report_renders_in_headless_chromium(page):
    from tests.chromium import Browser, find_chromium

    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    out = artifacts_dir()
    with Browser(binary) as b:
        s = b.open(page, width=1400, height=1000)
        assert b.evaluate(s, "document.querySelector('#table-main tbody').rows.length") == 16
        widths = b.evaluate(s, "[...document.querySelectorAll('figure.figure svg')]"
                               ".map(e => Math.round(e.getBoundingClientRect().width))")
        assert len(widths) >= 5 and min(widths) > 300, widths
        # at 1,400 px nothing scrolls sideways: not the page, not a table
        page_width = b.evaluate(s, "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert page_width[0] <= page_width[1] <= 1400, page_width
        wide = b.evaluate(s, "[...document.querySelectorAll('table')].filter(t => t.getBoundingClientRect().right"
                             " > document.documentElement.clientWidth + 0.5 || t.parentElement.scrollWidth >"
                             " t.parentElement.clientWidth + 0.5).map(t => t.id || t.className)")
        assert wide == [], wide
        # every figure and every report table is captioned, the caption above it
        captions = b.evaluate(s, """[...document.querySelectorAll('figure')].map(f => {
            const c = f.querySelector('figcaption'), g = f.querySelector('svg');
            return c !== null && c.textContent.trim().length > 0 && f.firstElementChild === c
                && c.getBoundingClientRect().bottom <= g.getBoundingClientRect().top; })""")
        assert len(captions) >= 5 and all(captions), captions
        tables = b.evaluate(s, """[...document.querySelectorAll('#tables table')].map(t => {
            const c = t.querySelector('caption');
            return c !== null && c.getBoundingClientRect().bottom <= t.tHead.getBoundingClientRect().top + 0.5; })""")
        assert tables and all(tables), tables
        b.screenshot(s, out / "report.png")
        # open a card and one of its Adaptive episodes: the formulas render as MathML boxes
        heights = b.evaluate(s, """(() => {
            const card = document.querySelector('#card-gravitation'); card.open = true;
            const ep = [...card.querySelectorAll('details.episode')].find(d => d.textContent.includes('adaptive'));
            ep.open = true; ep.scrollIntoView();
            return [...ep.querySelectorAll('math')].map(m => m.getBoundingClientRect().height); })()""")
        assert heights and min(heights) > 5, heights
        b.evaluate(s, "document.querySelector('#card-gravitation').scrollIntoView()")
        b.screenshot(s, out / "report-card.png")
        b.evaluate(s, "document.querySelector('#figures').scrollIntoView()")
        b.screenshot(s, out / "report-figures.png")
        assert b.problems() == []
    for name in ("report.png", "report-card.png", "report-figures.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shutil.copy(page, out / "report.html")


def test_unfinished_episodes_are_counted_apart(runs, tmp_path):
    from scigame.store import Store
    folder = tmp_path / "partial"
    shutil.copytree(runs[1], folder)
    with Store(folder) as store:
        ep = next(e for e in store.episodes(protocol="adaptive", environment="original"))
        store.put(ep.model_copy(update={"status": "unfinished", "outcome": None, "error": "endpoint: 503"}))
    html = tmp_path / "r.html"
    rows = json.loads(report([folder], "--format", "json", "--table", "main", "--html", str(html)))
    cell = next(r for r in rows["tables"]["main"]["rows"] if (r["protocol"], r["environment"]) == ("adaptive", "original"))
    assert (cell["finished"], cell["unfinished"]) == (3, 1)
    assert "unfinished: endpoint: 503" in html.read_text("utf-8")
