"""A system card's observations in the report, as trajectories: the readings
at one set of starting inputs, in time order (system_transcript.trajectories
groups them, for the text transcript too), each a small table of the time
and every output, and beside it an inline SVG line of each output against
the time where the trajectory has two readings or more.

Every name reaches the page through `markup.text`/`markup.attr`; numbers are
formatted here. The SVG has presentation attributes only (no style
attribute, no script), so the page's Content-Security-Policy holds.
"""

from __future__ import annotations

import math
from typing import Iterable

from ..system_transcript import trajectories
from .markup import attr, text

#: The size of one output's line, in SVG user units.
WIDTH, HEIGHT, MARGIN = 180, 60, 4


def _num(v) -> str:
    try:
        return f"{float(v):.6g}"
    except (TypeError, ValueError):
        return text(v)


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def output_svg(name: str, times: list[float], values: list[float]) -> str:
    """One output against the time: a polyline through its finite readings,
    the axes' ranges in the title. Empty under two finite readings."""
    pts = [(float(t), float(v)) for t, v in zip(times, values) if _finite(t) and _finite(v)]
    if len(pts) < 2:
        return ""
    t0, t1 = min(p[0] for p in pts), max(p[0] for p in pts)
    v0, v1 = min(p[1] for p in pts), max(p[1] for p in pts)
    dt, dv = (t1 - t0) or 1.0, (v1 - v0) or 1.0
    xy = " ".join(f"{MARGIN + (t - t0) / dt * (WIDTH - 2 * MARGIN):.1f},"
                  f"{HEIGHT - MARGIN - (v - v0) / dv * (HEIGHT - 2 * MARGIN):.1f}" for t, v in pts)
    title = f"{name}: {_num(v0)} to {_num(v1)} over time {_num(t0)} to {_num(t1)}"
    dots = "".join(f'<circle cx="{p.split(",")[0]}" cy="{p.split(",")[1]}" r="2" fill="#1f5fa8"/>'
                   for p in xy.split(" "))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{attr(title)}"><title>{text(title)}</title>'
            f'<rect x="0.5" y="0.5" width="{WIDTH - 1}" height="{HEIGHT - 1}" fill="none" stroke="#ccd"/>'
            f'<polyline points="{xy}" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>{dots}</svg>')


def trajectories_html(task: dict, observations: Iterable) -> str:
    """The observations of a system card as trajectories (empty for a card
    without a system)."""
    groups = trajectories(task, observations)
    if not groups:
        return ""
    time = task["system"]["time"]
    parts = [f'<p>Trajectories ({len(groups)}), readings in time order:</p>']
    for key, obs in groups:
        outputs = sorted({k for o in obs for k in o.outputs})
        start = ", ".join(f"{text(k)}={_num(v)}" for k, v in key)
        head = f"<th>{text(time)}</th>" + "".join(f"<th>{text(k)}</th>" for k in outputs)
        rows = "".join(f'<tr><td class="n">{_num(o.inputs.get(time))}</td>'
                       + "".join(f'<td class="n">{_num(o.outputs[k]) if k in o.outputs else "–"}</td>'
                                 for k in outputs) + "</tr>" for o in obs)
        times = [o.inputs.get(time) for o in obs]
        lines = "".join(output_svg(k, times, [o.outputs.get(k, math.nan) for o in obs]) for k in outputs)
        parts.append(f'<div class="trajectory"><p class="muted">from {start}</p>'
                     f'<table class="trajectory"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
                     f"{lines}</div>")
    return "".join(parts)
