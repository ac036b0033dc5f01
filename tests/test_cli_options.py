"""The command line's shared option groups: one definition of the LLM
options for eval, judge, curate and review, and eval's options as one
object."""

from __future__ import annotations

import click
from click.testing import CliRunner

from scigame.cli import main
import dataclasses

from scigame.options import LLMOptions, llm_options, packed

LLM = ["--base-url", "--api-key-env", "--reasoning-effort", "--temperature", "--max-tokens", "--timeout",
       "--max-retries", "--no-structured", "--models"]
#: `scigame eval --help`'s options in the order it has always listed them.
EVAL = ["--player", "--setting", "--env", "--protocol", "--budget", "--reps", "--max-steps", "--concurrency",
        "--workers", "--executor", "--ray-address", "--seed", "--out", "--force", "--rerun-failed", "--quiet",
        *LLM, "--max-cost", "--window", "--noise", "--context", "--distractors", "--tools", "--tool-calls",
        "--tool-cpu", "--tool-wall", "--by", "--format", "--help"]


def _options(command: str) -> list[str]:
    return [p.opts[0] if p.opts[0].startswith("--") else p.opts[-1] for p in main.commands[command].params
            if isinstance(p, click.Option)] + ["--help"]


def _option(command: str, name: str) -> click.Option:
    return next(p for p in main.commands[command].params if name in p.opts)


def test_eval_lists_its_options_as_before():
    assert _options("eval") == EVAL


def test_the_llm_commands_share_one_definition():
    for command in ("eval", "judge"):
        assert [o for o in _options(command) if o in LLM] == LLM, command
    for command in ("curate", "review"):
        assert [o for o in _options(command) if o in LLM] == ["--base-url", "--api-key-env", "--reasoning-effort",
                                                              "--timeout", "--max-retries"], command
        assert _option(command, "--timeout").default == 300.0
    assert _option("eval", "--timeout").default == _option("judge", "--timeout").default == 120.0
    for name in ("--api-key-env", "--reasoning-effort", "--max-retries"):
        assert _option("eval", name).help == _option("judge", name).help, name


def test_packed_options_arrive_as_one_object():
    seen = {}

    @dataclasses.dataclass(frozen=True)
    class Run:
        paths: tuple
        reps: int = 3

    @click.command()
    @packed(Run, "run")
    @click.argument("paths", nargs=-1)
    @click.option("--reps", type=int, default=3)
    @llm_options("endpoint", timeout=9.0)
    @click.option("--other", default="x")
    def cmd(run, llm, other):
        seen.update(run=run, llm=llm, other=other)

    result = CliRunner().invoke(cmd, ["a.sci", "--reps", "5", "--timeout", "2", "--no-structured", "--other", "y"])
    assert result.exit_code == 0, result.output
    assert seen["run"] == Run(paths=("a.sci",), reps=5)
    assert seen["llm"] == LLMOptions(timeout=2.0, no_structured=True)
    assert seen["other"] == "y"
    config = seen["llm"].config("m")
    assert (config.model, config.timeout, config.structured) == ("m", 2.0, False)


def test_eval_option_values_are_checked_before_any_work(tmp_path):
    runner = CliRunner()
    for args, option in ((["--noise", "lots"], "--noise"), (["--setting", "both"], "--setting"),
                         (["--distractors", "2,x"], "--distractors"), (["--budget", "0"], "--budget"),
                         (["--context", "none"], "--context")):
        result = runner.invoke(main, ["eval", "--out", str(tmp_path / "run"), *args])
        assert result.exit_code == 2, (args, result.output)
        assert option in result.output, (args, result.output)
    assert not (tmp_path / "run").exists()
    result = runner.invoke(main, ["eval", "--ray-address", "auto"])
    assert result.exit_code == 2 and "--ray-address needs --executor ray" in result.output
