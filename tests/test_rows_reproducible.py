"""The default matrix's rows do not depend on what a process played before.

A worker of `scigame eval --workers N` plays whichever episodes come its way,
so the baseline's memo, sympy's cache and every other per-process cache hold
a different history in each run. Here one process plays the same episodes
twice, in the planned order and then reversed (each episode then finds the
caches filled by every other one), and every stored field of every episode,
the clocks aside, must be the same."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from scigame.players import make_player
from scigame.protocols import play_episode
from scigame.runner import EvalConfig, compile_cards, plan, resolve_run, select_temporal

REPO = Path(__file__).resolve().parent.parent
CARDS = [REPO / "cards/historical" / f"{name}.sci" for name in ("gravitation", "snell", "hill")]
sys.path.insert(0, str(REPO / "benchmarks"))
from eval_matrix import _timeless  # noqa: E402  (the rows eval_matrix.py --rows writes, clocks left out)


def _rows(planned, factory) -> dict:
    async def play():
        out = {}
        for p in planned:
            episode = await play_episode(p.card, p.key, factory, p.seed, p.max_steps)
            out[p.key.as_tuple()] = json.dumps(_timeless(json.loads(episode.model_dump_json())), sort_keys=True)
        return out
    return asyncio.run(play())


def test_rows_do_not_depend_on_the_order_of_episodes(tmp_path):
    config = EvalConfig(paths=[str(c) for c in CARDS], out=str(tmp_path), repetitions=1)
    resolved = resolve_run(config)
    name, factory = make_player(config.player)
    cards, skipped = compile_cards(resolved.card_files, tmp_path)
    cards, _ = select_temporal(cards, name, config, resolved)
    planned = plan(config, cards, name)
    assert not skipped and len(planned) == 12 * len(CARDS)
    first = _rows(planned, factory)
    again = _rows(list(reversed(planned)), factory)
    differ = [k for k in first if first[k] != again[k]]
    assert not differ, f"{len(differ)} of {len(first)} rows depend on the order: {differ[:3]}"
