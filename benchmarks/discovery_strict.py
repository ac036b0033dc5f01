"""Strict discovery counts of the baseline over a folder of cards.

    python benchmarks/discovery_strict.py [--protocol fixed|adaptive ...] [--budget B]
                                          [--env original|counterfactual ...] [-v] [PATH ...]

PATH defaults to benchmarks/feynman/ (the measurement set of textbook
physics laws; see its README). Plays one repetition of each card in the
Discovery setting for each protocol and world through the real runner
(scigame.protocols.play_episode), and prints the strict and weak counts
per protocol and world, the median and 95th percentile of episode wall
time (the play and its scoring, which includes the strict sympy check and
its limit of 5 s of CPU), beside those of the play alone (the player and
the simulator, before scoring), and with -v one line per card and
episode. It also counts the misses submitted at the card's threshold τ or
above (under Adaptive with the protocol kept; at Fixed B, where τ is no
rule, by the submitted confidence alone): confidently wrong laws, where an
honest failure submits its best weak fit below τ.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(REPO / "benchmarks" / "feynman")])
    ap.add_argument("--protocol", action="append", choices=["fixed", "adaptive"])
    ap.add_argument("--env", action="append", choices=["original", "counterfactual"])
    ap.add_argument("--budget", type=int, default=8, help="B of the Fixed protocol (default 8)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    import scigame
    from scigame.players.baseline import BaselinePlayer
    from scigame.protocols import play_episode
    from scigame.records import EpisodeKey

    files = sorted(f for p in args.paths for f in (Path(p).rglob("*.sci") if Path(p).is_dir() else [Path(p)]))
    with tempfile.TemporaryDirectory() as tmp:
        cards = [scigame.load_card(f, cache_dir=tmp) for f in files]
        for protocol in args.protocol or ["fixed", "adaptive"]:
            for env in args.env or ["original"]:
                strict = weak = 0
                times, plays, misses, confident = [], [], [], []
                for card in cards:
                    budget = args.budget if protocol == "fixed" else (card.data.max_steps or 0)
                    key = EpisodeKey(card_hash=card.data.source_sha256, card=card.name, environment=env,
                                     setting="discovery", protocol=protocol, budget=budget, repetition=0,
                                     player="baseline")
                    t0 = time.perf_counter()
                    ep = asyncio.run(play_episode(card, key, BaselinePlayer, seed=1,
                                                  max_steps=card.data.max_steps))
                    times.append(time.perf_counter() - t0)
                    out = ep.outcome
                    plays.append(out.wall_time)
                    strict += bool(out.strict_success)
                    weak += bool(out.weak_success)
                    sub = next((t.action.submission for t in ep.turns if t.action and t.action.submission), None)
                    if not out.strict_success:
                        misses.append(card.name)
                        last = ep.turns[-1].action if ep.turns else None
                        conf = last.hypotheses[sub.selected].confidence if sub and last and last.hypotheses else 0.0
                        if out.protocol_ok and sub and conf >= card.data.threshold:
                            confident.append(card.name)
                    if args.verbose:
                        law = sub.predictor if sub else None
                        print(f"  {card.name:<28} {env[:4]} {protocol:<8} strict={out.strict_success!s:<5} "
                              f"weak={out.weak_success!s:<5} steps={out.steps:<3} {times[-1]:6.2f}s "
                              f"{(ep.turns[-1].action.hypotheses[sub.selected].statement if sub else '')[:110]}")
                print(f"{protocol:<8} {env:<14} strict {strict}/{len(cards)}  weak {weak}/{len(cards)}  "
                      f"median {np.median(times):.2f} s  p95 {np.percentile(times, 95):.2f} s  "
                      f"(playing: median {np.median(plays):.2f} s  p95 {np.percentile(plays, 95):.2f} s)")
                if misses:
                    print("   not strict:", " ".join(misses))
                # issue 29, honest failure: a miss submitted at the card's τ or above (at Fixed B too,
                # where τ is no rule of the protocol but still the confidence of an answer to act on)
                print(f"   not strict, yet submitted at the threshold or above: {len(confident)}"
                      + (" (" + " ".join(confident) + ")" if confident else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
