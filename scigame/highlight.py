"""Syntax highlighting of `.sci` cards: a Pygments lexer and a TextMate grammar.

Registered as the Pygments lexer `sci` (entry point in pyproject.toml), so
after installing scigame `pygmentize -l sci card.sci` and Markdown tools
that use Pygments (```sci fences) highlight cards. The keywords, the
number pattern and the function names come from the grammar and the
checker, not from a list kept here.

`textmate_grammar()` builds `editors/sci.tmLanguage.json` (for VS Code and
GitHub-style highlighters) from the same facts; regenerate it after a
grammar change with `python -m scigame.highlight > editors/sci.tmLanguage.json`.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from .grammar import terminal_pattern


def _keywords() -> list[str]:
    from .compiler.syntax import _keyword_terminals
    return sorted(_keyword_terminals())


def _number_pattern() -> str:
    from .compiler.syntax import parser
    return next(t.pattern.value for t in parser().terminals if t.name == "NUMBER")


def _functions() -> list[str]:
    from .compiler.checker import FUNCTIONS
    return sorted(FUNCTIONS)


class SciLexer(RegexLexer):
    """Lexer for scigame's `.sci` science cards."""

    name = "sci"
    aliases = ["sci", "scigame"]
    filenames = ["*.sci"]
    mimetypes = ["text/x-sci"]
    priority = 0.1  # Scilab also claims *.sci; a card file is ours unless its text says otherwise

    def analyse_text(text):
        return 1.0 if re.search(r'^\s*card\s+[A-Za-z_]\w*\s+"', text, re.M) else 0.0

    tokens = {
        "root": [
            (r"[ \t\r\n]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"""', String.Doc, "triple"),
            (r'"', String.Double, "string"),
            (terminal_pattern("UNIT"), Keyword.Type),
            (terminal_pattern("DATE"), Number.Other),
            (_number_pattern() + "%?", Number),
            (r"\b(card)(\s+)([A-Za-z_]\w*)", bygroups(Keyword, Whitespace, Name.Class)),
            (words(_functions(), prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),  # before `log`, `abs`
            (words(_keywords(), prefix=r"\b", suffix=r"\b"), Keyword),
            (r"\bpi\b", Name.Builtin.Pseudo),
            (terminal_pattern("NAME"), Name),
            (r"\.\.|<=|>=|[-+*/^=<>]", Operator),
            (r"[{}(),;%]", Punctuation),
            (r".", Text),
        ],
        "triple": [
            (r'\\["\\]', String.Escape),
            (r'"""', String.Doc, "#pop"),
            (r'[^"\\]+|["\\]', String.Doc),
        ],
        "string": [
            (r'\\["\\]', String.Escape),
            (r'"', String.Double, "#pop"),
            (r'[^"\\\n]+', String.Double),
            (r"\n", Text, "#pop"),
        ],
    }


def _alternation(ws: list[str]) -> str:
    return "|".join(sorted(ws, key=lambda w: (-len(w), w)))


def textmate_grammar() -> dict:
    """The TextMate grammar of `.sci` (scope `source.sci`)."""
    escape = {"name": "constant.character.escape.sci", "match": r'\\["\\]'}
    order = ["comment", "triple-string", "string", "unit", "date", "number", "card-name", "function",
             "keyword", "constant", "operator", "punctuation"]
    number = _number_pattern().replace("(", "(?:").replace("(?:?", "(?")
    repo = {
        "comment": {"name": "comment.line.number-sign.sci", "match": "#.*$"},
        "triple-string": {"name": "string.quoted.triple.sci", "begin": '"""', "end": '"""', "patterns": [escape]},
        "string": {"name": "string.quoted.double.sci", "begin": '"', "end": '"|$', "patterns": [escape]},
        "unit": {"name": "support.type.unit.sci", "match": terminal_pattern("UNIT")},
        "date": {"name": "constant.numeric.date.sci", "match": r"\b" + terminal_pattern("DATE") + r"\b"},
        "number": {"name": "constant.numeric.sci", "match": r"(?<![A-Za-z0-9_.])" + number + "%?"},
        "card-name": {"match": r"\b(card)\s+(" + terminal_pattern("NAME") + ")",
                      "captures": {"1": {"name": "keyword.other.sci"}, "2": {"name": "entity.name.type.card.sci"}}},
        "function": {"name": "support.function.sci", "match": r"\b(?:" + _alternation(_functions()) + r")(?=\s*\()"},
        "keyword": {"name": "keyword.other.sci", "match": r"\b(?:" + _alternation(_keywords()) + r")\b"},
        "constant": {"name": "constant.language.sci", "match": r"\bpi\b"},
        "operator": {"name": "keyword.operator.sci", "match": r"\.\.|<=|>=|[-+*/^=<>]"},
        "punctuation": {"name": "punctuation.separator.sci", "match": "[{}(),;]"},
    }
    return {"name": "scigame card", "scopeName": "source.sci", "fileTypes": ["sci"],
            "patterns": [{"include": f"#{k}"} for k in order], "repository": repo}


if __name__ == "__main__":  # pragma: no cover - regenerates editors/sci.tmLanguage.json
    import json
    import sys
    json.dump(textmate_grammar(), sys.stdout, indent=2)
    sys.stdout.write("\n")
