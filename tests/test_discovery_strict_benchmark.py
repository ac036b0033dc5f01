"""benchmarks/discovery_strict.py through a real subprocess: the counts, the
play's own time beside the episode's (play and scoring), as issue 29's time
bound is read from them, and the count of confident misses at Fixed B too."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_counts_and_both_times_are_printed():
    cards = [REPO / "cards" / "historical" / "pendulum.sci", REPO / "cards" / "historical" / "malus.sci"]
    run = subprocess.run([sys.executable, str(REPO / "benchmarks" / "discovery_strict.py"), *map(str, cards),
                          "--protocol", "fixed", "-v"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in run.stdout.splitlines() if re.match(r"  \S+\s+orig fixed", ln)]
    assert [ln.split()[0] for ln in lines] == ["malus", "pendulum"]
    summary = re.search(r"fixed\s+original\s+strict (\d)/2  weak (\d)/2  median ([\d.]+) s  p95 ([\d.]+) s  "
                        r"\(playing: median ([\d.]+) s  p95 ([\d.]+) s\)", run.stdout)
    assert summary, run.stdout
    strict, weak, median, p95, play_median, play_p95 = summary.groups()
    assert int(strict) == sum("strict=True" in ln for ln in lines) and int(weak) >= int(strict)
    # the play is part of the episode, which also scores it
    assert 0 < float(play_median) <= float(median) and float(play_p95) <= float(p95)
    misses = [ln.split()[0] for ln in lines if "strict=True" not in ln]
    # the confident misses are counted at Fixed B too, and are misses
    confident = re.search(r"not strict, yet submitted at the threshold or above: (\d+)", run.stdout)
    assert confident and int(confident.group(1)) <= len(misses)
