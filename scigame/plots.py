"""Plots of a run (`scigame report RUN_DIR --plots DIR`), as PNG files.

    esr.png     strict and weak ESR per setting × world × protocol
    ps.png      the distribution of PS per world
    steps.png   experiments used by Adaptive episodes, successes vs failures
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_plots(rows: list[dict], folder: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    done = [r for r in rows if r["status"] == "finished"]
    written = []

    cells: dict[tuple, list[dict]] = defaultdict(list)
    for r in done:
        cells[(r["setting"], r["environment"], r["protocol"])].append(r)
    keys = sorted(cells)
    if keys:
        fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(keys)), 4))
        xs = range(len(keys))
        weak = [sum(r["weak_success"] for r in cells[k]) / len(cells[k]) for k in keys]
        strict = [sum(r["strict_success"] or 0 for r in cells[k]) / len(cells[k]) for k in keys]
        ax.bar([x - 0.2 for x in xs], strict, width=0.4, label="strict ESR")
        ax.bar([x + 0.2 for x in xs], weak, width=0.4, label="weak ESR")
        ax.set_xticks(list(xs), [f"{s[:5]}\n{e[:4]}\n{p}" for s, e, p in keys], fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("success rate")
        ax.legend()
        written.append(_save(plt, fig, folder / "esr.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    for env in ("original", "counterfactual"):
        values = [r["ps"] for r in done if r["environment"] == env]
        if values:
            ax.hist(values, bins=20, range=(0, 1), alpha=0.6, label=env)
    ax.set_xlabel("prediction score (PS)")
    ax.set_ylabel("episodes")
    ax.legend()
    written.append(_save(plt, fig, folder / "ps.png"))

    adaptive = [r for r in done if r["protocol"] == "adaptive"]
    if adaptive:
        fig, ax = plt.subplots(figsize=(6, 4))
        for label, keep in (("weak success", True), ("failure", False)):
            steps = [r["steps"] for r in adaptive if bool(r["weak_success"]) == keep]
            if steps:
                ax.hist(steps, bins=range(0, max(r["steps"] for r in adaptive) + 2), alpha=0.6, label=label)
        ax.set_xlabel("experiments in an Adaptive episode")
        ax.set_ylabel("episodes")
        ax.legend()
        written.append(_save(plt, fig, folder / "steps.png"))
    return written
