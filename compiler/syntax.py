"""Parsing: card text to a Lark parse tree, or one friendly syntax error.

The grammar lives in `grammar/sci.lark` (installed as `scigame.grammar`),
the catalogue of friendly messages in `grammar/syntax_errors.toml`. After a
syntax error the card is not checked further: later errors would mostly be
echoes of the first.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from .diagnostics import Reporter
from .source import SourceText, Span

_CARD_PREFIX = 'card c "t" {\n'

#: How regex terminals are named in messages.
_TERMINAL_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": 'a string in quotes',
    "UNIT": "a unit in brackets",
    "DATE": "a date (YYYY-MM-DD)",
    "COMPARE": "a comparison (`<`, `<=`, `>`, `>=`)",
    "MINUS": "`-`",
    "PERCENT": "`%`",
    "$END": "the end of the file",
}
#: Tokens that can start an expression: when all are expected, say "an expression".
_EXPRESSION_START = {"NAME", "NUMBER", "LPAR", "MINUS"}


def _grammar_file(name: str):
    return resources.files("scigame.grammar").joinpath(name)


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR parser, built once per process from the grammar file."""
    text = _grammar_file("sci.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=True)


@functools.lru_cache(maxsize=1)
def _catalogue() -> dict[str, list[str]]:
    data = tomllib.loads(_grammar_file("syntax_errors.toml").read_text(encoding="utf-8"))
    return {entry["message"]: [_CARD_PREFIX + f for f in entry["fragments"]]
            for entry in data["error"]}


def parse_tree(source: SourceText, report: Reporter) -> Tree | None:
    """Parse a card; on a syntax error, report it and return None."""
    try:
        return parser().parse(source.text)
    except UnexpectedInput as exc:
        _report_syntax_error(source, exc, report)
        return None


def _terminal_word(name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    term = next((t for t in parser().terminals if t.name == name), None)
    if term is not None and term.pattern.type == "str":
        return f"`{term.pattern.value}`"
    return name.lower()


def describe_expected(expected: set[str]) -> str:
    """Turn a set of terminal names into words: "a name or `{`"."""
    words = []
    names = set(expected)
    if _EXPRESSION_START <= names:
        words.append("an expression")
        names -= _EXPRESSION_START
    words.extend(sorted({_terminal_word(n) for n in names}))
    if not words:
        return "nothing"
    if len(words) > 6:
        words = words[:6] + ["..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _previous_text(exc: UnexpectedInput) -> str:
    ip = getattr(exc, "interactive_parser", None)
    stack = getattr(getattr(ip, "parser_state", None), "value_stack", None) if ip else None
    if stack:
        last = stack[-1]
        if isinstance(last, Token):
            return str(last)
        if isinstance(last, Tree):
            tokens = list(last.scan_values(lambda v: isinstance(v, Token)))
            if tokens:
                return str(tokens[-1])
    return ""


def _report_syntax_error(source: SourceText, exc: UnexpectedInput, report: Reporter) -> None:
    line, column = max(getattr(exc, "line", 1) or 1, 1), max(getattr(exc, "column", 1) or 1, 1)
    if isinstance(exc, UnexpectedCharacters):
        char = source.text[exc.pos_in_stream] if exc.pos_in_stream < len(source.text) else ""
        span = Span(line, column, line, column + 1)
        hint = []
        if char == "'":
            hint.append('strings use double quotes: "..."')
        elif char in "[]":
            hint.append("units are written right after a name or number, e.g. `9.81 [m/s^2]`")
        report.syntax(span, f"unexpected character `{char}`", hints=hint)
        return
    token = getattr(exc, "token", None)
    at_end = token is None or token.type == "$END"
    if at_end:
        lines = source.text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        span = Span(line, column, line, column + 1)
        found = "the end of the file"
    else:
        span = Span(token.line, token.column, token.end_line or token.line,
                    token.end_column or token.column + 1)
        found = f"`{token}`"
    expected = set(getattr(exc, "expected", None) or getattr(exc, "accepts", None) or ())
    prev = _previous_text(exc)
    message = _catalogue_message(source, exc)
    if message:
        message = message.replace("{prev}", prev or "this")
    else:
        message = f"expected {describe_expected(expected)}" + (f" after `{prev}`" if prev else "")
    report.syntax(span, message, hints=[f"found {found}; expected {describe_expected(expected)}"])


def _catalogue_message(source: SourceText, exc: UnexpectedInput) -> str | None:
    try:
        return exc.match_examples(parser().parse, _catalogue(), use_accepts=True)
    except Exception:  # a catalogue problem must never hide the real error
        return None
