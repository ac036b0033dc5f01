"""The canonical layout of a card (`scigame fmt`).

`format_text(text)` parses a card (without checking it), keeps its comments
and its blank-line groups, and writes it back in one layout:

- statements in the order of the alternatives of `_stmt` in
  `grammar/sci.lark` (the order inside each kind, and the order of the
  mutations of a counterfactual, is kept: it carries meaning);
- two spaces of indentation per block, one statement per line;
- the columns of runs of `input`/`output`, `param` and header lines aligned
  (a run ends at a blank line), descriptions two spaces after their column;
- a `background` always as a `\"\"\"` block, other strings in `"..."`
  unless they span lines;
- expressions spaced as `compiler.printer.format_expr` writes them, with
  only the parentheses they need; numbers and units as written.

A comment on its own line travels with the statement after it; a comment at
the end of a line stays at the end of that statement's line. Blank lines
between statements are kept (several become one).

The layout of one statement is one small function in `CELLS`, keyed by the
AST class: a new statement form is one more entry.

The result is parsed again and compared with the card as read (`card_shape`:
the AST without spans); a layout that would read as another card is refused
with an error and the file is left as written.
"""

from __future__ import annotations

import functools
import re
import textwrap
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Callable, Optional

from . import ast as A
from .diagnostics import Diagnostic, Reporter
from .larklib import Lark, Token, UnexpectedInput
from .printer import format_expr
from .source import SourceText
from .statements import build_card, rule_of
from .syntax import _grammar_file, parser

INDENT = "  "

# ---- what the grammar says -------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _grammar_facts() -> tuple[dict[str, int], dict[str, str]]:
    """The canonical statement order (the alternatives of `_stmt`, in the
    grammar's order) and, for each one-value header statement, the terminal
    its value is written as (NAME, STRING or DATE)."""
    order: dict[str, int] = {}
    value_terminal: dict[str, str] = {}
    for rule in parser().rules:
        if rule.origin.name == "_stmt":
            order.setdefault(rule.expansion[0].name, len(order))
    for rule in parser().rules:
        syms = [s.name for s in rule.expansion]
        if rule.origin.name in order and len(syms) == 2 and syms[1] in ("NAME", "STRING", "DATE"):
            value_terminal[str(rule.origin.name)] = syms[1]
    return order, value_terminal


def statement_order(node) -> int:
    """The position of a statement's kind in the canonical order."""
    order, _ = _grammar_facts()
    return order.get(rule_of(node), len(order))


# ---- strings ---------------------------------------------------------------------


def string_literal(value: str, block: bool = False) -> str:
    """A `.sci` string whose value is `value`: `"..."` on one line, or a
    `\"\"\"` block (content indented by INDENT, relative to the statement)
    when the value spans lines or `block` asks for one."""
    if "\n" not in value and not (block and _block_keeps(value)):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    body = value.replace("\\", "\\\\")
    body = re.sub(r'"(?=")', '\\"', body)  # no run of three quotes can close the block early
    lines = [(INDENT + line) if line else "" for line in body.split("\n")]
    return '"""\n' + "\n".join(lines) + '\n"""'


def _block_keeps(value: str) -> bool:
    """Would a `\"\"\"` block read back as exactly this value (it is dedented,
    stripped of blank first and last lines and of trailing blanks)?"""
    return bool(value.strip()) and textwrap.dedent(value) == value and value.strip("\n") == value \
        and all(line == line.rstrip() for line in value.split("\n"))


def _unit(u: Optional[A.UnitRef]) -> str:
    return f"[{u.text}]" if u is not None else ""


def _with_unit(text: str, u: Optional[A.UnitRef]) -> str:
    return f"{text} {_unit(u)}" if u is not None else text


def _desc(text: str) -> str:
    return string_literal(text) if text else ""


# ---- one statement as cells ------------------------------------------------------
# A cell is (column key, text). Cells with the same key line up within a run;
# key None is never padded; key "desc" is set two spaces apart.

Cell = tuple[Optional[str], str]


def _meta(s: A.Meta) -> list[Cell]:
    kind = _grammar_facts()[1].get(s.key, "STRING")
    text = string_literal(s.value, block=s.key == "background") if kind == "STRING" else s.value
    return [("meta", s.key), (None, text)]


def _domain(d: A.Domain) -> str:
    if isinstance(d, A.SetDomain):
        return "in {" + ", ".join(v.text for v in d.values) + "}"
    prefix = {"range": "in", "log": "in log", "integer": "integer in"}[d.kind]
    return f"{prefix} {d.lo.text} .. {d.hi.text}"


def _input(s: A.Input) -> list[Cell]:
    return [("io.kw", "input"), ("io.name", s.name), ("io.unit", _unit(s.unit)),
            ("input.domain", _domain(s.domain)), ("desc", _desc(s.description))]


def _output(s: A.Output) -> list[Cell]:
    spec = f"resolution {s.resolution.text} " if s.resolution is not None else ""
    spec += f"tolerance abs {s.tol_abs.text} rel {s.tol_rel.text}"
    if s.noise is not None:
        spec += f" noise {s.noise.kind} rel {s.noise.rel.text}"
        spec += f" abs {s.noise.abs.text}" if s.noise.abs is not None else ""
    return [("io.kw", "output"), ("io.name", s.name), ("io.unit", _unit(s.unit)),
            ("output.spec", spec), ("desc", _desc(s.description))]


def _where(w: Optional[A.Where]) -> str:
    if w is None:
        return ""
    return f" where {format_expr(w.left)} {w.op} {format_expr(w.right)} {string_literal(w.reason)}"


def _param(s: A.Param) -> list[Cell]:
    return [("param.kw", "param"), ("param.name", s.name), (None, "="),
            ("param.value", _with_unit(s.value.text, s.unit)), ("desc", _desc(s.description))]


def _seeded(words: str, seed: Optional[A.Literal]) -> list[Cell]:
    return [(None, words + (f" seed {seed.text}" if seed is not None else ""))]


def _design_explicit(s: A.DesignExplicit) -> list[Cell]:
    points = " ; ".join(" ".join(f"{a.name}={a.value.text}" for a in p) for p in s.points)
    return [(None, "fixed design { " + points + " }")]


#: The cells of each statement that is not a block (BLOCKS), by AST class.
CELLS: dict[type, Callable[..., list[Cell]]] = {
    A.Meta: _meta,
    A.Input: _input,
    A.Output: _output,
    A.Param: _param,
    A.Let: lambda s: [(None, f"let {s.name} = {format_expr(s.expr)}")],
    A.Law: lambda s: [(None, f"law {s.name} = {format_expr(s.expr)}" + _where(s.where))],
    A.UnitDefinition: lambda s: [(None, f"unit {s.name} = {_with_unit(s.value.text, s.unit)}"),
                                 ("desc", _desc(s.description))],
    A.Constraint: lambda s: [(None, f"constraint {format_expr(s.left)} {s.op} {format_expr(s.right)}"),
                             ("desc", _desc(s.message))],
    A.SetMutation: lambda s: [(None, f"set {s.name} = {_with_unit(s.value.text, s.unit)}")],
    A.ScaleMutation: lambda s: [(None, f"scale {s.name} by {s.factor.text}")],
    A.RebalanceMutation: lambda s: [(None, f"rebalance {s.name}" + (" at " + ", ".join(
        f"{r.name} = {_with_unit(r.value.text, r.unit)}" for r in s.reference) if s.reference else ""))],
    A.MagnitudeDiffers: lambda s: [(None, f"magnitude differs {string_literal(s.reason)}")],
    A.DesignGenerated: lambda s: _seeded(f"fixed design {s.count.text} {s.method}", s.seed),
    A.DesignExplicit: _design_explicit,
    A.Evaluation: lambda s: [(None, _seeded(f"evaluation {s.count.text}", s.seed)[0][1]
                              + (f" ood {s.ood.text}" if s.ood is not None else ""))],
    A.Identification: lambda s: [(None, f"identification interpolate {s.value}")],
    # systems (LANGUAGE.md, version 2)
    A.LawFunction: lambda s: [(None, f"law {s.name}({', '.join(p for p, _ in s.params)}) = {format_expr(s.expr)}")],
    A.Argument: lambda s: [("arg.kw", "argument"), ("arg.name", s.name), ("arg.unit", _unit(s.unit)),
                           ("arg.domain", _domain(s.domain)), ("desc", _desc(s.description))],
    A.SystemTime: lambda s: [("sys.kw", "time"), (None, s.name)],
    A.State: lambda s: [("sys.kw", "state"), ("sys.name", s.name), ("sys.unit", _unit(s.unit)),
                        (None, f"= {format_expr(s.init)}"), ("desc", _desc(s.description))],
    A.Rate: lambda s: [("sys.kw", "rate"), ("sys.name", s.name), (None, f"= {format_expr(s.expr)}")],
    A.Adaptive: lambda s: [(None, f"adaptive threshold {s.threshold.text}"
                                  + (f" max_steps {s.max_steps.text}" if s.max_steps is not None else ""))],
}


#: Statements written as a block of statements -> (their head, their statements).
BLOCKS: dict[type, Callable[..., tuple[str, tuple]]] = {
    A.Counterfactual: lambda s: (f"counterfactual {string_literal(s.label)}", s.mutations),
    A.System: lambda s: ("system", s.items),
}


def _is_block(node) -> bool:
    return type(node) in BLOCKS


def _children(node) -> tuple:
    return BLOCKS[type(node)](node)[1]


def statement_cells(node) -> list[Cell]:
    """The cells of one statement or mutation (not of a block)."""
    return CELLS[type(node)](node)


# ---- comments and blank lines attached to statements ---------------------------------


@dataclass
class Comment:
    line: int
    column: int
    text: str
    own_line: bool
    blank_before: bool = False


@dataclass
class Item:
    """A statement with what travels with it."""

    node: object
    leading: list[Comment] = field(default_factory=list)
    blank_before: bool = False  # between the last leading comment (or what came before) and it
    trailing: str = ""
    block: Optional["Block"] = None  # for a counterfactual

    @property
    def starts_with_blank(self) -> bool:
        return self.leading[0].blank_before if self.leading else self.blank_before


@dataclass
class Block:
    items: list[Item] = field(default_factory=list)
    tail: list[Comment] = field(default_factory=list)  # comments before the closing `}`
    header_comment: str = ""
    closer_comment: str = ""


def _pos_end(span) -> tuple[int, int]:
    return (span.end_line, span.end_column)


def _pos_start(span) -> tuple[int, int]:
    return (span.line, span.column)


class _Attacher:
    """Places the comments of a card on its statements."""

    def __init__(self, text: str, comments: list[Token]):
        self.lines = text.split("\n")
        self.comments = []
        for tok in comments:
            before = self.lines[tok.line - 1][:tok.column - 1]
            self.comments.append(Comment(tok.line, tok.column, str(tok).rstrip(), not before.strip()))

    def blank_between(self, after_line: int, before_line: int) -> bool:
        return any(not self.lines[i - 1].strip() for i in range(after_line + 1, before_line))

    def brace_after(self, pos: tuple[int, int]) -> tuple[int, int]:
        """The `{` after a block's label: only blanks and comments come between."""
        line, col = pos
        while line <= len(self.lines):
            text = self.lines[line - 1]
            i = text.find("{", col - 1)
            hash_at = text.find("#", col - 1)
            if i >= 0 and (hash_at < 0 or i < hash_at):
                return (line, i + 1)
            line, col = line + 1, 1
        raise AssertionError("a parsed block has its `{`")

    def block(self, nodes, opener: tuple[int, int], closer: tuple[int, int], comments: list[Comment]) -> Block:
        out = Block()
        items = [Item(n) for n in nodes]
        inner: dict[int, list[Comment]] = {}
        mine: list[Comment] = []
        for c in comments:
            host = next((i for i, it in enumerate(items) if _is_block(it.node)
                         and _pos_start(it.node.span) < (c.line, c.column) < _pos_end(it.node.span)), None)
            (inner.setdefault(host, []) if host is not None else mine).append(c)
        for i, it in enumerate(items):
            if _is_block(it.node):
                it.block = self.counterfactual(it, inner.get(i, []))
        events: list[tuple[tuple[int, int], object]] = []
        for c in mine:
            if not c.own_line:
                self.trailing(c, items, opener, closer, out)
                continue
            host = next((it for it in items if it.node.span.line < c.line < it.node.span.end_line), None)
            if host is not None:
                host.leading.append(c)
            else:
                events.append(((c.line, c.column), c))
        events += [(_pos_start(it.node.span), it) for it in items]
        events.sort(key=lambda e: e[0])
        prev_line, pending = opener[0], []
        for _, ev in events:
            if isinstance(ev, Comment):
                ev.blank_before = self.blank_between(prev_line, ev.line)
                pending.append(ev)
                prev_line = ev.line
            else:
                ev.leading = pending + ev.leading
                ev.blank_before = self.blank_between(prev_line, ev.node.span.line)
                pending, prev_line = [], ev.node.span.end_line
        out.tail = pending
        out.items = items
        return out

    def trailing(self, c: Comment, items: list[Item], opener, closer, out: Block) -> None:
        """A comment after code on its line: it belongs to what ends last before it."""
        at = (c.line, c.column)
        candidates: list[tuple[tuple[int, int], Callable[[], None]]] = []
        if opener[0] == c.line and opener < at:
            candidates.append((opener, lambda: setattr(out, "header_comment", c.text)))
        if closer[0] == c.line and closer < at:
            candidates.append((closer, lambda: setattr(out, "closer_comment", c.text)))
        for it in items:
            end = _pos_end(it.node.span)
            if end[0] == c.line and end <= at:
                target, attr = (it.block, "closer_comment") if it.block is not None else (it, "trailing")
                candidates.append((end, lambda t=target, a=attr: setattr(t, a, c.text)))
        if candidates:
            max(candidates, key=lambda x: x[0])[1]()
            return
        host = next((it for it in items if it.node.span.line <= c.line <= it.node.span.end_line), None)
        c.own_line = True
        if host is not None:
            host.leading.append(c)
        else:
            out.tail.append(c)

    def counterfactual(self, item: Item, comments: list[Comment]) -> Block:
        """A block statement (the counterfactual, or a system) and its comments."""
        cf = item.node
        opener = self.brace_after(_pos_end(cf.label_span) if isinstance(cf, A.Counterfactual) else _pos_start(cf.span))
        closer = (cf.span.end_line, cf.span.end_column - 1)
        before = [c for c in comments if (c.line, c.column) < opener]
        for c in before:  # between the keyword and `{`: written before the block
            c.own_line, c.blank_before = True, False
        item.leading.extend(before)
        rest = [c for c in comments if (c.line, c.column) > opener]
        return self.block(_children(cf), opener, closer, rest)


# ---- writing --------------------------------------------------------------------------


def _join_run(rows: list[list[Cell]]) -> list[str]:
    widths: dict[str, int] = {}
    for row in rows:
        for key, text in row:
            if key is not None:
                widths[key] = max(widths.get(key, 0), len(text.split("\n")[-1]))
    out = []
    for row in rows:
        text = ""
        for i, (key, cell) in enumerate(row):
            if key is not None and widths[key] == 0:
                continue
            if text:
                text += "  " if key == "desc" else " "
            last = all(not c or (k is not None and widths[k] == 0) for k, c in row[i + 1:])
            text += cell if (key is None or key == "desc" or last) else cell.ljust(widths[key])
        out.append(text.rstrip())
    return out


class _Writer:
    def __init__(self):
        self.lines: list[str] = []

    def emit(self, text: str, indent: str, comment: str = "") -> None:
        parts = text.split("\n")
        if comment:
            parts[-1] = f"{parts[-1]}  {comment}" if parts[-1] else comment
        self.lines.append(indent + parts[0] if parts[0] else "")
        self.lines.extend(indent + p if p else "" for p in parts[1:])

    def comments(self, comments: list[Comment], indent: str, first: bool) -> None:
        for i, c in enumerate(comments):
            if c.blank_before and not (first and i == 0):
                self.lines.append("")
            self.lines.append(indent + c.text)

    def block(self, block: Block, indent: str) -> None:
        items = block.items
        runs: list[list[Item]] = []
        for i, it in enumerate(items):
            if not runs or it.starts_with_blank or it.block is not None or items[i - 1].block is not None:
                runs.append([])
            runs[-1].append(it)
        first = True
        for run in runs:
            texts = _join_run([statement_cells(it.node) for it in run if it.block is None])
            for it in run:
                self.comments(it.leading, indent, first)
                if it.blank_before and not (first and not it.leading):
                    self.lines.append("")
                first = False
                if it.block is not None:
                    self.counterfactual(it, indent)
                else:
                    self.emit(texts.pop(0), indent, it.trailing)
        self.comments(block.tail, indent, first)

    def counterfactual(self, it: Item, indent: str) -> None:
        head = BLOCKS[type(it.node)](it.node)[0]
        self.emit(f"{head} {{", indent, it.block.header_comment)
        self.block(it.block, indent + INDENT)
        self.emit("}", indent, it.block.closer_comment)


def canonical_order(statements) -> list:
    """Statements sorted by kind into the canonical order (stable inside a kind)."""
    return sorted(statements, key=statement_order)


def layout(card: A.Card, title_end: tuple[int, int], text: str, comments: list[Token]) -> str:
    """The canonical text of a parsed card and its comments."""
    att = _Attacher(text, comments)
    opener = att.brace_after(title_end)
    closer = (card.span.end_line, card.span.end_column - 1)
    head = [c for c in att.comments if (c.line, c.column) < _pos_start(card.span)]
    tail = [c for c in att.comments if (c.line, c.column) > closer]
    after_closer = [c for c in tail if c.line == closer[0] and not c.own_line]
    tail = [c for c in tail if c not in after_closer]
    inside = [c for c in att.comments if c not in head and c not in tail]
    prelude = [c for c in inside if (c.line, c.column) < opener]
    body = [c for c in inside if c not in prelude]
    block = att.block(card.statements, opener, closer, body)
    order = {id(it): i for i, it in enumerate(block.items)}
    block.items.sort(key=lambda it: (statement_order(it.node), order[id(it)]))
    if after_closer:
        block.closer_comment = after_closer[0].text
    w = _Writer()
    for i, c in enumerate(head + prelude):
        c.blank_before = i > 0 and att.blank_between((head + prelude)[i - 1].line, c.line)
        c.own_line = True
    w.comments(head + prelude, "", True)
    if head and att.blank_between(head[-1].line, card.span.line):
        w.lines.append("")
    w.emit(f"card {card.name} {string_literal(card.title)} {{", "", block.header_comment)
    w.block(block, INDENT)
    w.emit("}", "", block.closer_comment)
    prev = closer[0]
    for c in tail:
        c.blank_before = att.blank_between(prev, c.line)
        prev = c.line
    w.comments(tail, "", False)
    return "\n".join(w.lines) + "\n"


#: Groups of statement kinds that `format_card` writes without a blank line between them.
_GROUPS = (("collection", "field", "source", "doi", "published", "preprint"), ("background", "conditions"),
           ("input", "output", "constraint"), ("param",), ("let", "law", "law_function", "argument"),
           ("design_generated", "design_explicit", "evaluation", "identification", "adaptive"))


def _group(node) -> str:
    name = rule_of(node)
    return next((g[0] for g in _GROUPS if name in g), name)


def format_card(card: A.Card) -> str:
    """The canonical text of a card built in code (no source, no comments):
    one blank line between groups of statement kinds."""
    def items(nodes, top: bool) -> Block:
        out = Block()
        prev = None
        for n in (canonical_order(nodes) if top else nodes):
            it = Item(n, blank_before=top and prev is not None and _group(n) != prev)
            if _is_block(n):
                it.block = items(_children(n), False)
            out.items.append(it)
            prev = _group(n)
        return out
    w = _Writer()
    w.emit(f"card {card.name} {string_literal(card.title)} {{", "")
    w.block(items(card.statements, True), INDENT)
    w.emit("}", "")
    return "\n".join(w.lines) + "\n"


# ---- the front door -------------------------------------------------------------------


@dataclass
class FormatResult:
    """The formatted text, or None with the diagnostics that stopped it."""

    text: Optional[str]
    diagnostics: list[Diagnostic]
    source: SourceText
    comments: list[str] = field(default_factory=list)  # as read, in source order


_SINK: list[list[Token]] = []


@functools.lru_cache(maxsize=1)
def _comment_parser() -> Lark:
    """The card parser with a lexer callback that keeps the comments Lark ignores."""
    grammar = _grammar_file("sci.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                lexer_callbacks={"COMMENT": lambda tok: _SINK[-1].append(tok)})


def format_text(text: str, path: str = "<string>") -> FormatResult:
    """Lay out a card canonically (see the module doc). A card that does not
    parse is returned as None with its syntax diagnostics."""
    from .front import parse_source
    source = SourceText(path, text)
    _SINK.append([])
    try:
        tree = _comment_parser().parse(text)
    except UnexpectedInput:
        tree = None
    finally:
        comments = _SINK.pop()
    kept = [str(c).rstrip() for c in comments]
    if tree is None:
        return FormatResult(None, parse_source(text, path)[1], source)
    report = Reporter(source)
    card = build_card(tree, report)
    if report.has_errors:
        return FormatResult(None, report.sorted(), source, kept)
    title = tree.children[0].children[1]
    out = layout(card, (title.end_line, title.end_column), text, comments)
    return FormatResult(*_same_meaning(card, out, source), source, kept)


def _same_meaning(card: A.Card, out: str, source: SourceText) -> tuple[Optional[str], list[Diagnostic]]:
    """`out`, if it reads back as the same card (card_shape: the AST without
    spans, statements in canonical order); else no text and an error: fmt
    never changes what a card means."""
    from .front import parse_source
    again, _ = parse_source(out, source.path)
    if again is not None and card_shape(again) == card_shape(card):
        return out, []
    report = Reporter(source)
    report.fmt_changes_meaning(card.name_span)
    return None, report.sorted()


# ---- comparing cards as ASTs ------------------------------------------------------------


def without_spans(node):
    """An AST as plain data with every span left out, for comparing cards
    regardless of layout."""
    if is_dataclass(node):
        return (type(node).__name__,) + tuple(
            (f.name, without_spans(getattr(node, f.name))) for f in fields(node)
            if f.name != "span" and not f.name.endswith(("_span", "_spans")))
    if isinstance(node, (tuple, list)):
        return tuple(without_spans(x) for x in node)
    return node


def card_shape(card: A.Card):
    """A card's AST without spans and with its statements in canonical order:
    what `scigame fmt` must preserve."""
    return without_spans(A.Card(card.span, card.name, card.name_span, card.title,
                                tuple(canonical_order(card.statements))))
