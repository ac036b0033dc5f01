"""Rendering a diagnostic as lint prints it: `path:line:col: error[CODE]:
message`, the source lines with carets, related places, notes and hints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .source import SourceText, Span
from .terminal import printable

if TYPE_CHECKING:
    from .diagnostics import Diagnostic


def render(diag: Diagnostic, source: SourceText | None, color: bool = False) -> str:
    """`path:line:col: error[CODE]: message`, the source line with a caret
    under the span, related places, then `= note:` and `= help:` lines."""
    sev = diag.severity.value
    path, message = printable(diag.path), printable(diag.message)  # the card's text may hold escapes
    head = f"{path}:{diag.span.line}:{diag.span.column}: {sev}[{diag.code}]: {message}"
    if color:
        tint = {"error": "31", "warning": "33", "note": "36"}[sev]
        head = f"\x1b[1m{path}:{diag.span.line}:{diag.span.column}:\x1b[0m " \
               f"\x1b[1;{tint}m{sev}[{diag.code}]\x1b[0m\x1b[1m: {message}\x1b[0m"
    lines = [head]
    if source is not None:
        places = [(diag.span, "")] + [(r.span, r.message) for r in diag.related]
        width = len(str(max(s.end_line for s, _ in places)))
        lines.append(" " * width + " |")
        for span, label in places:
            lines.extend(_snippet(source, span, printable(label), width))
    for note in diag.notes:
        lines.append(f"  = note: {printable(note)}")
    for hint in diag.hints:
        lines.append(f"  = help: {printable(hint)}")
    return "\n".join(lines)


def _snippet(source: SourceText, span: Span, label: str, width: int) -> list[str]:
    out = []
    last = span.end_line if span.end_line >= span.line else span.line
    # Long spans (a whole block) show their first line only.
    shown = range(span.line, min(last, span.line + 2) + 1) if last - span.line <= 2 else [span.line]
    for number in shown:
        text = printable(source.line(number).replace("\t", " "), newlines=False)
        out.append(f"{number:>{width}} | {text}")
        start = span.column if number == span.line else 1 + (len(text) - len(text.lstrip()))
        if number == last:
            end = span.end_column
        else:
            end = len(text) + 1
        end = max(end, start + 1)
        marker = " " * (start - 1) + "^" * (end - start)
        if label and number == shown[-1]:
            marker += " " + label
        out.append(" " * width + " | " + marker.rstrip())
    return out
