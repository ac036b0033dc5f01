"""The report's figures (matplotlib, the one plotting module), as SVG text
for the HTML page or as PNG files for `scigame report --plots DIR`.

    esr           strict ESR per cell and player, with 95% Wilson intervals
    budget        analogue of the paper's Figure 5: weak ESR against the Fixed
                  budget B (one bar per player when the runs have one budget), and
                  the cumulative share of Adaptive episodes solved within s steps
    failures      analogue of Figure 6: failure modes per player, as a share of finished episodes
    observations  analogue of Figure 11: cumulative share of Adaptive episodes by observations taken
    ps            the distribution of PS per player and world
    form_credit   mean graded form credit per player and world (when the runs have it)
    axis_<name>   weak ESR against any further episode axis (noise, context, ...)
                  that takes more than one value in the runs
"""

from __future__ import annotations

import io
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..summary import CELL, mean_interval, weak_rate
from .data import Runs
from .tables import Table


@dataclass
class Figure:
    name: str
    title: str
    fig: object  # a matplotlib Figure

    def svg(self) -> str:
        """The figure as inline SVG, drawn once (the page's policy hashes its styles)."""
        if getattr(self, "_svg", None) is None:
            buf = io.StringIO()
            self.fig.savefig(buf, format="svg", metadata={"Date": None})
            text = buf.getvalue()
            self._svg = text[text.index("<svg"):]  # drop the XML prolog and doctype: the page inlines it
        return self._svg

    def png(self, path: Path) -> Path:
        from ..compiler.atomic import write_atomic
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=120)
        return write_atomic(path, buf.getvalue())


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    # text.parse_math off: a player named `a$b$` is text, not math text (which would fail to parse)
    matplotlib.rcParams.update({"svg.hashsalt": "scigame", "svg.fonttype": "path", "font.size": 9,
                                "text.parse_math": False})
    import matplotlib.pyplot as plt
    return plt


_STYLES = [dict(marker="o", linestyle="-"), dict(marker="s", linestyle="--"), dict(marker="^", linestyle=":"),
           dict(marker="D", linestyle="-.")]


def _style(j: int) -> dict:
    return _STYLES[j % len(_STYLES)]


def _errors(points: list[tuple[float, tuple | None]]) -> list[list[float]]:
    """matplotlib's yerr (below, above) from (value, interval) pairs."""
    lo = [max(0.0, v - ci[0]) if ci else 0.0 for v, ci in points]  # rounding: a mean 1 ulp outside
    hi = [max(0.0, ci[1] - v) if ci else 0.0 for v, ci in points]   # its interval of equal values
    return [lo, hi]


def _esr(plt, main: Table, runs: Runs) -> Figure | None:
    rows = [r for r in main.rows if r["strict_esr"] is not None]
    if not rows:
        return None
    players = runs.players
    cell_axes = [a for a in runs.axes if a != "player"]
    cells = sorted({tuple(r[a] for a in cell_axes) for r in rows}, key=lambda k: tuple(map(str, k)))
    varying = [i for i, a in enumerate(cell_axes) if len({c[i] for c in cells}) > 1] or [0]
    fig, ax = plt.subplots(figsize=(max(6.5, 0.55 * len(cells) * max(1, len(players))), 4.2))
    width = 0.8 / len(players)
    for j, p in enumerate(players):
        by = {tuple(r[a] for a in cell_axes): r for r in rows if r["player"] == p}
        xs = [i + (j - (len(players) - 1) / 2) * width for i, c in enumerate(cells) if c in by]
        pts = [(by[c]["strict_esr"], by[c]["strict_esr_ci"]) for c in cells if c in by]
        ax.bar(xs, [v for v, _ in pts], width=width, yerr=_errors(pts), capsize=2, label=p)
        for x, c in zip(xs, [c for c in cells if c in by]):
            ax.text(x, 1.02, f"{by[c]['strict_k']}/{by[c]['strict_n']}", ha="center", fontsize=6, rotation=90)
    labels = ["\n".join(f"B={c[i]}" if cell_axes[i] == "budget" else str(c[i]) for i in varying) for c in cells]
    ax.set_xticks(range(len(cells)), labels, fontsize=7)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("strict ESR (95% Wilson interval over cards)")
    ax.set_title("Strict ESR per cell (successes/decided episodes above each bar)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return Figure("esr", "Strict ESR per cell, with the decided episodes above each bar", fig)


def _fixed_panel(ax, fixed: list[dict], players: list[str]) -> None:
    """Weak ESR against B; with a single budget, one bar per player at that budget."""
    budgets = sorted({r["budget"] for r in fixed})
    for j, p in enumerate(players):
        by: dict[int, list[dict]] = defaultdict(list)
        for r in fixed:
            if r["player"] == p:
                by[r["budget"]].append(r)
        if not by:
            continue
        pts = [weak_rate(by[b]) for b in sorted(by)]
        cards = len({r["card"] for rs in by.values() for r in rs})
        if len(budgets) == 1:
            ax.bar([j], [v for v, _ in pts], yerr=_errors(pts), capsize=3, label=f"{p} ({cards} cards)")
        else:
            ax.errorbar(sorted(by), [v for v, _ in pts], yerr=_errors(pts), capsize=3, **_style(j),
                        label=f"{p} ({cards} cards)")
    if len(budgets) == 1:
        ax.set_xticks(range(len(players)), [p[:24] for p in players], fontsize=7)
        ax.set(title=f"Fixed: weak ESR at the one budget run, B = {budgets[0]}", xlabel="player",
               ylabel="weak ESR (95% interval over cards)", ylim=(0, 1.05))
    else:
        ax.set_xticks(budgets)
        ax.set(title="Fixed: weak ESR against the budget B", xlabel="budget B (given observations)",
               ylabel="weak ESR (95% interval over cards)", ylim=(0, 1.05))


def _budget(plt, runs: Runs, players: list[str]) -> Figure | None:
    done = [r for r in runs.rows if r["status"] == "finished"]
    fixed = [r for r in done if r["protocol"] == "fixed"]
    adaptive = [r for r in done if r["protocol"] == "adaptive"]
    if not fixed and not adaptive:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    if fixed:
        _fixed_panel(left, fixed, players)
    for j, p in enumerate(players):
        mine = [r for r in adaptive if r["player"] == p]
        if mine:
            top = max(r["steps"] for r in mine)
            steps = list(range(top + 1))
            share = [sum(1 for r in mine if r["weak_success"] and r["steps"] <= s) / len(mine) for s in steps]
            right.step(steps, share, where="post", linestyle=_style(j)["linestyle"], label=f"{p} (n={len(mine)})")
    right.set(title="Adaptive: solved within s steps", xlabel="steps s (experiments proposed)",
              ylabel="cumulative share of Adaptive episodes", ylim=(0, 1.05))
    for ax in (left, right):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no episodes of this protocol", ha="center", transform=ax.transAxes)
    return Figure("budget", "Budget and steps (analogue of the paper's Figure 5)", fig)


def _failures(plt, failures: Table, players: list[str]) -> Figure | None:
    modes = [r for r in failures.rows if r["mode"] != "(finished episodes)"]
    total = next(r for r in failures.rows if r["mode"] == "(finished episodes)")
    if not modes:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(modes) * max(1, len(players)) + 1.5))
    height = 0.8 / len(players)
    for j, p in enumerate(players):
        ys = [i + (j - (len(players) - 1) / 2) * height for i in range(len(modes))]
        shares = [r[p] / total[p] if total[p] else 0.0 for r in modes]
        ax.barh(ys, shares, height=height, label=f"{p} (n={total[p]})")
        for y, s, r in zip(ys, shares, modes):
            ax.text(s + 0.01, y, str(r[p]), va="center", fontsize=7)
    ax.set_yticks(range(len(modes)),
                  [f"{r['mode'].replace('_', ' ')}{' (judges)' if r['source'] == 'judges' else ''}" for r in modes])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.1)
    ax.set_xlabel("share of finished episodes (count beside each bar)")
    ax.set_title("Failure modes per player")
    ax.legend(fontsize=7)
    return Figure("failures", "Failure modes (analogue of the paper's Figure 6)", fig)


def _observations(plt, runs: Runs, players: list[str]) -> Figure | None:
    adaptive = [r for r in runs.rows if r["status"] == "finished" and r["protocol"] == "adaptive"]
    if not adaptive:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for j, p in enumerate(players):
        steps = sorted(r["steps"] for r in adaptive if r["player"] == p)
        if steps:
            xs = list(range(steps[-1] + 1))
            ax.step(xs, [sum(1 for s in steps if s <= x) / len(steps) for x in xs], where="post",
                    linestyle=_style(j)["linestyle"], label=f"{p} (n={len(steps)})")
    ax.set(title="Adaptive episodes by observations taken", xlabel="observations taken (experiments)",
           ylabel="cumulative share of Adaptive episodes", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return Figure("observations", "Observations taken (analogue of the paper's Figure 11)", fig)


def _ps(plt, runs: Runs, players: list[str]) -> Figure | None:
    done = [r for r in runs.rows if r["status"] == "finished"]
    if not done:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, env in zip(axes, ("original", "counterfactual")):
        for p in players:
            values = [r["ps"] for r in done if r["environment"] == env and r["player"] == p]
            if values:
                ax.hist(values, bins=20, range=(0, 1), alpha=0.55, label=f"{p} (n={len(values)})")
        ax.set(title=f"PS, {env} world", xlabel="prediction score (PS)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    axes[0].set_ylabel("episodes")
    return Figure("ps", "Distribution of PS", fig)


def _form_credit(plt, runs: Runs, players: list[str]) -> Figure | None:
    done = [r for r in runs.rows if r["status"] == "finished" and r.get("form_credit") is not None]
    if not done:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4))
    envs = ("original", "counterfactual")
    width = 0.8 / len(players)
    for j, p in enumerate(players):
        pts, xs, ns = [], [], []
        for i, env in enumerate(envs):
            vs = [r["form_credit"] for r in done if r["player"] == p and r["environment"] == env]
            if vs:
                mine = [r for r in done if r["player"] == p and r["environment"] == env]
                pts.append((sum(vs) / len(vs), mean_interval(mine, "form_credit")))
                xs.append(i + (j - (len(players) - 1) / 2) * width)
                ns.append(len(vs))
        ax.bar(xs, [v for v, _ in pts], width=width, yerr=_errors(pts), capsize=3,
               label=f"{p} (n={sum(ns)})")
    ax.set_xticks(range(len(envs)), envs)
    ax.set(title="Graded form credit", ylabel="mean form credit (95% bootstrap over cards)", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return Figure("form_credit", "Graded form credit", fig)


def _extra_axes(plt, runs: Runs, players: list[str]) -> list[Figure]:
    out = []
    done = [r for r in runs.rows if r["status"] == "finished"]
    for axis in [a for a in runs.axes if a not in CELL]:
        values = sorted({r.get(axis) for r in done if r.get(axis) is not None}, key=str)
        if len(values) < 2:
            continue
        fig, ax = plt.subplots(figsize=(6.5, 4))
        for j, p in enumerate(players):
            pts, xs = [], []
            for i, v in enumerate(values):
                mine = [r for r in done if r["player"] == p and r.get(axis) == v]
                if mine:
                    pts.append(weak_rate(mine))
                    xs.append(i)
            ax.errorbar(xs, [v for v, _ in pts], yerr=_errors(pts), capsize=3, label=p, **_style(j))
        ax.set_xticks(range(len(values)), [str(v) for v in values])
        label = axis.replace("_", " ")
        ax.set(title=f"Weak ESR against {label}", xlabel=label, ylabel="weak ESR (95% interval over cards)",
               ylim=(0, 1.05))
        ax.legend(fontsize=7)
        out.append(Figure(f"axis_{axis}", f"Weak ESR against {label}", fig))
    return out


def build_figures(runs: Runs, tables: dict[str, Table]) -> list[Figure]:
    plt = _pyplot()
    players = runs.players
    figs = [_esr(plt, tables["main"], runs), _budget(plt, runs, players),
            _failures(plt, tables["failures"], players), _observations(plt, runs, players),
            _ps(plt, runs, players), _form_credit(plt, runs, players), *_extra_axes(plt, runs, players)]
    out = [f for f in figs if f is not None]
    for f in out:
        f.fig.tight_layout()
    return out


def close(figures: list[Figure]) -> None:
    plt = _pyplot()
    for f in figures:
        plt.close(f.fig)


def write_plots(runs: Runs, tables: dict[str, Table], folder: Path) -> list[Path]:
    """Every figure as FOLDER/<name>.png."""
    folder.mkdir(parents=True, exist_ok=True)
    figures = build_figures(runs, tables)
    try:
        return [f.png(folder / f"{f.name}.png") for f in figures]
    finally:
        close(figures)
