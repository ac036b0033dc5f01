"""The report's tables as text (rich), Markdown, LaTeX, CSV and JSON.

A rate is shown as `67% [21–94]` (its 95% interval in brackets), a mean as
`0.667 [0.333–1.000]`; in CSV and JSON the interval is two more columns
(`strict_esr_lo`, `strict_esr_hi`) and the numbers are unrounded.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
import textwrap
from dataclasses import replace

from .tables import Column, Table

FORMATS = ("text", "markdown", "latex", "csv", "json")


def cell(row: dict, col: Column, interval: bool = True) -> str:
    """One table cell as text."""
    v = row.get(col.key)
    if v is None:
        return "–"
    if col.kind == "int":
        return str(v)
    if col.kind == "usd":
        return f"{v:.4f}"
    if col.kind == "p":
        return f"{v:.2g}"
    if col.kind == "diff":
        ci = row.get(f"{col.key}_ci") if interval else None
        return f"{v:+.3f}" + ("" if ci is None else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]")
    if col.kind in ("rate", "mean"):
        one = (lambda x: f"{100 * x:.0f}%") if col.kind == "rate" else (lambda x: f"{x:.3f}")
        ci = row.get(f"{col.key}_ci") if interval else None
        if ci is None or col.key + "_ci" not in row:
            return one(v)
        lo, hi = ci
        lo_s, hi_s = (f"{100 * lo:.0f}", f"{100 * hi:.0f}") if col.kind == "rate" else (f"{lo:.3f}", f"{hi:.3f}")
        return f"{one(v)} [{lo_s}–{hi_s}]"
    return str(v)


def plain(row: dict, col: Column) -> list:
    """One cell as machine values: the number, and its interval for rates and means."""
    v = row.get(col.key)
    if col.kind in _WITH_INTERVAL:
        ci = row.get(f"{col.key}_ci")
        return [v, *(ci if ci else (None, None))]
    return [v]


_WITH_INTERVAL = ("rate", "mean", "diff")


def header(col: Column) -> list[str]:
    return [col.key, f"{col.key}_lo", f"{col.key}_hi"] if col.kind in _WITH_INTERVAL else [col.key]


GAP = "  "


def _wrap(text: str, width: int, first: str = "", rest: str = "  ") -> list[str]:
    """Lines of at most `width` characters, broken at spaces only (a number is never split)."""
    return textwrap.wrap(text, width=max(20, width), initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


#: Where a formula may break across lines: after an operator, a comma or a space, never
#: inside a number (the sign of an exponent, as in 7.8e+29, is not an operator).
_BREAK = re.compile(r"(?<=[*/,( ])|(?<=[A-DF-Za-df-z_)][+\-])|(?<=[^\d.][eE][+\-])|(?<=\d[+\-])")


def _wrap_formula(text: str, width: int, first: str, rest: str = "    ") -> list[str]:
    """`text` in lines of at most `width` characters, broken only where `_BREAK` allows."""
    pieces = [p for p in _BREAK.split(text) if p]
    lines, line = [], first
    for piece in pieces:
        if len(line) + len(piece) > width and line.strip():
            lines.append(line.rstrip())
            line = rest + piece.lstrip()
        else:
            line += piece
    lines.append(line.rstrip())
    return lines


def _listing(t: Table, width: int) -> list[str]:
    """Each row as a paragraph: its axes, then `label: value` for the rest."""
    lines = []
    for r in t.rows:
        head = " ".join(f"{c.label}={cell(r, c)}" if c.kind == "int" else cell(r, c) for c in t.columns if c.axis)
        body = "; ".join(f"{c.label}: {cell(r, c)}" for c in t.columns if not c.axis)
        from ..compiler.terminal import printable
        lines += _wrap_formula(printable(f"{head}: {body}", newlines=False), width, "")
    return lines


def _parts(widths: list[int], keys: int, width: int) -> list[list[int]]:
    """The columns of each part of a table too wide for `width`: the first `keys`
    (the cell's axes) in every part, the others in order, as many as fit."""
    keys = keys if sum(widths[:keys]) + len(GAP) * keys <= width // 2 else min(keys, 1)
    head = list(range(keys))
    parts, current, used = [], list(head), sum(widths[:keys]) + len(GAP) * max(0, keys - 1)
    for i in range(keys, len(widths)):
        extra = widths[i] + (len(GAP) if current else 0)
        if current != head and used + extra > width:
            parts.append(current)
            current, used = list(head), sum(widths[:keys]) + len(GAP) * max(0, keys - 1)
            extra = widths[i] + (len(GAP) if current else 0)
        current.append(i)
        used += extra
    parts.append(current)
    return parts


def _grid(columns: list[Column], cells: list[list[str]], width: int) -> list[str]:
    """The table's header and rows, split into parts that fit `width`."""
    widths = [max([len(w) for w in c.label.split()] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    keys = next((i for i, c in enumerate(columns) if not c.axis), len(columns))
    parts = _parts(widths, keys, width)
    out = []
    for n, part in enumerate(parts, 1):
        if len(parts) > 1:
            out.append(f"(part {n} of {len(parts)})")
        heads = [textwrap.wrap(columns[i].label, widths[i], break_long_words=False) or [""] for i in part]
        for line in range(max(map(len, heads))):
            out.append(GAP.join(_align(h[line] if line < len(h) else "", widths[i], columns[i])
                                for h, i in zip(heads, part)).rstrip())
        out.append(GAP.join("─" * widths[i] for i in part))
        out += [GAP.join(_align(r[i], widths[i], columns[i]) for i in part).rstrip() for r in cells]
    return out


def _align(text: str, width: int, col: Column) -> str:
    return text.ljust(width) if col.kind == "text" else text.rjust(width)


def text_table(t: Table, width: int) -> list[str]:
    """One table as lines of at most `width` characters: a column whose value is
    the same in every row is said once above it, headers wrap, a table too wide
    is split into parts that repeat the cell's axes, and a legend says what
    each abbreviated header means. No value is ever cut."""
    from ..compiler.terminal import printable

    def plain(value: str) -> str:  # never a control character (a card's or a model's text)
        return printable(value, newlines=False)

    t = Table(t.name, plain(t.title), [replace(c, label=plain(c.label), legend=plain(c.legend)) for c in t.columns],
              t.rows, [plain(n) for n in t.notes], t.listing)
    rows = [[plain(cell(r, c)) for c in t.columns] for r in t.rows]
    constant = [i for i, c in enumerate(t.columns)  # (a listing names every row's axes itself)
                if c.kind == "text" and len(rows) > 1 and len({r[i] for r in rows}) == 1 and not t.listing]
    shown = [i for i in range(len(t.columns)) if i not in constant]
    lines = _wrap(t.title, width, "", "  ")
    if constant:
        lines += _wrap("; ".join(f"{t.columns[i].label}: {rows[0][i]}" for i in constant) + " (every row)",
                       width, "", "  ")
    if not rows:
        return lines + ["(no rows)", ""]
    if t.listing:
        return lines + _listing(t, width) + [""]
    lines += _grid([t.columns[i] for i in shown], [[r[i] for i in shown] for r in rows], width)
    legend = list(dict.fromkeys(f"{t.columns[i].label} = {t.columns[i].legend}" for i in shown
                                if t.columns[i].legend))
    if legend:
        lines += _wrap("; ".join(legend), width, "legend: ", "  ")
    for note in t.notes:
        lines += _wrap(note, width, "note: ", "  ")
    return lines + [""]


def text_width(width: int | None) -> int:
    """The width text is drawn to: the given one, else the terminal's ($COLUMNS first), else 200."""
    return width or shutil.get_terminal_size((200, 24)).columns


def wrap_text(text: str, width: int | None) -> str:
    """A line for people, broken at spaces to the width (a long path or number stays whole)."""
    return "\n".join(_wrap(text, text_width(width), "", "  "))


def to_text(tables: list[Table], width: int | None) -> str:
    width = text_width(width)
    return "\n".join(line for t in tables for line in text_table(t, width)) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(tables: list[Table]) -> str:
    out = []
    for t in tables:
        out.append(f"### {t.title}\n")
        out.append("| " + " | ".join(_md_escape(c.label) for c in t.columns) + " |")
        out.append("|" + "|".join("---" if c.kind == "text" else "---:" for c in t.columns) + "|")
        for r in t.rows:
            out.append("| " + " | ".join(_md_escape(cell(r, c)) for c in t.columns) + " |")
        out += [""] + [f"*{_md_escape(n)}*\n" for n in t.notes]
        out.append("")
    return "\n".join(out)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "–": "--", "−": "$-$"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(tables: list[Table]) -> str:
    """One `table` environment with a `tabular` per table; needs no package
    beyond LaTeX itself."""
    out = []
    for t in tables:
        spec = "".join("l" if c.kind == "text" else "r" for c in t.columns)
        out += [r"\begin{table}[ht]", r"\centering", r"\small", f"\\caption{{{latex_escape(t.title)}}}",
                f"\\label{{tab:scigame-{t.name.replace('_', '-')}}}", f"\\begin{{tabular}}{{{spec}}}", r"\hline",
                " & ".join(latex_escape(c.label) for c in t.columns) + r" \\", r"\hline"]
        for r in t.rows:
            out.append(" & ".join(latex_escape(cell(r, c)) for c in t.columns) + r" \\")
        out += [r"\hline", r"\end{tabular}"]
        out += [f"\\par\\smallskip\\footnotesize {latex_escape(n)}" for n in t.notes]
        out += [r"\end{table}", ""]
    return "\n".join(out)


def to_csv(tables: list[Table]) -> str:
    """One CSV block per table; with several tables each block starts with a
    `# name` line and blocks are separated by a blank line."""
    blocks = []
    for t in tables:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([h for c in t.columns for h in header(c)])
        for r in t.rows:
            w.writerow(["" if v is None else v for c in t.columns for v in plain(r, c)])
        blocks.append((f"# {t.name}\n" if len(tables) > 1 else "") + buf.getvalue())
    return "\n".join(blocks)


def _finite(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def json_rows(t: Table) -> list[dict]:
    return [{h: _finite(v) for c in t.columns for h, v in zip(header(c), plain(r, c))} for r in t.rows]


def to_json_tables(tables: list[Table]) -> dict:
    return {t.name: {"title": t.title, "rows": json_rows(t), "notes": t.notes} for t in tables}


def render(tables: list[Table], fmt: str, width: int | None = None) -> str:
    if fmt == "text":
        return to_text(tables, width)
    if fmt == "markdown":
        return to_markdown(tables)
    if fmt == "latex":
        return to_latex(tables)
    if fmt == "csv":
        return to_csv(tables)
    return json.dumps(to_json_tables(tables), indent=2)
