"""eval's options are declared once, as EvalConfig's fields (scigame/run_config.py):
the click options, the runner's configuration and the run's config.json all
come from those rows, so an option added in one place and missed in another
fails here."""

from __future__ import annotations

import dataclasses
import json

import click
import pytest

from scigame.commands.evaluate import Printing, eval_cmd
from scigame.commands.mcp import PLAN_OPTIONS
from scigame.options import READERS, LLMOptions, eval_config, given_default
from scigame.run_config import EvalConfig, option_fields

#: EvalConfig's fields that the command line does not set by an option of their own.
NOT_OPTIONS = {"paths", "llm"}


def _params(command: click.Command) -> dict[str, click.Parameter]:
    return {p.name: p for p in command.params}


def test_every_option_of_eval_is_a_field_of_the_run_or_of_its_printing():
    names = set(_params(eval_cmd))
    config = {f.name for f in dataclasses.fields(EvalConfig)}
    llm = {f.name for f in dataclasses.fields(LLMOptions)}
    printing = set(Printing._fields) | {"quiet"}
    assert names == (config - {"llm"}) | llm | printing
    assert {f.name for f in option_fields()} == config - NOT_OPTIONS  # every field but these has its row


def test_each_option_is_made_from_its_row():
    params = _params(eval_cmd)
    for f in option_fields():
        row, param = f.metadata["option"], params[f.name]
        assert param.opts == [row.flag] and param.help == row.help, f.name
        assert param.default == given_default(f), f.name


def test_the_command_line_and_the_api_share_every_default():
    for f in option_fields():
        row = f.metadata["option"]
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if row.text is not None:  # typed as text: the default's text reads as the field's default
            assert READERS[f.name](row.text) == default, f.name
        elif f.name != "out":  # --out: none given names the folder after the player and the cards
            assert given_default(f) == default, f.name
    assert set(READERS) == {f.name for f in option_fields() if f.metadata["option"].text is not None}
    assert EvalConfig(paths=[]).workers is None  # the cores available, as `--workers` says
    from_cli = eval_config({}, (), LLMOptions(), ["cards"])
    assert from_cli == EvalConfig(paths=["cards"], llm=LLMOptions().settings())
    assert from_cli.out == "runs/baseline"


def _config(*args: str) -> EvalConfig:
    """The EvalConfig that `scigame eval ARGS` runs (click's parse, then eval_config)."""
    values = eval_cmd.make_context("eval", list(args)).params
    fields = {f.name for f in option_fields()}
    return eval_config({k: v for k, v in values.items() if k in fields}, values["paths"], LLMOptions(), ["cards"])


def test_typed_options_arrive_read():
    config = _config("a.sci", "--setting", "discovery", "--env", "all", "--reps", "2", "--noise", "0,1%,card",
                     "--budget", "8,2,8", "--workers", "3", "--distractors", "0,2", "--player", "openai:m/x")
    assert config.paths == ["a.sci"] and config.settings == ["discovery"]
    assert config.environments == ["original", "counterfactual"]
    assert (config.repetitions, config.workers, config.budgets) == (2, 3, [8, 2])
    assert config.noises == [0.0, 0.01, None] and config.distractors == [0, 2]
    assert config.out == "runs/openai_m_x-a"
    with pytest.raises(click.BadParameter, match="whole numbers"):
        _config("--budget", "x")
    with pytest.raises(click.UsageError, match="--ray-address needs --executor ray"):
        _config("--ray-address", "auto")
    with pytest.raises(TypeError, match="not options of eval: reps"):
        eval_config({"reps": 2}, (), LLMOptions(), [])


def test_the_saved_config_is_the_dataclass():
    config = _config("--protocol", "fixed", "--context", "anonymous")
    saved = json.loads(json.dumps(dataclasses.asdict(config)))  # as runner writes config.json
    assert set(saved) == {f.name for f in dataclasses.fields(EvalConfig)}
    assert EvalConfig(**saved) == config


def test_mcp_takes_the_plan_options_of_eval():
    assert set(PLAN_OPTIONS) <= {f.name for f in option_fields()} | {"paths"}
