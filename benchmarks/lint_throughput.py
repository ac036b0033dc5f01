"""Lint throughput against the bare Lark parse of the same text.

    python benchmarks/lint_throughput.py [--copies N] [--repeat R]

Reads every bundled card, multiplies the set to N cards, and times in one run:
  parse  - Lark's LALR parse alone (the floor: no AST, no checking)
  check  - parse + AST + full check (units, dimensions, both environments)
  lint   - what `scigame lint` does per file: read, check, render diagnostics
Prints per-card times and the ratios check/parse and lint/parse (best of R).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=200, help="cards in the benchmark folder")
    ap.add_argument("--repeat", type=int, default=5, help="take the best of this many runs")
    args = ap.parse_args()

    from scigame.compiler import check_file, check_source, render
    from scigame.compiler.syntax import parser

    originals = sorted((REPO / "cards").rglob("*.sci"))
    if not originals:
        print("no bundled cards found", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = []
        for i in range(args.copies):
            src = originals[i % len(originals)]
            name = f"{src.stem}_{i}"
            text = src.read_text().replace(f"card {src.stem} ", f"card {name} ", 1)
            path = folder / f"{name}.sci"
            path.write_text(text)
            files.append(path)
        texts = [f.read_text() for f in files]
        lark = parser()
        # warm up: registry, parser tables, unit cache (as in a long lint run)
        for t in texts[: len(originals)]:
            check_source(t, "warm.sci")

        def parse_all():
            for t in texts:
                lark.parse(t)

        def check_all():
            for f, t in zip(files, texts):
                check_source(t, str(f))

        def lint_all():
            for f in files:
                r = check_file(f)
                for d in r.diagnostics:
                    render(d, r.source)

        t_parse = _best(parse_all, args.repeat)
        t_check = _best(check_all, args.repeat)
        t_lint = _best(lint_all, args.repeat)

    n = len(files)
    print(f"cards: {n} ({len(originals)} distinct), best of {args.repeat}")
    print(f"{'stage':<8}{'total s':>10}{'ms/card':>10}{'cards/s':>10}{'x parse':>10}")
    for name, t in (("parse", t_parse), ("check", t_check), ("lint", t_lint)):
        print(f"{name:<8}{t:>10.3f}{1000 * t / n:>10.3f}{n / t:>10.0f}{t / t_parse:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
