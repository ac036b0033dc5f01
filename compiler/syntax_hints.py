"""Newcomer mistakes recognised in the text around a syntax error.

The catalogue beside the grammar (`grammar/syntax_errors.toml`) maps parser
states to messages; some common mistakes leave the parser in a state that
many other mistakes share (`a**n` fails like `a * * n`, a unit without
brackets like any stray name, an unclosed `(` only where the next statement
begins). Each detector here looks at the text the error happened in and,
when it recognises its mistake, says what was meant; `recognise` returns
the first that does. Every message is written here, for E100.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

from .larklib import UnexpectedCharacters, UnexpectedInput
from .source import SourceText, Span


@dataclass(frozen=True)
class Recognised:
    """What a detector found: where, the message, help lines and related places."""

    span: Span
    message: str
    hints: tuple[str, ...] = ()
    related: tuple[tuple[Span, str], ...] = ()


@dataclass(frozen=True)
class ErrorSite:
    """A syntax error, as the detectors read it."""

    source: SourceText
    exc: UnexpectedInput
    pos: int  # offset of the failing token or character in the text
    token_type: str  # the failing token's type ("$END" at the end, "" for a bad character)
    token_text: str
    expected: frozenset[str]
    span: Span  # where the error would be reported otherwise

    @property
    def line_text(self) -> str:
        return self.source.line(self.span.line)

    @property
    def before_on_line(self) -> str:
        start = self.source.text.rfind("\n", 0, self.pos) + 1
        return self.source.text[start:self.pos]

    @property
    def after_on_line(self) -> str:
        end = self.source.text.find("\n", self.pos)
        return self.source.text[self.pos: end if end >= 0 else len(self.source.text)]


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _span_at(text: str, offset: int, length: int = 1) -> Span:
    line, column = _position(text, offset)
    return Span(line, column, line, column + length)


# ---- the detectors ------------------------------------------------------------------

def _double_star(site: ErrorSite) -> Optional[Recognised]:
    """`a**n`: Python's power operator."""
    text = site.source.text
    if site.token_type != "STAR" or site.pos == 0 or text[site.pos - 1] != "*":
        return None
    line = site.line_text.replace("**", "^").strip()
    return Recognised(_span_at(text, site.pos - 1, 2), "`**` is not an operator in .sci: a power is written "
                      "with `^`", (f"write `{line}`",))


_UNIT_PART = re.compile(r"(\s*[*/]?\s*)([A-Za-z_][A-Za-z0-9_]*)"
                        r"(\s*\^\s*(?:-?\d+(?:\.\d+)?|\(\s*-?\d+\s*/\s*\d+\s*\)))?")


def _unit_words(site: ErrorSite) -> str:
    """The unit written from the error on (`m^3 kg^-1 s^-2`, `N/m`): words
    pint knows as units and the card does not declare as names."""
    from .units import is_known_unit
    text, pos, out = site.after_on_line, 0, ""
    while True:
        m = _UNIT_PART.match(text, pos)
        if m is None or (pos and not m.group(1)) or (not pos and m.group(1)):
            return out.strip()
        word = m.group(2)
        declared = re.search(rf"\b(?:input|output|param|let)\s+{re.escape(word)}\b", site.source.text)
        if declared or not is_known_unit(word):
            return out.strip()
        out += m.group(0)
        pos = m.end()


def _unit_without_brackets(site: ErrorSite) -> Optional[Recognised]:
    """`param k = 2 N/m` or `9.81 m/s^2 * x`: a unit after a number, without brackets."""
    if site.token_type != "NAME" or not re.search(r"\d\s+$", site.before_on_line):
        return None
    unit = _unit_words(site)
    if not unit:
        return None
    number = re.search(r"(\S+)\s+$", site.before_on_line).group(1)
    return Recognised(Span(site.span.line, site.span.column, site.span.line, site.span.column + len(unit)),
                      f"units go in square brackets: `{number} [{unit}]`, not `{number} {unit}`",
                      (f"write `{number} [{unit}]`",))


_CLOSERS = {"(": ")", "{": "}", "[": "]"}


def _open_brackets(text: str, end: int) -> list[tuple[str, int]]:
    """The brackets opened before offset `end` and not closed, outermost
    first, skipping strings, comments and units."""
    stack: list[tuple[str, int]] = []
    unclosed: list[tuple[str, int]] = []
    i = 0
    while i < end:
        ch = text[i]
        if text.startswith('"""', i):
            close = text.find('"""', i + 3)
            i = len(text) if close < 0 else close + 3
            continue
        if ch == '"':
            m = re.compile(r'"(?:[^"\\\n]|\\.)*"?').match(text, i)
            i = m.end()
            continue
        if ch == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if ch == "[":
            m = re.compile(r"\[[^\]\n]*\]").match(text, i)
            if m:
                i = m.end()
                continue
        if ch in "({":
            stack.append((ch, i))
        elif ch == "}" and _closes_outer(text, i, stack):
            unclosed.append(stack.pop())  # a `}` at an outer block's indentation: the inner one is open
            stack.pop()
        elif ch in ")}" and stack and _CLOSERS[stack[-1][0]] == ch:
            stack.pop()
        i += 1
    return stack + unclosed[:1]


def _indent(text: str, offset: int) -> int:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:]
    return len(line) - len(line.lstrip(" \t"))


def _closes_outer(text: str, at: int, stack: list[tuple[str, int]]) -> bool:
    """Whether the `}` at `at`, first on its line, lines up with the line of
    the `{` below the top of the stack rather than the top's own: then the
    top block lost its `}` (a reader goes by indentation)."""
    if len(stack) < 2 or stack[-1][0] != "{" or stack[-2][0] != "{":
        return False
    start = text.rfind("\n", 0, at) + 1
    if text[start:at].strip():
        return False
    here = _indent(text, at)
    return here < _indent(text, stack[-1][1]) and here == _indent(text, stack[-2][1])


def _unclosed_bracket(site: ErrorSite) -> Optional[Recognised]:
    """An unclosed `(` or `{`: named where it was opened, not only where the parser noticed."""
    wants = {"(": "RPAR", "{": "RBRACE"}
    never = {at for _, at in _open_brackets(site.source.text, len(site.source.text))}
    stack = [b for b in _open_brackets(site.source.text, site.pos) if b[1] in never]
    if not stack:
        return None  # every bracket open here is closed later: some other mistake
    opener, at = stack[-1]
    if wants[opener] not in site.expected or (opener == "{" and at == site.source.text.find("{")):
        return None  # the card's own `}` missing at the end has its message in syntax.py
    line, _ = _position(site.source.text, at)
    if line == site.span.line and site.token_type != "$END":
        return None  # on its own line the ordinary message points close enough
    if opener == "{":
        head = site.source.text[site.source.text.rfind("\n", 0, at) + 1:at].strip()
        what = f"the `{{` of `{head}`" if head else "this `{`"
    else:
        what = "this `(`"
    found = "the end of the file" if site.token_type == "$END" else f"`{site.token_text}` at line {site.span.line}"
    return Recognised(_span_at(site.source.text, at), f"{what} is never closed",
                      (f"add `{_CLOSERS[opener]}` to close it; the parser noticed only at {found}",),
                      ((site.span, "the parser stopped here"),))


def _equality(site: ErrorSite) -> Optional[Recognised]:
    """`constraint x = 1` or `==`: an equality where a comparison is needed."""
    if site.token_type != "EQUAL":
        return None
    statement = re.search(r"\b(constraint|where)\b[^\n\"]*$", site.before_on_line)
    if statement is None:
        return None
    double = site.after_on_line.startswith("==")
    what = "a constraint" if statement.group(1) == "constraint" else "a law's `where`"
    op = "==" if double else "="
    return Recognised(_span_at(site.source.text, site.pos, 2 if double else 1),
                      f"{what} compares with `<`, `<=`, `>` or `>=`; `{op}` is not a comparison",
                      ("a constraint bounds a region of the inputs; to hold an input at one value, make it "
                       "a `param` or give it a domain of that one value (`in {V}`)" if what == "a constraint"
                       else "a law has a value where the comparison holds, e.g. `where x <= 1`",))


def _missing_opening_quote(site: ErrorSite) -> Optional[Recognised]:
    """`"distance` written as `distance"`: the opening quote is missing."""
    if site.token_type != "NAME" or "STRING" not in site.expected:
        return None
    rest = site.after_on_line.split("#", 1)[0]
    if '"' not in rest or rest.count('"') % 2 == 0:
        return None
    text = rest[:rest.index('"')]
    return Recognised(Span(site.span.line, site.span.column, site.span.line, site.span.column + len(text) + 1),
                      "a description is written in double quotes, and its opening `\"` is missing",
                      (f'write `"{text}"`',))


def _unclosed_string(site: ErrorSite) -> Optional[Recognised]:
    """`"distance` with no closing quote on its line."""
    if site.token_type or site.source.text[site.pos:site.pos + 1] != '"':
        return None
    return Recognised(site.span, "this string is never closed: its closing `\"` is missing on this line",
                      ('add `"` at the end of the text; text over several lines is written """..."""',))


def _unclosed_unit(site: ErrorSite) -> Optional[Recognised]:
    """`[m/s^2` with no `]` on its line."""
    if site.token_type or site.source.text[site.pos:site.pos + 1] != "[" or "]" in site.after_on_line:
        return None
    return Recognised(site.span, "this `[` is never closed: a unit is written in brackets on one line",
                      ("close it with `]`, e.g. `[m/s^2]`",))


DETECTORS: tuple[Callable[[ErrorSite], Optional[Recognised]], ...] = (
    _double_star, _missing_opening_quote, _unit_without_brackets, _equality, _unclosed_string,
    _unclosed_unit, _unclosed_bracket)


def recognise(source: SourceText, exc: UnexpectedInput, expected: set[str], span: Span) -> Optional[Recognised]:
    """The first newcomer mistake the text around `exc` shows, if any."""
    if isinstance(exc, UnexpectedCharacters):
        pos, kind, text = exc.pos_in_stream, "", source.text[exc.pos_in_stream:exc.pos_in_stream + 1]
    else:
        token = getattr(exc, "token", None)
        if token is None or token.type == "$END":
            pos, kind, text = len(source.text), "$END", ""
        else:
            pos, kind, text = token.start_pos, token.type, str(token)
    site = ErrorSite(source, exc, pos, kind, text, frozenset(expected), span)
    for detect in DETECTORS:
        found = detect(site)
        if found is not None:
            return found
    return None
