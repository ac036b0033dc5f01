"""What a card with errors still says, for an editor.

An editor's card has errors most of the time. `recovering_parse` reads as
much of the text as parses: after a syntax error it blanks the lines of the
statement that failed (keeping every other position where it was) and
tries again. `partial_model` then runs the checker's first passes on that
AST without stopping at errors: names, their units and dimensions, and the
typed expressions of the original world, with `None` dimensions where a
mistake left them unknown (typer.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import ast as A
from .diagnostics import Reporter
from .model import TExpr
from .source import SourceText
from .units import Dim, Unit

#: Syntax errors `recovering_parse` steps over before giving up.
MAX_RECOVERIES = 20


def _statement_lines(text: str, line: int) -> range:
    """The lines of the statement around a 1-based line: from the line that
    starts it (a line whose first word is a keyword, or the card's first
    line) to the line before the next such line."""
    from .syntax import statement_keywords
    lines = text.split("\n")
    starts = statement_keywords() | {"card", "}"}

    def starts_statement(i: int) -> bool:
        words = lines[i].split()
        return bool(words) and (words[0] in starts or words[0].startswith("}"))
    first = line - 1
    while first > 0 and not starts_statement(first):
        first -= 1
    last = line
    while last < len(lines) and not starts_statement(last):
        last += 1
    return range(first, max(last, first + 1))


def recovering_parse(text: str, path: str = "<string>") -> Optional[A.Card]:
    """The AST of as much of the card as parses (None if nothing does)."""
    from .front import parse_source
    for _ in range(MAX_RECOVERIES):
        card, diags = parse_source(text, path)
        if card is not None:
            return card
        syntax = [d for d in diags if d.code == "E100"]
        if not syntax:
            return None
        lines = text.split("\n")
        span = _statement_lines(text, min(syntax[0].span.line, len(lines)))
        blank = [i for i in span if i < len(lines) and lines[i].strip()
                 and not lines[i].lstrip().startswith("card ")]
        if not blank:
            return None  # nothing left to blank: the card's own lines are broken
        for i in blank:
            lines[i] = " " * len(lines[i])
        text = "\n".join(lines)
        if not text.rstrip().endswith("}"):
            text += "\n}"
    return None


@dataclass(frozen=True)
class NameInfo:
    """A declared name: its kind, unit (None when unknown) and dimension."""

    name: str
    kind: str  # input output param let
    unit: Optional[Unit]
    dim: Optional[Dim]
    description: str
    statement: object


@dataclass
class PartialModel:
    card: A.Card
    names: dict[str, NameInfo] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)  # units the card defines
    expressions: list[tuple[str, TExpr]] = field(default_factory=list)  # (world, typed expression)


def partial_model(card: A.Card, text: str, path: str = "<string>") -> PartialModel:
    """The checker's reading of a card that may have errors (see the module doc)."""
    from .checker import _Checker
    report = Reporter(SourceText(path, text))
    c = _Checker(card, report.source, report)
    c.collect()
    c.check_unit_definitions()
    c.check_declarations()
    original = c.original_state()
    typed = c.type_environment(original, report)
    out = PartialModel(card, units={n: u for n, (u, _) in c.card_units.items()})
    out.expressions += [("original", e) for e in (*typed.lets.values(), *typed.laws.values())]
    for w in typed.wheres.values():
        out.expressions += [("original", w.left), ("original", w.right)]
    for constraint in c.check_constraints(original, typed):
        out.expressions += [("both worlds", constraint.left), ("both worlds", constraint.right)]
    for name, sym in c.symbols.items():
        node = sym.node
        if sym.kind == "let":
            let = typed.lets.get(name)
            out.names[name] = NameInfo(name, "let", None, let.dim if let is not None else None, "", node)
            continue
        unit = c.units.get(node.unit) if node.unit is not None else c.unit(None)
        out.names[name] = NameInfo(name, sym.kind, unit, unit.dim if unit else None,
                                   getattr(node, "description", ""), node)
    return out
