"""Where episodes run: worker processes and Ray tasks store exactly the rows
that one process stores, and resume and --max-cost work the same way."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.executors import ExecutorError, card_bundle, unpack_card
from scigame.players.base import Player
from scigame.runner import EvalConfig, run_eval
from scigame.store import Store
from scigame.testing.players import WhereaboutsPlayer

REPO = Path(__file__).resolve().parent.parent
CARDS = [str(REPO / "cards/historical/gravitation.sci"), str(REPO / "cards/historical/snell.sci")]
EPISODES = 2 * 2 * 2 * 3  # cards x worlds x settings x protocols, one repetition


def stored(folder: Path) -> dict:
    """Every stored row by key, the record parsed, without the times."""
    with Store(folder) as store:
        rows = store.rows()
    out = {}
    for row in rows:
        row = dict(row)
        record = json.loads(row.pop("record"))
        row.pop("wall_time"), row.pop("written_at")
        if record.get("outcome"):
            record["outcome"].pop("wall_time")
        out[(row["card"], row["environment"], row["setting"], row["protocol"], row["budget"],
             row["repetition"], row["player"])] = (row, record)
    return out


def run(out: Path, player=None, **kw):
    config = EvalConfig(paths=CARDS, out=str(out), repetitions=1, **kw)
    return asyncio.run(run_eval(config, player=player))


def pids(folder: Path) -> set[str]:
    with Store(folder) as store:
        return {e.turns[0].action.notes for e in store.episodes()}


def test_two_workers_store_the_same_rows_as_one(tmp_path):
    one = run(tmp_path / "one", workers=1)
    two = run(tmp_path / "two", workers=2)
    assert one.played == two.played == EPISODES and not one.errors and not two.errors
    rows_one, rows_two = stored(tmp_path / "one"), stored(tmp_path / "two")
    assert len(rows_one) == EPISODES
    assert rows_two == rows_one
    # a real matrix: the baseline solves some episodes and not others
    assert {row["weak_success"] for row, _ in rows_one.values()} == {0, 1}


def test_workers_start_the_longest_episodes_first(tmp_path):
    from scigame.runner import load_cards, longest_first, plan

    cards, _ = load_cards(CARDS, tmp_path / "cards")
    planned = plan(EvalConfig(paths=CARDS, repetitions=1), cards, "baseline")
    order = longest_first(planned)
    assert sorted(map(id, order)) == sorted(map(id, planned))  # the same episodes
    kinds = [(p.key.protocol, p.key.setting) for p in order]
    n = kinds.count(("adaptive", "discovery"))
    assert n == 4 and set(kinds[:n]) == {("adaptive", "discovery")}  # the searches after every experiment
    assert kinds[n:n + 4] == [("adaptive", "identification")] * 4
    assert {k for k, _ in kinds[-8:]} == {"prior"}  # nothing to search: they fill the tail
    # within a rank the plan's order stays (gravitation's before snell's, original before counterfactual)
    first = [(p.key.card, p.key.environment) for p in order[:n]]
    assert first == sorted(first, key=lambda ce: [(p.key.card, p.key.environment) for p in planned].index(ce))


def test_workers_multiply_matrices_on_one_blas_thread():
    from scigame.executors import _process_pool

    pool = _process_pool(1, pickle.dumps(None))
    try:
        seen = pool.submit(functools.partial(os.getenv, "OPENBLAS_NUM_THREADS")).result(timeout=120)
        loaded = pool.submit(_loaded_in_order).result(timeout=120)
    finally:
        pool.shutdown()
    assert seen == os.environ.get("OPENBLAS_NUM_THREADS", "1")  # one thread, unless the user said otherwise
    assert loaded  # set before the fork server loaded numpy, which reads it once


def _loaded_in_order() -> bool:
    """In a worker: the fork server loaded scigame.blas_threads before numpy (modules are kept in load order)."""
    order = list(sys.modules)
    return "numpy" in order and order.index("scigame.blas_threads") < order.index("numpy")


def test_episodes_are_played_in_the_worker_processes(tmp_path):
    slow = functools.partial(WhereaboutsPlayer, delay=0.05)
    report = run(tmp_path / "run", player=("whereabouts", slow), workers=2)
    assert report.played == EPISODES
    seen = pids(tmp_path / "run")
    assert f"pid {os.getpid()}" not in seen
    assert len(seen) == 2  # both workers took episodes


def test_one_worker_plays_in_this_process(tmp_path):
    run(tmp_path / "run", player=("whereabouts", WhereaboutsPlayer), workers=1)
    assert pids(tmp_path / "run") == {f"pid {os.getpid()}"}


def test_a_player_that_cannot_be_sent_to_workers_is_a_clear_error(tmp_path):
    class Local(Player):  # defined inside a function: pickle cannot name it
        async def act(self, state):
            raise AssertionError("never played")

    with pytest.raises(ExecutorError, match="--workers 1"):
        run(tmp_path / "run", player=("local", Local), workers=2)


def test_max_cost_and_resume_with_workers(tmp_path):
    first = run(tmp_path / "run", player=("whereabouts", WhereaboutsPlayer), workers=2, max_cost=3.0)
    # at most `workers` episodes are in flight when the budget is reached
    assert 3 <= first.played <= 4 and first.not_started == EPISODES - first.played
    second = run(tmp_path / "run", player=("whereabouts", WhereaboutsPlayer), workers=2)
    assert second.skipped == first.played and second.played == EPISODES - first.played
    assert len(stored(tmp_path / "run")) == EPISODES


def test_cli_workers_option_errors():
    runner = CliRunner()
    result = runner.invoke(main, ["eval", CARDS[0], "--ray-address", "127.0.0.1:1"])
    assert result.exit_code == 2 and "--ray-address needs --executor ray" in result.output
    result = runner.invoke(main, ["eval", CARDS[0], "--workers", "0"])
    assert result.exit_code == 2 and "--workers" in result.output


def test_a_shipped_card_unpacks_into_the_same_card(tmp_path):
    from scigame.card import load_card
    card = load_card(CARDS[0], cache_dir=tmp_path / "cache")
    card.kernel("original")  # a __pycache__ may exist next to it; it is not shipped
    bundle = card_bundle(card.folder)
    assert "manifest.json" in bundle and "simulator.py" in bundle
    assert not any("__pycache__" in k for k in bundle)
    folder = unpack_card(bundle, tmp_path / "shipped")
    assert unpack_card(bundle, tmp_path / "shipped") == folder  # once per build
    from scigame.card import CompiledCard
    shipped = CompiledCard(folder)
    x = {"m1": 10.0, "m2": 20.0, "r": 2.0}
    assert shipped.simulate("counterfactual", x) == card.simulate("counterfactual", x)


# -- Ray ---------------------------------------------------------------------------------------------
def need_ray():
    """Ray, or a skip naming the extra. CI sets SCIGAME_REQUIRE_RAY=1, so
    there a missing Ray fails instead of skipping."""
    try:
        import ray
    except ImportError:
        if os.environ.get("SCIGAME_REQUIRE_RAY"):
            raise
        pytest.skip("Ray is not installed: pip install -e '.[ray]'")
    return ray


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray instance on 127.0.0.1 with two CPUs, stopped at the end."""
    ray = need_ray()
    temp = tempfile.mkdtemp(prefix="sgray")  # short: Ray's socket paths must stay under 108 bytes
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", _temp_dir=temp,
             object_store_memory=100 * 2**20, log_to_driver=False, logging_level="WARNING")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def scigame_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scigame", *args], capture_output=True, text=True,
                          timeout=600)


def test_ray_stores_the_same_rows_as_the_process_pool(tmp_path, ray_address):
    run(tmp_path / "pool", workers=2)
    args = ["eval", *CARDS, "--reps", "1", "--executor", "ray", "--ray-address", ray_address,
            "--out", str(tmp_path / "ray"), "--quiet"]
    first = scigame_cli(*args)
    assert first.returncode == 0, first.stderr
    assert stored(tmp_path / "ray") == stored(tmp_path / "pool")
    again = scigame_cli(*args)  # resume: nothing left to play
    assert again.returncode == 0, again.stderr
    assert f"0 played, {EPISODES} already finished" in again.stdout


def test_ray_tasks_keep_max_cost_and_resume(tmp_path, ray_address):
    player = ("whereabouts", WhereaboutsPlayer)
    first = run(tmp_path / "run", player=player, executor="ray", workers=2, max_cost=3.0)
    assert 3 <= first.played <= 4 and first.not_started == EPISODES - first.played
    assert f"pid {os.getpid()}" not in pids(tmp_path / "run")  # played by Ray's workers
    second = run(tmp_path / "run", player=player, executor="ray", workers=2)
    assert second.skipped == first.played and second.played == EPISODES - first.played


def test_a_ray_address_with_no_cluster_is_a_clear_error(tmp_path):
    need_ray()
    result = scigame_cli("eval", CARDS[0], "--reps", "1", "--executor", "ray", "--ray-address",
                         "127.0.0.1:9", "--out", str(tmp_path / "run"), "--quiet")
    assert result.returncode == 2, result.stderr
    assert "--ray-address 127.0.0.1:9: cannot connect to Ray" in result.stderr
    assert "Traceback" not in result.stderr


KILLED_RUN = """
import asyncio, functools, sys
from scigame.runner import EvalConfig, run_eval
from scigame.testing.players import WhereaboutsPlayer
config = EvalConfig(paths=[sys.argv[1]], out=sys.argv[2], repetitions=4, workers=2)
asyncio.run(run_eval(config, player=("whereabouts", functools.partial(WhereaboutsPlayer, delay=0.5))))
"""


def processes_marked(mark: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"SCIGAME_TEST_MARK={mark}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_workers_end_when_the_run_is_killed(tmp_path):
    import signal
    import time
    mark = os.urandom(8).hex()
    env = dict(os.environ, SCIGAME_TEST_MARK=mark)
    run_proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, CARDS[0], str(tmp_path / "run")], env=env)
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "run" / "episodes.sqlite").exists() or len(processes_marked(mark)) < 3:
            assert time.monotonic() < deadline and run_proc.poll() is None, "the run did not start its workers"
            time.sleep(0.2)
    finally:
        run_proc.send_signal(signal.SIGKILL)
        run_proc.wait()
    deadline = time.monotonic() + 15
    while processes_marked(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = processes_marked(mark)
    for pid in left:  # do not leave them behind even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, "worker processes outlived the killed run"


def test_import_scigame_leaves_numpy_one_blas_thread_unless_the_user_set_one():
    probe = ("import os, sys, scigame.card; order = list(sys.modules); "
             "print(os.environ['OPENBLAS_NUM_THREADS'], order.index('scigame.blas_threads') < order.index('numpy'))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["1", "True"]
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**env, "OPENBLAS_NUM_THREADS": "3"})
    assert out.stdout.split() == ["3", "True"]
