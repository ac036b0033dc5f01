"""Building a card's AST (compiler/ast.py) from Lark's parse tree, and the
statement registry.

`build_card` is a plain recursive walk rather than a Lark Transformer so
that a problem found while building (a bad string escape, an impossible
date) becomes a diagnostic instead of a wrapped `VisitError`. Each grammar
rule of a statement has one builder here, registered with the AST class it
builds (`BUILDERS`, `STATEMENT_RULES`); the formatter, JSON, the
counterfactual's steps and the language server key on those classes, and
tests/test_statements.py checks that each has a handler for every one.
"""

from __future__ import annotations

import math
import re
import textwrap
from fractions import Fraction
from typing import Callable, Optional

from .larklib import Token, Tree

from .ast import (BINARY_OPERATORS, Adaptive, Argument, Assignment, Card, Constraint, Counterfactual, DesignExplicit, DesignGenerated,
                  Domain, Evaluation, Expr, Identification, Input, Law, LawFunction, Let, Literal, MagnitudeDiffers,
                  Meta, Name, Noise, Number, Output, Param, RangeDomain, Rate, RebalanceMutation, ReferenceValue,
                  ScaleMutation, SetDomain, SetMutation, State, Statement, System, SystemTime, Unary, UnitDefinition,
                  UnitRef, Where, Binary, Call)
from .diagnostics import Reporter
from .source import Span


def _escape_spans(tok: Token, raw: str, indexes: list[int]) -> list[Span]:
    """The spans of the two-character escapes at ascending `indexes` of a
    token's text, found in one pass over the text."""
    spans, line, pos = [], tok.line, 0
    for index in indexes:
        line += raw.count("\n", pos, index)
        nl = raw.rfind("\n", 0, index)
        column = (index - nl) if nl >= 0 else tok.column + index
        spans.append(Span(line, column, line, column + 2))
        pos = index
    return spans


#: Unknown escapes reported one by one in a string; the rest are counted.
_MAX_ESCAPE_REPORTS = 10


# ---- building ------------------------------------------------------------------

def _unescape(body: str) -> str:
    """Drop the backslash of every escape (`\\"` -> `"`, `\\\\` -> `\\`, and an
    unknown `\\q`, already reported, -> `q`), in C-speed string passes: the
    pairs of a backslash run pair up from the left, as a reader would."""
    if "\\" not in body:
        return body
    return "\\".join(part.replace("\\", "") for part in body.split("\\\\"))


#: An unknown escape: a backslash not paired up by the backslashes before it,
#: followed by anything but `"` or a backslash (group 1 is the paired run).
_BAD_ESCAPE = re.compile(r'(?<!\\)((?:\\\\)*)\\[^"\\]', re.S)
_BINARY = BINARY_OPERATORS


class _Builder:
    def __init__(self, report: Reporter):
        self.report = report

    # tokens -----------------------------------------------------------------
    def string(self, tok: Token) -> str:
        raw = str(tok)
        if raw.startswith('"""'):
            body = raw[3:-3].replace("\r\n", "\n")  # a CRLF file's block reads as the same file in LF
            body = textwrap.dedent(body).strip("\n")
            body = "\n".join(line.rstrip() for line in body.splitlines())
        else:
            body = raw[1:-1]

        offset = 3 if raw.startswith('"""') else 1
        # unknown escapes are found in the raw token (dedenting moved the text)
        bad = []
        for m in _BAD_ESCAPE.finditer(raw, offset, len(raw) - offset):
            bad.append(m.start() + len(m.group(1)))
            if len(bad) > _MAX_ESCAPE_REPORTS:
                break
        if bad:
            more = len(_BAD_ESCAPE.findall(raw, offset, len(raw) - offset)) - _MAX_ESCAPE_REPORTS
            spans = _escape_spans(tok, raw, bad[:_MAX_ESCAPE_REPORTS])
            for i, (index, span) in enumerate(zip(bad, spans)):
                last = i == len(spans) - 1 and more > 0
                self.report.bad_escape(span, raw[index:index + 2], more if last else 0)
        return _unescape(body)

    def literal(self, tree: Tree, percent: bool = False) -> Literal:
        if tree.data == "ratio":
            return self.ratio(tree)
        children = [c for c in tree.children if isinstance(c, Token)]
        negative = any(c.type == "MINUS" for c in children)
        num = next(c for c in children if c.type == "NUMBER")
        value = float(num)
        if not math.isfinite(value):
            self.report.bad_number(Span.of(tree), str(num))
            value = 0.0
        text = ("-" if negative else "") + str(num)
        return Literal(Span.of(tree), -value if negative else value, text, percent)

    def ratio(self, tree: Tree) -> Literal:
        """`P/Q` in `param` or `set`: an exact fraction (a zero or non-whole
        Q is reported, E103, and read as 0)."""
        negative = any(c.type == "MINUS" for c in tree.children)
        num, den = (c for c in tree.children if c.type == "NUMBER")
        text = ("-" if negative else "") + f"{num}/{den}"
        try:
            q = Fraction(str(num)) / Fraction(str(den))
            if not (math.isfinite(float(q)) and Fraction(str(num)).denominator == 1
                    and Fraction(str(den)).denominator == 1):
                raise ValueError(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            self.report.bad_number(Span.of(tree), text, ratio=True)
            return Literal(Span.of(tree), 0.0, text)
        q = -q if negative else q
        return Literal(Span.of(tree), float(q), text, exact=q)

    def number_token(self, tok: Token) -> Literal:
        value = float(tok)
        if not math.isfinite(value):
            self.report.bad_number(Span.of(tok), str(tok))
            value = 0.0
        return Literal(Span.of(tok), value, str(tok))

    def unit(self, tree: Optional[Tree]) -> Optional[UnitRef]:
        if tree is None:
            return None
        tok = tree.children[0]
        return UnitRef(Span.of(tok), str(tok)[1:-1].strip())

    def date(self, tok: Token) -> str:
        text = str(tok)
        import datetime  # a temporal card's dates only: a historical card's lint does without it
        try:
            datetime.date.fromisoformat(text)
        except ValueError as exc:
            self.report.bad_date(Span.of(tok), text, str(exc))
        return text

    # expressions ----------------------------------------------------------------
    def expr(self, node) -> Expr:
        if isinstance(node, Token):  # only NAME or NUMBER reach here via ?atom
            if node.type == "NAME":
                return Name(Span.of(node), str(node))
            lit = self.number_token(node)
            return Number(lit.span, lit.value, lit.text)
        kind = node.data
        span = Span.of(node)
        if kind == "number":
            lit = self.number_token(node.children[0])
            unit = self.unit(node.children[1]) if len(node.children) > 1 else None
            return Number(span, lit.value, lit.text, unit)
        if kind == "name":
            return Name(span, str(node.children[0]))
        if kind == "neg":
            return Unary(span, "neg", self.expr(node.children[1]))
        if kind in _BINARY:
            operands = [c for c in node.children if not (isinstance(c, Token) and c.type == "MINUS")]
            return Binary(span, kind, self.expr(operands[0]), self.expr(operands[1]))
        if kind == "call":
            name_tok = node.children[0]
            args = tuple(self.expr(c) for c in node.children[1:] if c is not None)
            return Call(span, str(name_tok), Span.of(name_tok), args)
        raise AssertionError(f"unexpected expression node {kind}")  # grammar and builder disagree

    # statements --------------------------------------------------------------------
    def relative(self, tree: Tree) -> Literal:
        """A `relative` number: a fraction, or a percentage with `%`."""
        percent = any(isinstance(c, Token) and c.type == "PERCENT" for c in tree.children)
        rel = self.literal(tree.children[0], percent)
        if percent:
            rel = Literal(Span.of(tree), rel.value / 100.0, rel.text + "%", True)
        return rel

    def noise(self, tree: Optional[Tree]) -> Optional[Noise]:
        if tree is None:
            return None
        kind, rel, *rest = tree.children
        absolute = self.literal(rest[0].children[0]) if rest else None
        return Noise(Span.of(tree), str(kind), Span.of(kind), self.relative(rel), absolute)

    def description(self, children) -> str:
        for c in children:
            if isinstance(c, Tree) and c.data == "description":
                return self.string(c.children[0])
        return ""

    def find(self, children, rule: str) -> Optional[Tree]:
        for c in children:
            if isinstance(c, Tree) and c.data == rule:
                return c
        return None

    def domain(self, children) -> Domain:
        for c in children:
            if isinstance(c, Tree) and c.data in ("range_domain", "log_domain", "integer_domain"):
                lo, hi = (self.literal(s) for s in c.children if isinstance(s, Tree))
                kind = {"range_domain": "range", "log_domain": "log", "integer_domain": "integer"}[c.data]
                return RangeDomain(Span.of(c), lo, hi, kind)
            if isinstance(c, Tree) and c.data == "set_domain":
                return SetDomain(Span.of(c), tuple(self.literal(s) for s in c.children))
        raise AssertionError("input without a domain")

    @staticmethod
    def named(span: Span, children) -> tuple:
        """The fields of a `Named` statement whose first child is the name."""
        return span, str(children[0]), Span.of(children[0])

    def statement(self, tree: Tree) -> Statement:
        """A statement, mutation or system item, built by its rule's builder in `BUILDERS`."""
        build = BUILDERS.get(tree.data)
        if build is None:
            raise AssertionError(f"unexpected statement {tree.data}")  # grammar and registry disagree
        return build(self, tree.children, Span.of(tree), tree.data)


# ---- the statement registry --------------------------------------------------------
# One row per grammar rule of a statement (`_stmt`, `_mutation`, `_system_stmt`
# alternatives): the AST class it builds and how. Every consumer of statements
# (the formatter, JSON export and import, the counterfactual's steps, the
# language server) keys on these classes; tests/test_statements.py fails when
# the grammar has a statement rule without a row here, or a class here without
# a handler in a consumer.

Builder = Callable[[_Builder, list, Span, str], "Statement"]
#: grammar rule -> how its statement is built
BUILDERS: dict[str, Builder] = {}
#: statement class -> the grammar rules it is built from (the first names it)
STATEMENT_RULES: dict[type, tuple[str, ...]] = {}


def _builds(cls: type, *rules: str) -> Callable[[Builder], Builder]:
    def register(build: Builder) -> Builder:
        STATEMENT_RULES[cls] = STATEMENT_RULES.get(cls, ()) + rules
        BUILDERS.update({rule: build for rule in rules})
        return build
    return register


def rule_of(node) -> str:
    """The grammar rule a statement node is named by (`Meta` keeps its key)."""
    return node.key if isinstance(node, Meta) else STATEMENT_RULES[type(node)][0]


@_builds(Meta, "collection", "field", "source", "doi", "published", "preprint", "background", "conditions")
def _meta(b: _Builder, ch, span: Span, kind: str) -> Meta:
    """A header line; its value read as the grammar's terminal for it says (a NAME, a DATE, a STRING)."""
    tok = ch[0]
    value = {"NAME": str, "DATE": b.date, "STRING": b.string}[tok.type](tok)
    return Meta(span, kind, value, Span.of(tok))


@_builds(UnitDefinition, "unit_definition")
def _unit_definition(b: _Builder, ch, span: Span, kind: str) -> UnitDefinition:
    return UnitDefinition(*b.named(span, ch), b.literal(ch[1]), b.unit(b.find(ch, "unit")), b.description(ch))


@_builds(Input, "input")
def _input(b: _Builder, ch, span: Span, kind: str) -> Input:
    return Input(*b.named(span, ch), b.unit(b.find(ch, "unit")), b.domain(ch), b.description(ch))


@_builds(Output, "output")
def _output(b: _Builder, ch, span: Span, kind: str) -> Output:
    res, tol = b.find(ch, "resolution"), b.find(ch, "tolerance")
    return Output(*b.named(span, ch), b.unit(b.find(ch, "unit")),
                  b.literal(res.children[0]) if res else None, b.literal(tol.children[0]),
                  b.relative(tol.children[1]), b.description(ch), b.noise(b.find(ch, "noise")))


@_builds(Constraint, "constraint")
def _constraint(b: _Builder, ch, span: Span, kind: str) -> Constraint:
    return Constraint(span, b.expr(ch[0]), str(ch[1]), b.expr(ch[2]), b.description(ch))


@_builds(Param, "param")
def _param(b: _Builder, ch, span: Span, kind: str) -> Param:
    return Param(*b.named(span, ch), b.literal(ch[1]), b.unit(b.find(ch, "unit")), b.description(ch))


@_builds(Let, "let")
def _let(b: _Builder, ch, span: Span, kind: str) -> Let:
    return Let(*b.named(span, ch), b.expr(ch[1]))


@_builds(Law, "law", "law_where")
def _law(b: _Builder, ch, span: Span, kind: str) -> Law:
    if kind == "law":
        return Law(*b.named(span, ch), b.expr(ch[1]))
    left, op, right, reason = ch[2], ch[3], ch[4], ch[5]
    where = Where(Span.of(left).to(Span.of(reason)), b.expr(left), str(op), b.expr(right),
                  b.string(reason), Span.of(reason))
    return Law(*b.named(span, ch), b.expr(ch[1]), where)


@_builds(LawFunction, "law_function")
def _law_function(b: _Builder, ch, span: Span, kind: str) -> LawFunction:
    return LawFunction(*b.named(span, ch), tuple(str(t) for t in ch[1:-1]),
                       tuple(Span.of(t) for t in ch[1:-1]), b.expr(ch[-1]))


@_builds(Argument, "argument")
def _argument(b: _Builder, ch, span: Span, kind: str) -> Argument:
    return Argument(*b.named(span, ch), b.unit(b.find(ch, "unit")), b.domain(ch), b.description(ch))


@_builds(System, "system")
def _system(b: _Builder, ch, span: Span, kind: str) -> System:
    return System(span, tuple(b.statement(c) for c in ch))


@_builds(SystemTime, "system_time")
def _system_time(b: _Builder, ch, span: Span, kind: str) -> SystemTime:
    return SystemTime(*b.named(span, ch))


@_builds(State, "state")
def _state(b: _Builder, ch, span: Span, kind: str) -> State:
    init = next(c for c in ch[1:] if not (isinstance(c, Tree) and c.data in ("unit", "description")))
    return State(*b.named(span, ch), b.unit(b.find(ch, "unit")), b.expr(init), b.description(ch))


@_builds(Rate, "rate")
def _rate(b: _Builder, ch, span: Span, kind: str) -> Rate:
    return Rate(*b.named(span, ch), b.expr(ch[1]))


@_builds(Counterfactual, "counterfactual")
def _counterfactual(b: _Builder, ch, span: Span, kind: str) -> Counterfactual:
    return Counterfactual(span, b.string(ch[0]), Span.of(ch[0]), tuple(b.statement(m) for m in ch[1:]))


@_builds(SetMutation, "set_mutation")
def _set_mutation(b: _Builder, ch, span: Span, kind: str) -> SetMutation:
    return SetMutation(*b.named(span, ch), b.literal(ch[1]), b.unit(b.find(ch, "unit")))


@_builds(ScaleMutation, "scale_mutation")
def _scale_mutation(b: _Builder, ch, span: Span, kind: str) -> ScaleMutation:
    return ScaleMutation(*b.named(span, ch), b.literal(ch[1]))


@_builds(RebalanceMutation, "rebalance_mutation")
def _rebalance_mutation(b: _Builder, ch, span: Span, kind: str) -> RebalanceMutation:
    ref = b.find(ch, "reference")
    values = tuple(ReferenceValue(Span.of(v), str(v.children[0]), Span.of(v.children[0]),
                                  b.literal(v.children[1]), b.unit(b.find(v.children, "unit")))
                   for v in (ref.children if ref is not None else ()))
    return RebalanceMutation(*b.named(span, ch), values)


@_builds(MagnitudeDiffers, "magnitude_differs")
def _magnitude_differs(b: _Builder, ch, span: Span, kind: str) -> MagnitudeDiffers:
    return MagnitudeDiffers(span, b.string(ch[0]), Span.of(ch[0]))


@_builds(DesignGenerated, "design_generated")
def _design_generated(b: _Builder, ch, span: Span, kind: str) -> DesignGenerated:
    seed = b.find(ch, "seed")
    return DesignGenerated(span, b.number_token(ch[0]), str(ch[1]), Span.of(ch[1]),
                           b.number_token(seed.children[0]) if seed else None)


@_builds(DesignExplicit, "design_explicit")
def _design_explicit(b: _Builder, ch, span: Span, kind: str) -> DesignExplicit:
    points = tuple(tuple(Assignment(Span.of(a), str(a.children[0]), b.literal(a.children[1])) for a in p.children)
                   for p in ch)
    return DesignExplicit(span, points, tuple(Span.of(p) for p in ch))


@_builds(Evaluation, "evaluation")
def _evaluation(b: _Builder, ch, span: Span, kind: str) -> Evaluation:
    seed, ood = b.find(ch, "seed"), b.find(ch, "ood")
    return Evaluation(span, b.number_token(ch[0]), b.number_token(seed.children[0]) if seed else None,
                      b.number_token(ood.children[0]) if ood else None)


@_builds(Identification, "identification")
def _identification(b: _Builder, ch, span: Span, kind: str) -> Identification:
    return Identification(span, str(ch[0]), Span.of(ch[0]))


@_builds(Adaptive, "adaptive")
def _adaptive(b: _Builder, ch, span: Span, kind: str) -> Adaptive:
    steps = b.find(ch, "max_steps")
    return Adaptive(span, b.number_token(ch[0]), b.number_token(steps.children[0]) if steps else None)


def build_card(tree: Tree, report: Reporter) -> Card:
    """Build the AST of the card in a parse tree (`start` rule)."""
    b = _Builder(report)
    card = tree.children[0]
    name_tok, title_tok, *stmts = card.children
    return Card(Span.of(card), str(name_tok), Span.of(name_tok), b.string(title_tok),
                tuple(b.statement(s) for s in stmts))
