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
    if col.kind in ("rate", "mean"):
        one = (lambda x: f"{100 * x:.0f}%") if col.kind == "rate" else (lambda x: f"{x:.3f}")
        ci = row.get(f"{col.key}_ci") if interval else None
        if ci is None:
            return one(v)
        lo, hi = ci
        lo_s, hi_s = (f"{100 * lo:.0f}", f"{100 * hi:.0f}") if col.kind == "rate" else (f"{lo:.3f}", f"{hi:.3f}")
        return f"{one(v)} [{lo_s}–{hi_s}]"
    return str(v)


def plain(row: dict, col: Column) -> list:
    """One cell as machine values: the number, and its interval for rates and means."""
    v = row.get(col.key)
    if col.kind in ("rate", "mean"):
        ci = row.get(f"{col.key}_ci")
        return [v, *(ci if ci else (None, None))]
    return [v]


def header(col: Column) -> list[str]:
    return [col.key, f"{col.key}_lo", f"{col.key}_hi"] if col.kind in ("rate", "mean") else [col.key]


def to_text(tables: list[Table], width: int | None) -> str:
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    from ..compiler.terminal import printable

    def plain(value: str) -> Text:  # never rich markup (a player named `[/x]`), never a control character
        return Text(printable(value, newlines=False))

    console = Console(width=width or 200, record=True, file=io.StringIO())
    for t in tables:
        rt = RichTable(title=plain(t.title))
        for c in t.columns:
            rt.add_column(plain(c.label), justify="left" if c.kind == "text" else "right")
        for r in t.rows:
            rt.add_row(*(plain(cell(r, c)) for c in t.columns))
        console.print(rt)
        for note in t.notes:
            console.print(plain(f"note: {note}"))
    return console.export_text()


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
