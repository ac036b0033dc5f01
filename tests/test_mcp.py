"""`scigame mcp`: the real `mcp` client (ClientSession over stdio) plays an
episode to its end against the server started as a user would start it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

from scigame.store import Store  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = str(REPO / "cards/historical/gravitation.sci")
LAW = {"F": {"op": "div", "args": [{"op": "mul", "args": [6.674e-11, {"var": "m1"}, {"var": "m2"}]},
                                   {"op": "pow", "args": [{"var": "r"}, 2]}]}}
HYPOTHESES = [{"statement": "F ~ m1 m2 / r^2", "confidence": 0.6}, {"statement": "F ~ m1 m2 / r", "confidence": 0.4}]


def _command(out: Path, *extra: str) -> list[str]:
    return ["-m", "scigame", "mcp", GRAVITATION, "--setting", "discovery", "--env", "original", "--protocol",
            "adaptive", "--reps", "1", "--max-steps", "2", "--out", str(out), *extra]


async def _session(out: Path, play, *extra: str):
    from mcp import ClientSession, Implementation, StdioServerParameters, stdio_client
    params = StdioServerParameters(command=sys.executable, args=_command(out, *extra), cwd=str(REPO))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=Implementation(name="test-agent", version="1")) as s:
            await s.initialize()

            async def call(name, **args):
                result = await s.call_tool(name, args)
                return json.loads(result.content[0].text)
            return await play(s, call)


def _experiment(r: float) -> dict:
    return {"inputs": {"m1": 10, "m2": 20, "r": r}, "outputs": ["F"], "hypotheses": HYPOTHESES,
            "predictions": [{"F": 6.674e-11 * 200 / r ** 2}, {"F": 6.674e-11 * 200 / r}]}


def test_an_agent_plays_an_episode_over_mcp_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "run"

    async def play(session, call):
        seen = {"tools": sorted(t.name for t in (await session.list_tools()).tools)}
        seen["task"] = await call("task")
        seen["unusable"] = await call("experiment", inputs={"m1": 10}, outputs=["F"], hypotheses=HYPOTHESES,
                                      predictions="none")
        seen["first"] = await call("experiment", **_experiment(1.0))
        seen["second"] = await call("experiment", **_experiment(2.0))
        seen["budget"] = await call("budget")
        seen["beyond"] = await call("experiment", **_experiment(3.0))
        seen["invalid"] = await call("submit", predictor={"F": {"op": "frobnicate", "args": [{"var": "m1"}]}},
                                     explanation="x", applicability="y")
        seen["outcome"] = await call("submit", predictor=LAW, hypotheses=HYPOTHESES, selected=0,
                                     explanation="F grows with m1 and m2 and falls as 1/r^2: doubling r gave F/4.",
                                     applicability="the stated domain")
        seen["after"] = await call("task")
        return seen

    seen = asyncio.run(asyncio.wait_for(_session(out, play), 300))
    assert seen["tools"] == ["budget", "experiment", "submit", "task"]
    task = seen["task"]
    assert [i["name"] for i in task["task"]["inputs"]] == ["m1", "m2", "r"] and task["experiments_left"] == 2
    assert task["episode"] == "gravitation original discovery adaptive rep 0"
    # the LLM player's own messages: the action format, then the oracle
    assert "That reply could not be used: the action does not match the format" in seen["unusable"]["error"]
    assert seen["first"]["oracle"]["observation"]["outputs"]["F"] == pytest.approx(6.674e-11 * 200, rel=1e-9)
    assert seen["second"]["experiments_left"] == 0 and seen["second"]["must_submit"] is True
    assert seen["budget"] == {"experiments_left": 0, "must_submit": True}
    assert seen["beyond"]["oracle"]["rejected"] == ["no experiments are allowed now: submit your answer"]
    assert seen["beyond"]["protocol_breaks"] == ["proposed an experiment after the step budget was spent"]
    assert "unknown op 'frobnicate' at F" in seen["invalid"]["error"]
    outcome = seen["outcome"]["outcome"]
    assert outcome["valid"] and outcome["ps"] == pytest.approx(1.0, abs=1e-6)
    assert outcome["failure_mode"] == "protocol_violation" and outcome["strict_success"] is False  # the extra probe
    assert "every episode of the plan is finished: 1 played now" in seen["after"]["finished"]

    with Store(out) as store:
        (episode,) = store.episodes()
    assert episode.key.player == "mcp:test-agent" and episode.status == "finished"
    kinds = [("malformed" if t.malformed else "experiment" if t.action and t.action.experiment else "submit")
             for t in episode.turns]
    assert kinds == ["malformed", "experiment", "experiment", "experiment", "malformed", "submit"]
    assert episode.turns[-1].action.submission.predictor == LAW
    assert len(episode.given) == 0 and len([t for t in episode.turns if t.response and t.response.observation]) == 2

    async def again(session, call):
        return await call("task")

    resumed = asyncio.run(asyncio.wait_for(_session(out, again), 300))
    assert "0 played now, 1 earlier" in resumed["finished"]
    # --player-name: another player's plan in the same folder, not yet played
    fresh = asyncio.run(asyncio.wait_for(_session(out, again, "--player-name", "codex"), 300))
    assert fresh["episode"] == "gravitation original discovery adaptive rep 0" and fresh["experiments_left"] == 2


def test_the_same_plan_over_streamable_http(tmp_path):
    """`--http PORT`: the server listens on 127.0.0.1 only and serves the same tools."""
    import socket
    import subprocess
    import time

    from mcp import ClientSession, Implementation
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, *_command(tmp_path / "run", "--http", str(port))], cwd=str(REPO),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.3)

        async def play():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1],
                                         client_info=Implementation(name="http-agent", version="1")) as s:
                    await s.initialize()
                    first = json.loads((await s.call_tool("experiment", _experiment(1.0))).content[0].text)
                    return json.loads((await s.call_tool("task", {})).content[0].text), first

        task, first = asyncio.run(asyncio.wait_for(play(), 300))
        assert task["episode"] == "gravitation original discovery adaptive rep 0" and task["experiments_left"] == 1
        assert first["oracle"]["observation"]["inputs"] == {"m1": 10.0, "m2": 20.0, "r": 1.0}
    finally:
        server.terminate()
        server.wait(30)
