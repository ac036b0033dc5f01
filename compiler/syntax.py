"""Parsing: card text to a Lark parse tree, or one friendly syntax error.

The grammar lives in `grammar/sci.lark` (installed as `scigame.grammar`),
the catalogue of friendly messages in `grammar/syntax_errors.toml`. After a
syntax error the card is not checked further: later errors would mostly be
echoes of the first.
"""

from __future__ import annotations

import functools
import hashlib
import re
from importlib import resources

from .diagnostics import Reporter
from .larklib import Lark, Token, Tree, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from .source import SourceText, Span
from .usercache import user_cache_folder

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
    """The LALR parser, built once per process from the grammar file. Lark
    keeps the analysed tables in a cache file stamped with the hash of the
    grammar, options and Lark version (a stale one is rebuilt), so later
    processes load them instead of analysing the grammar again."""
    return _build_parser("contextual")


@functools.lru_cache(maxsize=1)
def _first_try_parser() -> Lark:
    """The same grammar with Lark's basic lexer: one regular expression for
    every terminal instead of one per parser state that the contextual lexer
    compiles when the state is first reached (half of a lint's parse). Where
    the basic lexer's tokens parse, the contextual lexer gives the same
    tokens (its choice at each position is the first matching terminal of a
    subset, in the same order, that holds the basic lexer's choice), so the
    trees are equal; where they do not (a keyword used as a name), the card
    is parsed again by `parser()`, which also words every syntax error."""
    return _build_parser("basic")


def _build_parser(lexer: str) -> Lark:
    text = _grammar_file("sci.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer=lexer, propagate_positions=True, maybe_placeholders=True,
                cache=_parser_cache_file(text, lexer))


def _parser_cache_file(grammar: str, lexer: str) -> str | bool:
    """A file in the user's cache folder (see usercache.py), one per grammar
    and lexer; False (no cache) where that folder cannot be made."""
    folder = user_cache_folder()
    if folder is None:
        return False
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:12]  # one file per grammar
    suffix = "" if lexer == "contextual" else f"-{lexer}"
    return str(folder / f"sci-parser-{digest}{suffix}.lark-cache")


@functools.lru_cache(maxsize=1)
def _catalogue() -> dict[str, list[str]]:
    import tomllib  # read only after a syntax error
    data = tomllib.loads(_grammar_file("syntax_errors.toml").read_text(encoding="utf-8"))
    return {entry["message"]: [_CARD_PREFIX + f for f in entry["fragments"]]
            for entry in data["error"]}


def parse_tree(source: SourceText, report: Reporter) -> Tree | None:
    """Parse a card; on a syntax error, report it and return None."""
    try:
        return _first_try_parser().parse(source.text)
    except UnexpectedInput:
        pass  # the contextual lexer may still read it (a keyword as a name), or word the error
    try:
        return parser().parse(source.text)
    except UnexpectedInput as exc:
        found = _recognised(source, exc)
        if found is not None:
            report.syntax(found.span, found.message, hints=found.hints, related=found.related)
        else:
            _report_syntax_error(source, exc, report)
        return None


def _terminal_word(name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    term = next((t for t in parser().terminals if t.name == name), None)
    if term is not None and term.pattern.type == "str":
        return f"`{term.pattern.value}`"
    return name.lower()


def _keyword_terminals() -> dict[str, str]:
    """Keyword text -> terminal name: every word the grammar spells out."""
    return {t.pattern.value: t.name for t in _first_try_parser().terminals  # the grammar's, whichever lexer
            if t.pattern.type == "str" and t.pattern.value.isidentifier()}


@functools.lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every keyword of the language (a name may not be one, E202)."""
    return frozenset(_keyword_terminals())


@functools.lru_cache(maxsize=1)
def statement_keywords() -> frozenset[str]:
    """The keywords that start a statement of the card or of its
    counterfactual block: the first word of each alternative of the
    grammar's `_stmt` and `_mutation`."""
    rules: dict[str, list] = {}
    for rule in _first_try_parser().rules:  # the grammar's rules, whichever lexer
        rules.setdefault(rule.origin.name, []).append(rule)
    words = {t.name: t.pattern.value for t in _first_try_parser().terminals if t.pattern.type == "str"}

    def first(name: str) -> set[str]:
        out: set[str] = set()
        for rule in rules[name]:
            head = rule.expansion[0]
            out |= ({words[head.name]} if head.name in words else set()) if head.is_term else first(head.name)
        return out

    return frozenset(first("_stmt") | first("_mutation"))


def describe_expected(expected: set[str]) -> str:
    """Turn a set of terminal names into words: "a name or `{`"."""
    words = []
    names = set(expected)
    if _EXPRESSION_START <= names:
        words.append("an expression")
        names -= _EXPRESSION_START
    statement_words = {_terminal_word(n) for n in names} & {f"`{k}`" for k in statement_keywords()}
    if len(statement_words) > 3:
        words.append("a statement")
        names = {n for n in names if _terminal_word(n) not in statement_words}
    words.extend(sorted({_terminal_word(n) for n in names}))
    if not words:
        return "nothing"
    if len(words) > 8:
        words = words[:7] + [f"{len(words) - 7} more"]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _stack_tokens(exc: UnexpectedInput) -> list[Token]:
    """The last tokens the parser shifted, oldest first."""
    ip = getattr(exc, "interactive_parser", None)
    stack = getattr(getattr(ip, "parser_state", None), "value_stack", None) if ip else None
    out: list[Token] = []
    for item in (stack or [])[-3:]:
        if isinstance(item, Token):
            out.append(item)
        elif isinstance(item, Tree):
            tokens = list(item.scan_values(lambda v: isinstance(v, Token)))
            if tokens:
                out.append(tokens[-1])
    return out


def _expected(exc: UnexpectedInput) -> set[str]:
    """What the parser would really accept here: `accepts()` simulates the
    reductions, so LALR's merged states do not widen the list."""
    ip = getattr(exc, "interactive_parser", None)
    if ip is not None:
        try:
            return set(ip.accepts())
        except Exception:  # fall back to the state's raw expectations
            pass
    return set(getattr(exc, "expected", None) or ())


def _recognised(source: SourceText, exc: UnexpectedInput):
    """A newcomer mistake recognised around the error (see syntax_hints.py), or None."""
    from .syntax_hints import recognise
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedCharacters):
        span = Span(exc.line, exc.column, exc.line, exc.column + 1)
    elif token is None or token.type == "$END":
        lines = source.text.split("\n")
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        span = Span(len(lines), len(lines[-1].rstrip("\r")) + 1, len(lines), len(lines[-1].rstrip("\r")) + 2)
    else:
        span = Span(token.line, token.column, token.end_line or token.line, token.end_column or token.column + 1)
    return recognise(source, exc, _expected(exc) if not isinstance(exc, UnexpectedCharacters) else set(), span)


def _report_bad_character(source: SourceText, exc: UnexpectedCharacters, report: Reporter) -> None:
    line, column = max(getattr(exc, "line", 1) or 1, 1), max(getattr(exc, "column", 1) or 1, 1)
    char = source.text[exc.pos_in_stream] if exc.pos_in_stream < len(source.text) else ""
    report.bad_character(Span(line, column, line, column + 1), char)


def _report_syntax_error(source: SourceText, exc: UnexpectedInput, report: Reporter) -> None:
    if isinstance(exc, UnexpectedCharacters):
        _report_bad_character(source, exc, report)
        return
    token = getattr(exc, "token", None)
    at_end = token is None or token.type == "$END"
    if at_end:
        lines = source.text.split("\n")  # as Lark counts lines
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        line, column = len(lines), len(lines[-1].rstrip("\r")) + 1
        span = Span(line, column, line, column + 1)
        found = "the end of the file"
    else:
        span = Span(token.line, token.column, token.end_line or token.line,
                    token.end_column or token.column + 1)
        found = f"`{token}`"
    expected = _expected(exc)
    shifted = _stack_tokens(exc)
    prev = str(shifted[-1]) if shifted else ""
    # A keyword read as a name because an expression was still open:
    # `law F = a /` followed by `counterfactual "..." {`.
    if shifted and shifted[-1].type == "NAME" and str(shifted[-1]) in statement_keywords():
        kw = shifted[-1]
        before = _text_before(source, kw)
        if before and before[-1] in "+-*/^=(,<>":
            report.unfinished_expression(Span(kw.line, kw.column, kw.end_line, kw.end_column), before[-1], str(kw))
            return
    if at_end and "RBRACE" in expected:
        report.card_not_closed(span, describe_expected(expected))
        return
    # `rebalance G at r = 5 [m] m1 = 2`: a reference point without its comma
    if (not at_end and token.type == "NAME" and "COMMA" in expected and _next_char(source, token) == "="
            and re.search(r"\brebalance\s+\w+\s+at\b[^{}\n]*$", _text_before(source, token))):
        report.reference_comma(span, str(token))
        return
    # A statement that lost its keyword: `F = a * b`
    if (not at_end and token.type == "NAME" and "RBRACE" in expected
            and (expected & set(_keyword_terminals().values()))):
        report.missing_keyword(span, str(token), _next_char(source, token) == "=")
        return
    report.unexpected(span, found, describe_expected(expected), prev, _catalogue_message(exc) or "")


_OPERATOR_TOKENS = {"STAR", "SLASH", "PLUS", "MINUS", "CIRCUMFLEX", "EQUAL", "LPAR", "COMMA", "COMPARE"}


def _text_before(source: SourceText, token: Token) -> str:
    """The card text before a token, without trailing blanks and comments."""
    lines = source.text[:token.start_pos].split("\n")
    while lines:
        last = lines[-1].split("#", 1)[0].rstrip()
        if last:
            return "\n".join(lines[:-1] + [last])
        lines.pop()
    return ""


def _next_char(source: SourceText, token: Token) -> str:
    rest = source.text[token.end_pos:] if token.end_pos is not None else ""
    rest = rest.lstrip()
    return rest[:1]


@functools.lru_cache(maxsize=1)
def _catalogue_index() -> tuple[dict, dict]:
    """Parse every catalogue fragment once and index its failure by parser
    state and the set of tokens acceptable there (and by the failing token,
    for an exact match). Only the state on top of the stack is compared, so
    a fragment written as a card's first statement also matches the same
    mistake further down; comparing what is acceptable keeps LALR's merged
    states from matching a mistake made in another context."""
    exact: dict[tuple, str] = {}
    by_state: dict[tuple, set[str]] = {}
    for message, fragments in _catalogue().items():
        for text in fragments:
            try:
                parser().parse(text)
            except UnexpectedToken as ut:
                key = (ut.state.position, frozenset(_expected(ut)))
                exact.setdefault(key + (ut.token.type,), message)
                by_state.setdefault(key, set()).add(message)
            except UnexpectedInput:
                continue
    return exact, {k: next(iter(v)) for k, v in by_state.items() if len(v) == 1}


def _catalogue_message(exc: UnexpectedInput) -> str | None:
    if not isinstance(exc, UnexpectedToken) or exc.state is None:
        return None
    exact, by_state = _catalogue_index()
    key = (exc.state.position, frozenset(_expected(exc)))
    return exact.get(key + (exc.token.type,)) or by_state.get(key)
