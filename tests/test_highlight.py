"""Highlighting: the Pygments lexer `sci` and the TextMate grammar in editors/.

The TextMate grammar is run by a small driver below (match rules, begin/end
rules with inner patterns, captures; the earliest match wins, ties go to
the first pattern, as in TextMate), and its scopes are compared with the
card lexer's own tokens on every bundled card.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lark import Lark
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Error, Keyword, Number, String

from scigame.compiler.syntax import _grammar_file, _keyword_terminals
from scigame.highlight import SciLexer, textmate_grammar

REPO = Path(__file__).resolve().parent.parent
BUNDLED = sorted((REPO / "cards").rglob("*.sci")) + sorted((REPO / "examples").rglob("*.sci"))
TM_FILE = REPO / "editors" / "sci.tmLanguage.json"


# ---- a small TextMate driver ------------------------------------------------------------

class TextMate:
    def __init__(self, grammar: dict):
        self.repo = grammar["repository"]
        self.top = [self._rule(p) for p in grammar["patterns"]]

    def _rule(self, p: dict) -> dict:
        return self.repo[p["include"][1:]] if "include" in p else p

    @staticmethod
    def _rx(pattern: str) -> re.Pattern:
        return re.compile(pattern, re.M)

    def _earliest(self, rules, text, pos, end_rx=None):
        best = None
        if end_rx is not None:
            m = end_rx.search(text, pos)
            if m:
                best = (m.start(), -1, m, None)
        for i, rule in enumerate(rules):
            m = self._rx(rule.get("match") or rule["begin"]).search(text, pos)
            if m and (best is None or (m.start(), i) < best[:2]):
                best = (m.start(), i, m, rule)
        return best

    def scopes(self, text: str) -> list[tuple[str, ...]]:
        """The scope stack of every character of the text."""
        out: list[tuple[str, ...]] = [()] * len(text)
        pos, stack = 0, []  # stack: (rule, end regex)
        while pos < len(text):
            rule, end_rx = stack[-1] if stack else (None, None)
            outer = (rule["name"],) if rule else ()
            inner = [self._rule(p) for p in rule.get("patterns", [])] if rule else self.top
            hit = self._earliest(inner, text, pos, end_rx)
            if hit is None:
                for k in range(pos, len(text)):
                    out[k] = outer
                break
            start, _, m, found = hit
            for k in range(pos, start):
                out[k] = outer
            if found is None:  # the end of the begin/end rule
                for k in range(m.start(), m.end()):
                    out[k] = outer
                stack.pop()
            elif "begin" in found:
                for k in range(m.start(), m.end()):
                    out[k] = (found["name"],)
                stack.append((found, self._rx(found["end"])))
            else:
                for k in range(m.start(), m.end()):
                    out[k] = outer + ((found["name"],) if "name" in found else ())
                for group, cap in found.get("captures", {}).items():
                    for k in range(m.start(int(group)), m.end(int(group))):
                        out[k] = outer + (cap["name"],)
            pos = max(m.end(), pos + (1 if m.end() == start and found is not None else 0))
        return out


def card_tokens(text: str):
    """The card's tokens as Lark's lexer reads them, comments included."""
    lexer = Lark(_grammar_file("sci.lark").read_text(), parser="lalr", lexer="basic")
    return list(lexer.lex(text, dont_ignore=True))


@pytest.fixture(scope="module")
def tm():
    return TextMate(json.loads(TM_FILE.read_text()))


def test_published_grammar_is_current():
    assert json.loads(TM_FILE.read_text()) == textmate_grammar(), \
        "regenerate: python -m scigame.highlight > editors/sci.tmLanguage.json"


EXPECTED = {"COMMENT": "comment.line.number-sign.sci", "UNIT": "support.type.unit.sci",
            "NUMBER": "constant.numeric.sci", "DATE": "constant.numeric.date.sci"}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_textmate_scopes_match_the_card_lexer(tm, path):
    text = path.read_text(encoding="utf-8")
    scopes = tm.scopes(text)
    keywords = set(_keyword_terminals().values())
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    seen = {"keyword": 0, "string": 0}
    for tok in card_tokens(text):
        start = offsets[tok.line - 1] + tok.column - 1
        span = range(start, start + len(tok))
        if tok.type == "STRING":
            want = "string.quoted.triple.sci" if tok.startswith('"""') else "string.quoted.double.sci"
            assert all(scopes[k][:1] == (want,) for k in span), (tok, scopes[start])
            seen["string"] += 1
        elif tok.type in keywords and not text[start + len(tok):].lstrip(" ").startswith("("):
            assert all(scopes[k] == ("keyword.other.sci",) for k in span), (tok, tok.line, scopes[start])
            seen["keyword"] += 1
        elif tok.type in EXPECTED:
            assert all(scopes[k] == (EXPECTED[tok.type],) for k in span), (tok, tok.line, scopes[start])
            seen[tok.type.lower()] = seen.get(tok.type.lower(), 0) + 1
    assert seen["keyword"] > 10 and seen["string"] > 3 and seen.get("unit", 0) + seen.get("number", 0) > 0


def test_textmate_names_the_card_and_functions(tm):
    text = 'card demo "t" {\n  law y = log(x) + sqrt (x)  # c\n  input x in log 1 .. 2\n}\n'
    scopes = tm.scopes(text)
    at = lambda needle, k=0: scopes[text.index(needle) + k]  # noqa: E731
    assert at("demo") == ("entity.name.type.card.sci",)
    assert at("log(") == ("support.function.sci",) and at("sqrt") == ("support.function.sci",)
    assert at("log 1") == ("keyword.other.sci",)
    assert at("# c") == ("comment.line.number-sign.sci",)


# ---- Pygments ---------------------------------------------------------------------------

def test_pygments_finds_the_lexer_by_name_and_file():
    from pygments.lexers import get_lexer_for_filename
    assert isinstance(get_lexer_by_name("sci"), SciLexer)
    assert isinstance(get_lexer_for_filename("gravitation.sci"), SciLexer)
    text = (REPO / "cards/historical/gravitation.sci").read_text()
    assert isinstance(get_lexer_for_filename("gravitation.sci", code=text), SciLexer)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_pygments_tokens_match_the_card_lexer(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(get_lexer_by_name("sci").get_tokens_unprocessed(text))
    assert not [t for t in tokens if t[1] is Error]
    by_offset = {}
    for offset, kind, value in tokens:
        for k in range(len(value)):
            by_offset[offset + k] = kind
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    keywords = set(_keyword_terminals().values())
    for tok in card_tokens(text):
        start = offsets[tok.line - 1] + tok.column - 1
        kind = by_offset[start]
        if tok.type == "STRING":
            assert kind in String, tok
        elif tok.type == "COMMENT":
            assert kind in Comment, tok
        elif tok.type == "UNIT":
            assert kind is Keyword.Type, tok
        elif tok.type in ("NUMBER", "DATE"):
            assert kind in Number, tok
        elif tok.type in keywords and not text[start + len(tok):].lstrip(" ").startswith("("):
            assert kind is Keyword, tok


@pytest.mark.skipif(shutil.which("pygmentize") is None, reason="pygmentize is not on PATH")
def test_pygmentize_highlights_a_card():
    card = REPO / "cards/historical/gravitation.sci"
    out = subprocess.run(["pygmentize", "-l", "sci", "-f", "html", str(card)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert '<span class="k">law</span>' in out.stdout
    assert '<span class="kt">[m^3 kg^-1 s^-2]</span>' in out.stdout
    assert '<span class="c1"># Newton' in out.stdout
