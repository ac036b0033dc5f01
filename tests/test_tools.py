"""`--tools python`: the LLM player's sandboxed run_python tool, end to end
through the real `openai` client against the fake server on 127.0.0.1.

The sandbox tests are attempts made by code the model sends (a scripted
reply calling run_python), each checked where the model would see it: in the
tool message the next request carried, and in the stored tool turn."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.records import load_episode
from scigame.sandbox import sandbox_problem
from scigame.store import Store
from scigame.summary import summarize_run
from scigame.testing.fake_openai import FakeOpenAI, Reply
from scigame.testing.responders import FIT_CODE, coder

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = str(REPO / "cards/historical/gravitation.sci")
KEY_ENV = "SCIGAME_TEST_KEY"
SECRET = "sk-test-do-not-leak-4417"

pytestmark = pytest.mark.skipif(sandbox_problem() is not None and os.environ.get("CI") != "true",
                                reason=f"no sandbox here: {sandbox_problem()}")

#: Newton's law as the LLM action format writes a submission.
LAW = {"F": {"op": "div", "args": [{"op": "mul", "args": [6.674e-11, {"var": "m1"}, {"var": "m2"}]},
                                   {"op": "pow", "args": [{"var": "r"}, 2]}]}}
SUBMIT = {"hypotheses": [{"statement": "inverse square attraction", "confidence": 1.0}], "experiment": None,
          "submission": {"selected": 0, "predictor": LAW, "explanation": "F grows with each mass and falls as 1/r^2.",
                         "applicability": "the stated domain"}, "notes": ""}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def _eval(server, out, *extra, player="openai:fake-model"):
    return CliRunner().invoke(main, [
        "eval", GRAVITATION, "--player", player, "--base-url", server.base_url, "--api-key-env", KEY_ENV,
        "--setting", "discovery", "--protocol", "fixed", "--reps", "1", "--out", str(out), "--quiet",
        "--tools", "python", *extra])


def _episodes(out):
    with Store(out) as store:
        return sorted(store.episodes(), key=lambda e: e.key.environment)


def _tool_call(code: str) -> Reply:
    return Reply(tool_calls=[{"name": "run_python", "arguments": json.dumps({"code": code})}])


def _stray_sandboxes() -> list[str]:
    """Processes of a sandbox still alive (bwrap, or our bootstrap inside)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "run_python" in cmd and "RLIMIT" in cmd or _sandbox_uid(pid):
            found.append(f"{pid}: {cmd[:120]}")
    return found


def _sandbox_uid(pid: str) -> bool:
    """Run as root, the code runs under a uid of its own from 100000 up (scigame/sandbox.py):
    any process left with one is a stray, whatever it runs (a `sleep` the code started)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    uid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:")))
    return os.geteuid() == 0 and 100_000 <= uid < 1_000_000


def test_the_coder_fits_with_run_python_and_replay_reproduces_it(tmp_path):
    """Episodes that call run_python through the openai client: stored with
    their tool turns, spend equal to the server's log, shown in the report,
    replayed (the tool re-run) to the same transcript and outcome."""
    with FakeOpenAI(coder, api_key=SECRET) as server:
        result = _eval(server, tmp_path / "run")
        assert result.exit_code == 0, result.output
        offered = [r for r in server.requests if r.get("path") == "/v1/chat/completions"]
        delivered = server.delivered
    assert all(r["tools"][0]["function"]["name"] == "run_python" for r in offered)
    assert any(m.get("role") == "tool" for m in offered[-1]["messages"])
    episodes = _episodes(tmp_path / "run")
    assert [e.key.tools for e in episodes] == ["python", "python"]
    for e in episodes:
        tools = [t for t in e.turns if t.tool is not None]
        assert len(tools) == 1 and tools[0].tool.code == FIT_CODE and not tools[0].tool.error
        fit = json.loads(tools[0].tool.output)
        assert fit["max_relative_error"] < 1e-3
        assert e.turns[-1].action.submission.predictor == fit["predictor"]  # it submitted what it fitted
        assert tools[0].usage.calls == 1 and e.outcome.weak_success
    # spend: every answered call, tool calls included, as the server billed them
    spent = [sum(e.spent.input_tokens for e in episodes), sum(e.spent.cached_tokens for e in episodes),
             sum(e.spent.output_tokens for e in episodes)]
    assert spent == [sum(d[i] for d in delivered) for i in range(3)]
    assert sum(e.spent.calls for e in episodes) == len(delivered) == 4
    # the control axis
    rows = summarize_run(tmp_path / "run").table
    assert {r["tools"] for r in rows} == {"python"}
    assert "tools" in result.output
    # the report shows the code and its output, escaped
    report = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--html", str(tmp_path / "report.html")])
    assert report.exit_code == 0, report.output
    page = (tmp_path / "report.html").read_text("utf-8")
    assert "run_python" in page and "np.linalg.lstsq" in page and "&quot;max_relative_error&quot;" in page
    # replay: the same actions, the tool run again on the replay's own observations
    replayed = CliRunner().invoke(main, [
        "eval", GRAVITATION, "--player", f"replay:{tmp_path / 'run'}", "--setting", "discovery", "--protocol",
        "fixed", "--reps", "1", "--out", str(tmp_path / "again"), "--quiet", "--tools", "python"])
    assert replayed.exit_code == 0, replayed.output
    for a, b in zip(episodes, _episodes(tmp_path / "again"), strict=True):
        assert [(t.tool.code, t.tool.output, t.tool.error) for t in a.turns if t.tool] == \
            [(t.tool.code, t.tool.output, t.tool.error) for t in b.turns if t.tool]
        assert [t.action for t in a.turns if t.action] == [t.action for t in b.turns if t.action]
        assert (a.outcome.ps, a.outcome.strict_success) == (b.outcome.ps, b.outcome.strict_success)
    assert _stray_sandboxes() == []


def _attack(tmp_path, code: str, *extra):
    """One episode in which the model sends `code`, then submits: (the tool
    message the model read, the stored tool call, the episode)."""
    with FakeOpenAI([_tool_call(code), Reply(content=json.dumps(SUBMIT))], api_key=SECRET) as server:
        result = _eval(server, tmp_path / "run", "--env", "original", "--tool-cpu", "3", "--tool-wall", "30",
                       *extra)
        assert result.exit_code == 0, result.output
        second = [r for r in server.requests if r.get("path") == "/v1/chat/completions"][1]
    seen = next(m["content"] for m in second["messages"] if m.get("role") == "tool")
    (episode,) = _episodes(tmp_path / "run")
    (call,) = [t.tool for t in episode.turns if t.tool is not None]
    # the episode and the run are unharmed: the submission after the attack is scored
    assert episode.status == "finished" and episode.outcome.strict_success, episode.error
    assert _stray_sandboxes() == []
    return seen, call, episode


@pytest.fixture
def card_cache(tmp_path):
    """The compiled card's folder in the run folder (the build cache of this run)."""
    return tmp_path / "run" / "cards"


def test_no_network_not_even_the_endpoint(tmp_path):
    with FakeOpenAI([]) as probe:  # a live port on 127.0.0.1, as the endpoint's is
        port = probe.port
        seen, call, _ = _attack(tmp_path, f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 2)\n")
    assert "error:" in seen and ("ConnectionRefusedError" in call.error or "OSError" in call.error)


def test_no_api_key_no_environment(tmp_path):
    seen, call, _ = _attack(tmp_path, f"import os\nprint(sorted(os.environ))\nprint(os.environ.get({KEY_ENV!r}))\n"
                                      f"assert {KEY_ENV!r} not in os.environ, 'the key leaked'\n")
    assert SECRET not in seen and SECRET not in call.output and not call.error
    assert "None" in call.output and "OPENAI_API_KEY" not in call.output


def test_card_build_cache_and_run_folder_are_invisible(tmp_path):
    home_cache = Path.home() / ".cache" / "scigame"
    places = [GRAVITATION, str(REPO), str(REPO / "cards"), str(tmp_path / "run"), str(tmp_path / "run" / "cards"),
              str(home_cache), str(Path.home())]
    code = ("import os\nfound = [p for p in %r if os.path.exists(p)]\nprint('visible:', found)\n"
            "open(%r).read()\n" % (places, GRAVITATION))
    seen, call, _ = _attack(tmp_path, code)
    assert "visible: []" in call.output and "FileNotFoundError" in call.error and "error:" in seen
    assert "6.674e-11" not in call.output


def test_nothing_but_scratch_is_writable(tmp_path):
    targets = ["/tmp/escape", "/usr/escape", "/escape", "/opt/python/escape", str(tmp_path / "escape"),
               "/scratch/observations.csv"]
    code = ("import os\nopen('/scratch/mine.txt', 'w').write('ok')\nbad = []\nfor t in %r:\n"
            "    try:\n        open(t, 'w').write('x')\n        bad.append(t)\n    except OSError as e:\n"
            "        print(t, type(e).__name__)\nprint('wrote outside:', bad)\nopen('/tmp/escape', 'w')\n" % targets)
    seen, call, _ = _attack(tmp_path, code)
    assert "wrote outside: []" in call.output and "error:" in seen
    assert not (tmp_path / "escape").exists() and not Path("/tmp/escape").exists()


def test_fork_bomb_is_bounded(tmp_path):
    seen, call, _ = _attack(tmp_path, "import os\nwhile True:\n    os.fork()\n")
    assert call.error and "error:" in seen
    assert "BlockingIOError" in call.output or "stopped" in call.error
    assert call.wall_seconds < 30


def test_ten_gigabytes_are_refused(tmp_path):
    seen, call, _ = _attack(tmp_path, "import numpy as np\na = np.ones(10**10 // 8)\nprint(a.sum())\n")
    assert "MemoryError" in call.error and "error:" in seen


def test_an_infinite_loop_is_stopped(tmp_path):
    seen, call, episode = _attack(tmp_path, "while True:\n    pass\n")
    assert "CPU time limit of 3 s" in call.error and "error:" in seen
    assert call.cpu_seconds == 3.0 and call.wall_seconds < 30
    assert "0.0 CPU s, " in seen  # the episode's CPU for the tool is spent


def test_a_sleeping_call_is_killed_at_the_wall_clock(tmp_path):
    seen, call, _ = _attack(tmp_path, "import subprocess, time\nsubprocess.Popen(['/bin/sleep', '300'])\n"
                                      "time.sleep(300)\n", "--tool-wall", "2")
    assert "wall-clock limit of 2 s" in call.error and call.wall_seconds < 10


def test_a_hundred_megabytes_of_output_are_cut(tmp_path):
    seen, call, _ = _attack(tmp_path, "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 1_000_000)\n")
    assert len(call.output) < 20_000 and "output truncated" in call.output and "error:" in seen
    assert "100000000" not in call.output and "bytes were dropped" in call.error


def _scripted(tmp_path, name, replies, *extra):
    with FakeOpenAI(replies, api_key=SECRET) as server:
        result = _eval(server, tmp_path / name, "--env", "original", *extra)
        assert result.exit_code == 0, result.output
        requests = [r for r in server.requests if r.get("path") == "/v1/chat/completions"]
    (episode,) = _episodes(tmp_path / name)
    return episode, requests


def test_rule_breaking_tool_calls_get_corrections(tmp_path):
    """An unknown tool, malformed arguments and calls beyond --tool-calls are
    unusable replies: answered with the reason, counted as corrections."""
    episode, requests = _scripted(tmp_path, "a", [
        Reply(tool_calls=[{"name": "shell", "arguments": "{\"cmd\": \"ls\"}"}]),
        Reply(tool_calls=[{"name": "run_python", "arguments": "{\"source\": 1}"}]),
        Reply(content=json.dumps(SUBMIT))])
    malformed = [t.malformed for t in episode.turns if t.malformed]
    assert "there is no tool `shell`" in malformed[0]
    assert 'must be one JSON object {"code": Python source}' in malformed[1]
    tool_messages = [m["content"] for m in requests[1]["messages"] if m.get("role") == "tool"]
    assert tool_messages == ["error: there is no tool `shell`: the only tool is run_python"]
    assert requests[1]["messages"][-1]["role"] == "user"  # the correction, as for any unusable reply
    assert episode.spent.corrections == 2 and episode.outcome.strict_success
    assert not [t for t in episode.turns if t.tool is not None]  # nothing ran

    episode, requests = _scripted(tmp_path, "b", [_tool_call("print(6 * 7)"), _tool_call("print(1)"),
                                                  Reply(content=json.dumps(SUBMIT))], "--tool-calls", "1")
    assert [t.tool.output.strip() for t in episode.turns if t.tool is not None] == ["42"]
    (refused,) = [t.malformed for t in episode.turns if t.malformed]
    assert "run_python may be called 1 times in an episode and 1 calls were made" in refused
    assert episode.spent.corrections == 1 and episode.outcome.strict_success
    # the third request carries the first call's result and the refusal, in order
    said = [(m["role"], m.get("content")) for m in requests[2]["messages"][2:]]
    assert [r for r, _ in said] == ["assistant", "tool", "assistant", "tool", "user"]
    assert said[1][1].startswith("42\n[the code ran to its end") and said[3][1].startswith("error: run_python may")


def test_tools_python_refuses_without_bubblewrap(tmp_path):
    """No bwrap, or a bwrap that cannot build namespaces: one line naming
    what to install or allow, exit 2, nothing run."""
    empty = tmp_path / "bin"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    (broken / "bwrap").chmod(0o755)
    scigame = [sys.executable, "-m", "scigame"]
    for path, expected in ((empty, "apt-get install bubblewrap"), (broken, "cannot build its sandbox here")):
        done = subprocess.run(scigame + ["eval", GRAVITATION, "--player", "openai:fake-model", "--base-url",
                                         "http://127.0.0.1:9/v1", "--tools", "python", "--out",
                                         str(tmp_path / "run"), "--quiet"],
                              env={**os.environ, "PATH": f"{path}:/usr/bin:/bin" if path == broken else str(path),
                                   "OPENAI_API_KEY": "x"}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "episodes.sqlite").exists()


def test_baseline_has_no_tools(tmp_path):
    result = CliRunner().invoke(main, ["eval", GRAVITATION, "--tools", "python", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 2 and "needs a player that calls tools" in result.output


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_stored_tool_turn_round_trips(tmp_path):
    with FakeOpenAI([_tool_call("print('hi')"), Reply(content=json.dumps(SUBMIT))], api_key=SECRET) as server:
        assert _eval(server, tmp_path / "run", "--env", "original").exit_code == 0
    with Store(tmp_path / "run") as store:
        (record,) = [r[0] for r in store.db.execute("SELECT record FROM episodes")]
    again = load_episode(record)
    assert [t.tool.output.strip() for t in again.turns if t.tool] == ["hi"]
