"""The report page against hostile strings (issue 30): every field that
reaches the page from a run (player and card names, predictor keys and
variable names, table labels, a model's free text, provenance) is filled
with a random or hand-picked hostile string, and the page's DOM must hold
the same elements and attributes as with a plain string: the string
introduced none. Parsed with html.parser for every example, and once in
headless Chromium (where a `<meta http-equiv=refresh>` would navigate)."""

from __future__ import annotations

import copy
import os
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scigame.cli import main
from scigame.report import build_tables, load_runs
from scigame.report.html import render_html
from scigame.report.markup import content_security_policy, text

REPO = Path(__file__).resolve().parent.parent
CARD = str(REPO / "cards/historical/gravitation.sci")

HOSTILE = ['<meta http-equiv="refresh" content="0;url=https://example.invalid/">',
           '"><img src=x onerror=alert(1)>', "<svg onload=alert(1)>", "</mi><script>alert(1)</script>",
           "<a href=\"javascript:alert(1)\">x</a>", "<style>table{display:none}</style>",
           "' style='color:red", "]]><!--", "&lt;&amp;&#60;", "\ud800\x00\x1b[2J", "<math><mi>x</mi></math>",
           "alpha_1", "</textarea></title></style>", "Zscigameplaceholdera"]

#: Elements a MathML formula may hold (sympy's presentation printer).
MATHML = {"math", "mi", "mo", "mn", "mrow", "msub", "msup", "msubsup", "mfrac", "msqrt", "mroot", "mfenced",
          "mtext", "mspace", "mover", "munder", "mtable", "mtr", "mtd", "mstyle", "mpadded"}


class Shape(HTMLParser):
    """Every element outside MathML as (tag, attribute names), and inside it the tags and attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: Counter = Counter()
        self.math_tags: set[str] = set()
        self.math_attrs: set[str] = set()
        self.math_depth = 0
        self.refresh = False

    def handle_starttag(self, tag, attrs):
        names = tuple(sorted(n for n, _ in attrs))
        if tag == "meta" and any(n == "http-equiv" and (v or "").lower() == "refresh" for n, v in attrs):
            self.refresh = True
        if tag == "math" and self.math_depth == 0:
            self.elements[(tag, names)] += 1
            self.math_depth = 1
            return
        if self.math_depth:
            self.math_tags.add(tag)
            self.math_attrs.update(names)
            self.math_depth += 1
        else:
            self.elements[(tag, names)] += 1

    def handle_endtag(self, tag):
        if self.math_depth:
            self.math_depth -= 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)


def shape(page: str) -> Shape:
    parser = Shape()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("markup") / "run"
    result = CliRunner().invoke(main, ["eval", CARD, "--out", str(out), "--reps", "1", "--env", "original",
                                       "--setting", "discovery", "--protocol", "prior,adaptive",
                                       "--max-steps", "3", "--quiet"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def pristine(run_folder):
    return load_runs([run_folder])


def _poison(runs, s: str):
    """The runs with `s` in every string field the page shows."""
    runs = copy.deepcopy(runs)
    for key, e in list(runs.episodes.items()):
        k = e.key.model_copy(update={"player": s, "card": s})
        turns = []
        for t in e.turns:
            a = t.action
            if a is not None:
                hyps = [h.model_copy(update={"statement": s}) for h in a.hypotheses]
                exp = a.experiment
                if exp is not None:
                    exp = exp.model_copy(update={"inputs": {s: 1.0}, "outputs": [s], "predictions": [{s: 2.0}]})
                sub = a.submission
                if sub is not None:
                    tree = {"op": "add", "args": [{"op": "mul", "args": [2.0, {"var": s}]}, {"var": "m1"}]}
                    sub = sub.model_copy(update={"predictor": {s: tree}, "explanation": s, "applicability": s})
                a = a.model_copy(update={"hypotheses": hyps, "experiment": exp, "submission": sub, "notes": s})
            response = t.response
            if response is not None and response.observation is not None:
                obs = response.observation.model_copy(update={"inputs": {s: 1.0}, "outputs": {s: 3.0}})
                response = response.model_copy(update={"observation": obs, "rejected": [s]})
            turns.append(t.model_copy(update={"action": a, "response": response, "breaks": [s], "malformed": s}))
        outcome = e.outcome.model_copy(update={"reason": s, "strict_reason": s}) if e.outcome else None
        runs.episodes[key] = e.model_copy(update={"key": k, "turns": turns, "outcome": outcome, "error": s})
    for r in runs.rows:
        r.update(player=s, card=s, failure_mode=r["failure_mode"] and s)
    for p in runs.provenance:
        p.folder, p.players, p.cards, p.versions = s, [s], {s: s}, {s: s}
        p.invocations = [{"player": s, "config": {s: s}, "written_at": 0}]
    return runs


def _page(runs, s: str) -> str:
    poisoned = _poison(runs, s)
    return render_html(poisoned, build_tables(poisoned), [], title=s)


@pytest.fixture(scope="module")
def plain(pristine):
    return shape(_page(pristine, "plain"))


def _assert_nothing_introduced(got: Shape, plain: Shape, s: str) -> None:
    assert got.elements == plain.elements, (s, got.elements - plain.elements, plain.elements - got.elements)
    assert got.math_tags <= MATHML and not got.math_attrs, (s, got.math_tags - MATHML, got.math_attrs)
    assert not got.refresh


@pytest.mark.parametrize("s", HOSTILE)
def test_a_hostile_string_introduces_no_element_or_attribute(pristine, plain, s):
    page = _page(pristine, s)
    _assert_nothing_introduced(shape(page), plain, s)
    assert text(s) in page or not s.strip()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(st.one_of(st.text(min_size=1, max_size=40),
                 st.lists(st.sampled_from(HOSTILE + ["<", ">", '"', "'", "&", "=", "/", " ", "on", "x"]),
                          min_size=1, max_size=8).map("".join)))
def test_property_random_strings_introduce_no_element_or_attribute(pristine, plain, s):
    _assert_nothing_introduced(shape(_page(pristine, s)), plain, s)


def test_the_policy_forbids_navigation_targets_and_allows_styles_by_hash_only():
    csp = content_security_policy(["<style>p{color:red}</style>", '<svg><path style="fill: #fff"/></svg>'])
    assert "'unsafe-inline'" not in csp and "default-src 'none'" in csp
    for directive in ("base-uri 'none'", "form-action 'none'", "frame-src 'none'", "script-src 'none'"):
        assert directive in csp
    import base64
    import hashlib
    for source in ("p{color:red}", "fill: #fff"):
        digest = base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp


def test_the_html_report_of_a_dollar_named_player_with_equal_form_credits(run_folder, tmp_path):
    # a player named with `$` (matplotlib math text) and a cell whose form credits are all equal
    # (the mean 0.10000000000000002 against the interval (0.1, 0.1)) draw their figures
    runs = _poison(load_runs([run_folder]), "gpt $x^2$ <b>")
    runs.rows = [dict(r, form_credit=0.1) for r in runs.rows for _ in range(3)]
    assert sum([0.1] * 3) / 3 > 0.1  # the mean is one ulp above the interval (0.1, 0.1) of equal values
    from scigame.report import write_html
    path = write_html(runs, build_tables(runs), tmp_path / "page.html")
    page = path.read_text()
    assert "gpt $x^2$ &lt;b&gt;" in page and page.count("<figure") >= 3
    plain_runs = _poison(load_runs([run_folder]), "plain")
    plain_runs.rows = [dict(r, form_credit=0.1) for r in plain_runs.rows for _ in range(3)]  # the same data
    plain = write_html(plain_runs, build_tables(plain_runs), tmp_path / "plain.html").read_text()
    before = '<section id="figures">'
    _assert_nothing_introduced(shape(page.split(before)[0]), shape(plain.split(before)[0]), "$")


def test_the_html_page_is_replaced_atomically(run_folder, tmp_path, monkeypatch):
    # a report killed while writing leaves the old page whole (temp file + rename)
    from scigame.compiler import atomic
    target = tmp_path / "page.html"
    target.write_text("the old page")

    def killed(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(atomic.os, "replace", killed)
    result = CliRunner().invoke(main, ["report", str(run_folder), "--html", str(target)])
    assert result.exit_code != 0
    assert target.read_text() == "the old page" and [p.name for p in tmp_path.iterdir()] == ["page.html"]


@pytest.mark.browser
def test_hostile_strings_in_headless_chromium(pristine, tmp_path):
    from tests.chromium import Browser, find_chromium

    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing in CI")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    s = "".join(HOSTILE)
    hostile, benign = tmp_path / "hostile.html", tmp_path / "benign.html"
    hostile.write_text(_page(pristine, s), encoding="utf-8")
    benign.write_text(_page(pristine, "plain"), encoding="utf-8")
    signature = """(() => { const out = {};
        for (const e of document.querySelectorAll('*')) {
            if (e.closest('math') && e.tagName.toLowerCase() !== 'math') continue;
            const k = e.tagName.toLowerCase() + '[' + [...e.attributes].map(a => a.name).sort().join(',') + ']';
            out[k] = (out[k] || 0) + 1; }
        return out; })()"""
    with Browser(binary) as b:
        want = b.evaluate(b.open(benign), signature)
        session = b.open(hostile)
        import time
        time.sleep(1.5)  # a refresh of 0 s would have navigated by now
        assert b.evaluate(session, "location.href") == hostile.resolve().as_uri()
        assert b.evaluate(session, signature) == want
        assert b.evaluate(session, "document.querySelectorAll('script, img, iframe, a[href^=javascript]').length") == 0
        assert b.evaluate(session, "[...document.querySelectorAll('math *')].every("
                                   "e => e.attributes.length === 0)")
        assert b.problems() == []
