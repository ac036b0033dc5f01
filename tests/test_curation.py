"""The Temporal curation pipeline (scigame.curation, `scigame curate` and
`scigame review`), end to end through the real `openai` client against the
fake server on 127.0.0.1, with scripted replies about a made-up paper."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.curation import (MAX_CORRECTIONS, REVIEW_SYSTEM, number_lines, numbers_in, review_path,
                              sha256_text, source_lines, verify_anchors)
from scigame.testing.fake_openai import FakeOpenAI, Reply

KEY_ENV = "SCIGAME_TEST_KEY"

# A made-up "paper": the numbers sit on known lines.
SOURCE = """Ripple growth on a wind-swept brine pond
A. Nobody and B. Someone
Journal of Invented Results 12, 345 (2025). doi:10.9999/jir.2025.0345
Preprint first posted 2025-02-10; published 30 June 2025.

We blew air over a shallow pond of brine and set the ratio x of wind
stress to restoring stress with a variable-speed fan, from x = 1.5 up
to x = 40. A laser gauge recorded the mean ripple height h.
Across all runs the height follows a power law, h = a * x^b, with
prefactor a = 3.64 \u00d7 10\u207b\u2074 m and exponent b = 1.27 (fit error below 2%).
The pond was always much deeper than the ripples.
"""

CARD = '''card ripple_height "Ripple height versus forcing ratio on a brine pond" {
  collection temporal
  field      physics
  source     "A. Nobody, B. Someone, J. Invented Results 12, 345 (2025)"
  doi        "10.9999/jir.2025.0345"
  published  2025-06-30
  preprint   2025-02-10

  background """
    Air is blown over a shallow pond of brine. A fan sets the ratio of
    wind stress to restoring stress; a laser gauge reads the mean height
    of the ripples.
  """
  conditions "pond depth far above ripple height"

  input  x [1]  in 1.5 .. 40   "ratio of wind stress to restoring stress"
  output h [mm] resolution 0.001 tolerance abs 0.01 rel 2%  "mean ripple height"

  param a = 0.364 [mm]  "prefactor"
  param b = 1.27        "growth exponent"

  law h = a * x^b

  counterfactual "steeper growth" {
    set b = 1.6
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
'''


def anchors(**changes) -> list[dict]:
    """The correct provenance; `param_b={...}` replaces an entry, `param_b=None` drops it."""
    good = {
        "param_a": {"field": "param a", "value": "3.64 \u00d7 10\u207b\u2074", "unit": "m", "lines": [10, 10],
                    "quote": "prefactor a = 3.64 \u00d7 10\u207b\u2074 m"},
        "param_b": {"field": "param b", "value": "1.27", "lines": [10, 10], "quote": "exponent b = 1.27"},
        "input_x": {"field": "input x", "value": "1.5 .. 40", "lines": [7, 8],
                    "quote": "from x = 1.5 up to x = 40"},
        "law_h": {"field": "law h", "value": "h = a * x^b", "lines": [9, 9], "quote": "h = a * x^b"},
        "published": {"field": "published", "value": "2025-06-30", "lines": [4, 4],
                      "quote": "published 30 June 2025"},
        "preprint": {"field": "preprint", "value": "2025-02-10", "lines": [4, 4],
                     "quote": "Preprint first posted 2025-02-10"},
        "background": {"field": "background", "value": "a fan sets the stress ratio; a laser gauge reads h",
                       "lines": [6, 8], "quote": "A laser gauge recorded the mean ripple height h."},
        "conditions": {"field": "conditions", "value": "deep pond", "lines": [11, 11],
                       "quote": "The pond was always much deeper than the ripples."},
    }
    for key, value in changes.items():
        if value is None:
            good.pop(key)
        else:
            good[key] = value
    return list(good.values())


def extraction(card: str = CARD, **changes) -> Reply:
    return Reply(content=json.dumps({"card": card, "provenance": anchors(**changes)}, ensure_ascii=False))


WRONG_LINE_B = {"field": "param b", "value": "1.27", "lines": [9, 9], "quote": ""}


def review_reply(verdict: str, reasons=(), **checks) -> Reply:
    all_checks = {c: "ok" for c in ("formula", "parameters", "controls", "readout", "domain")}
    all_checks.update(checks)
    return Reply(content=json.dumps({"verdict": verdict, "reasons": list(reasons), "checks": all_checks}))


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")


@pytest.fixture
def source(tmp_path) -> Path:
    p = tmp_path / "ripples.txt"
    p.write_text(SOURCE, encoding="utf-8")
    return p


def llm_args(server) -> list[str]:
    return ["--model", "openai:fake-model", "--base-url", server.base_url, "--api-key-env", KEY_ENV,
            "--timeout", "5", "--max-retries", "0"]


def run_curate(server, source, out):
    return CliRunner().invoke(main, ["curate", str(source), "--out", str(out), *llm_args(server)])


def run_review(server, draft, source):
    return CliRunner().invoke(main, ["review", str(draft), "--source", str(source), *llm_args(server)])


def last_user(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


# ---- pieces -----------------------------------------------------------------------------

def test_number_lines():
    numbered = number_lines("alpha\nbeta\n\ngamma\n")
    assert numbered.splitlines() == ["   1| alpha", "   2| beta", "   3|", "   4| gamma"]
    assert "  10| prefactor a = 3.64" in number_lines(SOURCE)
    assert len(source_lines(SOURCE)) == 11


def test_numbers_compare_across_notations():
    assert 0.000364 in numbers_in("a = 3.64 \u00d7 10\u207b\u2074 m")
    assert 0.364 in numbers_in("k = 3.64e-1")
    assert 1200.0 in numbers_in("about 1,200 runs")
    assert -0.5 in numbers_in("\u22120.5")
    assert {1.5, 40.0} <= set(numbers_in("x from 1.5\u201340"))


def test_correct_provenance_verifies():
    assert verify_anchors(CARD, anchors(), source_lines(SOURCE)) == []


def test_number_not_on_cited_lines_is_caught():
    problems = verify_anchors(CARD, anchors(param_b=WRONG_LINE_B), source_lines(SOURCE))
    assert any("1.27 does not appear on lines 9-9" in p for p in problems), problems


def test_lines_out_of_range_are_caught():
    bad = {"field": "param b", "value": "1.27", "lines": [10, 30], "quote": ""}
    problems = verify_anchors(CARD, anchors(param_b=bad), source_lines(SOURCE))
    assert any("lines out of range" in p and "1 to 11" in p for p in problems), problems
    backwards = {"field": "param b", "value": "1.27", "lines": [10, 9], "quote": ""}
    assert any("out of range" in p for p in verify_anchors(CARD, anchors(param_b=backwards), source_lines(SOURCE)))


def test_card_number_without_anchor_is_caught():
    problems = verify_anchors(CARD, anchors(param_b=None), source_lines(SOURCE))
    assert any(p.startswith("param b: the number 1.27") and "no anchor" in p for p in problems), problems
    # a domain bound the source never states
    wider = CARD.replace("in 1.5 .. 40", "in 1.5 .. 60")
    problems = verify_anchors(wider, anchors(), source_lines(SOURCE))
    assert any(p.startswith("input x: the number 60") for p in problems), problems


def test_unit_conversion_is_checked_not_trusted():
    # the card says 0.364 mm; the anchor cites 3.64e-4 m: fine. Claiming the source unit is cm is not.
    wrong_unit = dict(anchors()[0], unit="cm")
    problems = verify_anchors(CARD, anchors(param_a=wrong_unit), source_lines(SOURCE))
    assert any(p.startswith("param a: the number 0.364") for p in problems), problems


def test_quotes_dates_and_doi_are_checked():
    made_up = {"field": "conditions", "value": "deep pond", "lines": [11, 11], "quote": "the wind was steady"}
    wrong_date = {"field": "published", "value": "2025-06-30", "lines": [3, 3], "quote": ""}
    card = CARD.replace("10.9999/jir.2025.0345", "10.9999/jir.2025.9999")
    problems = verify_anchors(card, anchors(conditions=made_up, published=wrong_date), source_lines(SOURCE))
    text = "\n".join(problems)
    assert "the quote is not on lines 11-11" in text
    assert "the date is not written on the cited lines" in text
    assert "is not written in the source" in text
    assert any("law h" in p for p in verify_anchors(CARD, anchors(law_h=None), source_lines(SOURCE)))


# ---- scigame curate ---------------------------------------------------------------------

def test_correct_extraction_is_written(tmp_path, source):
    with FakeOpenAI([extraction()]) as server:
        result = run_curate(server, source, tmp_path / "drafts")
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    draft = tmp_path / "drafts" / "ripple_height.sci"
    assert draft.read_text() == CARD
    prov = json.loads((tmp_path / "drafts" / "ripple_height.provenance.json").read_text())
    assert prov["source"] == {"path": str(source), "sha256": sha256_text(SOURCE), "lines": 11}
    assert prov["card"] == "ripple_height" and prov["corrections"] == 0 and len(prov["provenance"]) == 8
    # the LLM saw the numbered source and a JSON schema
    assert len(requests) == 1
    assert "  10| prefactor a = 3.64" in last_user(requests[0])
    assert requests[0]["response_format"]["type"] == "json_schema"
    # the draft lints clean
    lint = CliRunner().invoke(main, ["lint", str(draft)])
    assert lint.exit_code == 0 and "0 errors, 0 warnings" in lint.output


def test_wrong_anchor_is_sent_back_and_fixed(tmp_path, source):
    with FakeOpenAI([extraction(param_b=WRONG_LINE_B), extraction()]) as server:
        result = run_curate(server, source, tmp_path / "drafts")
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert len(requests) == 2
    correction = last_user(requests[1])
    assert "1.27 does not appear on lines 9-9" in correction
    assert requests[1]["messages"][-2]["role"] == "assistant"  # the bad draft, then the problems
    prov = json.loads((tmp_path / "drafts" / "ripple_height.provenance.json").read_text())
    assert prov["corrections"] == 1


def test_wrong_anchor_kept_wrong_fails(tmp_path, source):
    bad = {"field": "param b", "value": "1.27", "lines": [12, 14], "quote": ""}
    with FakeOpenAI([extraction(param_b=bad)] * (MAX_CORRECTIONS + 1)) as server:
        result = run_curate(server, source, tmp_path / "drafts")
        requests = list(server.requests)
    assert result.exit_code == 1
    assert len(requests) == MAX_CORRECTIONS + 1
    assert all("lines out of range" in last_user(r) for r in requests[1:])
    assert "failed after 2 corrections" in result.output and "lines out of range" in result.output
    assert "'param b'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "drafts" / "ripple_height.sci").exists()


def test_unanchored_number_fails_curation(tmp_path, source):
    with FakeOpenAI([extraction(param_b=None)] * (MAX_CORRECTIONS + 1)) as server:
        result = run_curate(server, source, tmp_path / "drafts")
    assert result.exit_code == 1
    assert "param b: the number 1.27" in result.output and "no anchor" in result.output


def test_card_that_does_not_lint_is_sent_back(tmp_path, source):
    broken = CARD.replace("law h = a * x^b", "law h = a * x^b * q")
    historical = CARD.replace("collection temporal", "collection historical")
    with FakeOpenAI([extraction(card=broken), extraction(card=historical), extraction()]) as server:
        result = run_curate(server, source, tmp_path / "drafts")
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert "error[" in last_user(requests[1]) and "q" in last_user(requests[1])
    assert "collection temporal" in last_user(requests[2])


def test_reply_that_is_not_json_is_sent_back(tmp_path, source):
    with FakeOpenAI([Reply(content="Here is your card: card x {"), extraction()]) as server:
        result = run_curate(server, source, tmp_path / "drafts")
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert "no JSON object" in last_user(requests[1]) or "not valid JSON" in last_user(requests[1])


def test_usage_errors_exit_2(tmp_path, source, monkeypatch):
    bad_model = CliRunner().invoke(main, ["curate", str(source), "--model", "fake-model"])
    assert bad_model.exit_code == 2 and "openai:MODEL" in bad_model.output
    missing = CliRunner().invoke(main, ["curate", str(tmp_path / "nope.txt"), "--model", "openai:m"])
    assert missing.exit_code == 2
    monkeypatch.delenv(KEY_ENV)
    no_key = CliRunner().invoke(main, ["curate", str(source), "--model", "openai:m", "--api-key-env", KEY_ENV,
                                       "--base-url", "http://127.0.0.1:9/v1"])
    assert no_key.exit_code == 2 and f"{KEY_ENV} is not set" in no_key.output
    assert "Traceback" not in no_key.output


# ---- scigame review ---------------------------------------------------------------------

@pytest.fixture
def draft(tmp_path) -> Path:
    p = tmp_path / "drafts" / "ripple_height.sci"
    p.parent.mkdir()
    p.write_text(CARD, encoding="utf-8")
    return p


def test_rejecting_review_is_honoured(draft, source):
    reply = review_reply("reject", ["line 10 gives b for a different pond"], parameters="problem")
    with FakeOpenAI([reply]) as server:
        result = run_review(server, draft, source)
        requests = list(server.requests)
    assert result.exit_code == 1
    assert "verdict: reject" in result.output and "line 10 gives b for a different pond" in result.output
    written = json.loads(review_path(draft).read_text())
    assert written["verdict"] == "reject" and written["checks"]["parameters"] == "problem"
    assert review_path(draft).name == "ripple_height.review.json"
    # a fresh conversation with the review instructions, the numbered source and the card only
    (request,) = requests
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert request["messages"][0]["content"] == REVIEW_SYSTEM
    assert "  10| prefactor" in last_user(request) and "card ripple_height" in last_user(request)


def test_accepting_review_of_clean_draft_exits_0(draft, source):
    with FakeOpenAI([review_reply("accept", ["law, b and the range 1.5 to 40 match lines 7-10"])]) as server:
        result = run_review(server, draft, source)
    assert result.exit_code == 0, result.output
    assert "verdict: accept" in result.output
    written = json.loads(review_path(draft).read_text())
    assert written["verdict"] == "accept" and written["lint"] == [] and written["source"]["sha256"] == sha256_text(SOURCE)


@pytest.mark.parametrize("change", [
    ("law h = a * x^b", "law h = a * x^b * q"),  # an error
    ('param b = 1.27        "growth exponent"', 'param b = 1.27 "growth exponent"\n  param c = 2 "unused"'),  # a warning
])
def test_accepting_review_of_draft_that_does_not_lint_exits_1(draft, source, change):
    draft.write_text(CARD.replace(*change), encoding="utf-8")
    with FakeOpenAI([review_reply("accept", ["looks right"])]) as server:
        result = run_review(server, draft, source)
    assert result.exit_code == 1
    assert "verdict: accept" in result.output and "not accepted" in result.output
    written = json.loads(review_path(draft).read_text())
    assert written["verdict"] == "accept" and written["lint"]


def test_review_of_changed_source_is_not_accepted(tmp_path, draft, source):
    with FakeOpenAI([extraction(), review_reply("accept", ["fine"])]) as server:
        assert run_curate(server, source, draft.parent).exit_code == 0
        source.write_text(SOURCE.replace("deeper", "far deeper"), encoding="utf-8")
        result = run_review(server, draft, source)
    assert result.exit_code == 1 and "differs from the one the draft was curated from" in result.output


def test_inconsistent_review_is_sent_back(draft, source):
    inconsistent = review_reply("accept", ["fine"], domain="problem")
    with FakeOpenAI([inconsistent, review_reply("revise", ["x only reached 30 on line 7"], domain="problem")]) as server:
        result = run_review(server, draft, source)
        requests = list(server.requests)
    assert result.exit_code == 1 and "verdict: revise" in result.output
    assert "make them agree" in last_user(requests[1])


def test_unusable_review_fails_cleanly(draft, source):
    with FakeOpenAI([Reply(content="I think it is fine.")] * (MAX_CORRECTIONS + 1)) as server:
        result = run_review(server, draft, source)
    assert result.exit_code == 1 and "no usable review" in result.output
    assert not review_path(draft).exists() and "Traceback" not in result.output


def test_python_api(tmp_path, source):
    from scigame.curation import curate, review
    from scigame.llm.client import ChatClient, LLMConfig

    with FakeOpenAI([extraction(), review_reply("accept", ["ok"])]) as server:
        client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url, api_key_env=KEY_ENV,
                                      max_retries=0))

        async def go():
            try:
                c = await curate(source, client, tmp_path / "out")
                r = await review(c.draft_path, source, client)
            finally:
                await client.close()
            return c, r

        cur, rev = asyncio.run(go())
    assert cur.ok and cur.card_name == "ripple_height" and cur.usage.calls == 1
    assert rev.accepted and rev.verdict == "accept" and rev.usage.calls == 1
