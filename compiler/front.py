"""Checking a card from text or file: parse, build the AST, check, and run
the numeric checks; every problem becomes a diagnostic."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .ast import Card
from .statements import build_card
from .checker import check_card
from .limits import MAX_DEPTH, MAX_OPERATIONS, MAX_TOKENS, count_tokens, expression_size, recursion_allowance
from .diagnostics import Diagnostic, Reporter, Severity
from .model import CheckedCard
from .source import CardReadError, SourceText, Span, read_card_text
from .syntax import parse_tree


@dataclass
class CheckResult:
    """What checking one card gives: the typed model (None on errors) and
    every diagnostic, sorted by position."""

    source: SourceText
    card: Optional[CheckedCard]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]


def parse_source(text: str, path: str = "<string>") -> tuple[Optional[Card], list[Diagnostic]]:
    """Parse card text into its AST (no checking)."""
    source = SourceText(path, text)
    report = Reporter(source)
    card = _guarded(report, lambda: _parse(source, report))
    return card, report.sorted()


def _parse(source: SourceText, report: Reporter) -> Optional[Card]:
    if count_tokens(source.text) > MAX_TOKENS:
        report.too_large(Span(1, 1, 1, 2), "tokens", MAX_TOKENS)
        return None
    tree = parse_tree(source, report)
    if tree is None or not _within_limits(tree, report):
        return None
    return build_card(tree, report)


def _within_limits(tree, report: Reporter) -> bool:
    """Check the size policy (limits.py) before anything walks the tree."""
    size = expression_size(tree)
    ok = True
    if size.depth > MAX_DEPTH:
        report.too_large(Span.of(size.deepest), "depth", MAX_DEPTH, size.depth)
        ok = False
    if size.operations > MAX_OPERATIONS:
        report.too_large(Span.of(size.largest), "operations", MAX_OPERATIONS, size.operations,
                         size.largest_operations)
        ok = False
    return ok


def check_source(text: str, path: str = "<string>") -> CheckResult:
    """Parse and check card text; never raises on a bad card."""
    source = SourceText(path, text)
    report = Reporter(source)

    def run():
        card = _parse(source, report)
        if card is None or report.has_errors:
            return None
        model = check_card(card, source, report)
        if model is not None:
            # numpy comes with these (the evaluation set and the reference evaluator): a card with a
            # static error is reported without it
            from .numeric import numeric_checks, tree_checks
            from .sound_worlds import sound_world_checks
            tree_checks(model, report)
            if report.has_errors:
                return None
            numeric_checks(model, report)
            if report.has_errors:
                return None
            sound_world_checks(model, report)
        return model

    model = _guarded(report, run)
    return CheckResult(source, model, report.sorted())


def check_file(path: str | Path) -> CheckResult:
    """Read a `.sci` file (UTF-8) and check it."""
    p = Path(path)
    source = SourceText(str(path), "")
    report = Reporter(source)
    try:
        text = read_card_text(p)
    except CardReadError as exc:  # reported like any finding, so a folder's other cards still get checked
        report.unreadable(str(exc).removeprefix(f"{path}: "))
    except UnicodeDecodeError as exc:
        report.unreadable("", undecodable=(exc.reason, exc.start))
    else:
        return check_source(text, str(path))
    return CheckResult(source, None, report.sorted())


def _guarded(report: Reporter, fn):
    """Run a stage under the recursion allowance of the size policy."""
    with recursion_allowance():
        return fn()
