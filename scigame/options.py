"""Command-line values checked before any work: one definition of a finite
number, a number typed on the command line, lists of names, an output
folder, and the option groups several commands share (`llm_options`).

Every check fails with click's own usage error, naming the option, so the
command exits 2 with one line.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
from pathlib import Path
from typing import Optional

import click

from .compiler.limits import MAX_NOISE_REL
from .grammar import terminal_pattern

#: A number as the card language writes one (the grammar's NUMBER), with an
#: optional sign. No `1_0`, no full-width digits, no nan/inf.
_NUMBER = re.compile(rf"[+-]?(?:{terminal_pattern('NUMBER')})\Z", re.ASCII)


def parse_number(text: str) -> float:
    """A finite float from ASCII number text; ValueError says why not."""
    text = text.strip()
    if not _NUMBER.match(text):
        raise ValueError(f"{text!r} is not a number (write digits 0-9, e.g. 1.5 or 2e-3)")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is too large to be a number")
    return value


class FiniteFloat(click.FloatRange):
    """click.FloatRange that also refuses nan, inf and non-ASCII numbers
    (FloatRange lets nan through: every comparison with nan is false)."""

    name = "number"

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
            if not math.isfinite(number):
                self.fail(f"{value!r} is not a finite number", param, ctx)
        else:
            try:
                number = parse_number(str(value))
            except ValueError as exc:
                self.fail(str(exc), param, ctx)
        return super().convert(number, param, ctx)


#: Seconds (timeouts): positive and finite.
SECONDS = FiniteFloat(min=0.0, min_open=True)
#: Dollars: zero or more, finite.
DOLLARS = FiniteFloat(min=0.0)
#: A sampling temperature.
TEMPERATURE = FiniteFloat(min=0.0, max=10.0)
#: The largest Fixed-protocol budget (points per episode) a run may ask for.
MAX_BUDGET = 100_000


def parse_budgets(text: str) -> list[int]:
    """`1,2,4,8` to distinct whole numbers in 1..MAX_BUDGET, or a usage error."""
    items = [v.strip() for v in text.split(",") if v.strip()]
    if not items or not all(re.fullmatch(r"\d+", v, re.ASCII) for v in items):
        raise click.BadParameter(f"{text!r}: a comma-separated list of whole numbers, e.g. 1,2,4,8",
                                 param_hint="--budget")
    values = [int(v) for v in items]
    if any(not 1 <= v <= MAX_BUDGET for v in values):
        raise click.BadParameter(f"budgets must be whole numbers from 1 to {MAX_BUDGET}", param_hint="--budget")
    return list(dict.fromkeys(values))


def check_output_folder(path: str, option: str) -> Path:
    """A folder the command may write into: created if missing; a usage
    error naming the option if it is a file, a device or cannot be made."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise click.BadParameter(f"{path} exists and is not a folder", param_hint=option)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"cannot create the folder {path}: {exc.strerror or exc}",
                                 param_hint=option) from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise click.BadParameter(f"the folder {path} is not writable", param_hint=option)
    return p


def csv_choice(values: str, allowed: tuple[str, ...], what: str) -> list[str]:
    """`a,b` (or `all`) to distinct names out of `allowed`, or a usage error naming --WHAT."""
    items = [v.strip() for v in values.split(",") if v.strip()]
    if "all" in items:
        return list(allowed)
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise click.BadParameter(f"{', '.join(bad) or values!r}: choose from {', '.join(allowed)} (or all)",
                                 param_hint=f"--{what}")
    return list(dict.fromkeys(items))


def parse_noises(text: str) -> list:
    """--noise: comma-separated relative noise levels (`card`: each card's own, as None)."""
    out = []
    for item in (v.strip() for v in text.split(",") if v.strip()):
        if item == "card":
            out.append(None)
            continue
        try:
            value = float(item.rstrip("%")) / (100.0 if item.endswith("%") else 1.0)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and 0 <= value <= MAX_NOISE_REL):
            raise click.BadParameter(f"{item!r}: a relative noise level is a number from 0 to {MAX_NOISE_REL:g} "
                                     "(e.g. 0.01 or 1%), or `card`", param_hint="--noise")
        out.append(value)
    if not out:
        raise click.BadParameter("give at least one noise level", param_hint="--noise")
    return list(dict.fromkeys(out))


def parse_distractor_counts(text: str, most: int) -> list[int]:
    """--distractors: comma-separated whole numbers from 0 to `most`."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = [-1]
    if not values or any(not 0 <= v <= most for v in values):
        raise click.BadParameter(f"{text!r}: comma-separated whole numbers from 0 to {most}",
                                 param_hint="--distractors")
    return list(dict.fromkeys(values))


# ---- option groups: several options of a command arrive as one object ------------------

def packed(cls, name: str, options: list = ()):
    """A decorator adding `options` (click options, shown in this order) to a
    command and handing the command the values of `cls`'s fields as one
    `cls` object, argument `name` (the other values pass through)."""
    fields = [f.name for f in dataclasses.fields(cls)]

    def decorate(f):
        @functools.wraps(f)
        def command(*args, **kwargs):
            kwargs[name] = cls(**{k: kwargs.pop(k) for k in fields if k in kwargs})
            return f(*args, **kwargs)
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


@dataclasses.dataclass(frozen=True)
class LLMOptions:
    """How the LLM commands (eval, judge, curate, review) reach and call a model."""

    base_url: Optional[str] = None
    api_key_env: str = "OPENAI_API_KEY"
    reasoning_effort: Optional[str] = None
    timeout: float = 120.0
    max_retries: int = 6
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None
    no_structured: bool = False
    models_file: Optional[str] = None

    def config(self, model: str):
        """The client configuration for MODEL (the settings but the registry's file)."""
        from .llm.client import LLMConfig
        return LLMConfig(model=model, **{k: v for k, v in self.settings().items() if k != "models"})

    def settings(self) -> dict:
        """The fields an openai:MODEL player is made with (EvalConfig.llm)."""
        return {"base_url": self.base_url, "api_key_env": self.api_key_env,
                "reasoning_effort": self.reasoning_effort, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "timeout": self.timeout, "max_retries": self.max_retries,
                "structured": not self.no_structured, "models": self.models_file}


def llm_options(endpoint_help: str, timeout: float, sampling: bool = True,
                retries_help: str = "Retries of an infrastructure fault (429, 5xx, timeouts) per call."):
    """The options of a command that calls an LLM, handed to it as `llm`
    (an LLMOptions). `sampling` adds temperature, the token cap, structured
    outputs and the model registry."""
    options = [
        click.option("--base-url", default=None, help=endpoint_help),
        click.option("--api-key-env", default=LLMOptions.api_key_env, show_default=True,
                     help="Environment variable that holds the API key."),
        click.option("--reasoning-effort", default=None, help="Passed to the endpoint (e.g. low, medium, high)."),
        *([click.option("--temperature", type=TEMPERATURE, default=None,
                        help="Sampling temperature, where supported."),
           click.option("--max-tokens", type=click.IntRange(1), default=None,
                        help="Completion token cap per call.")] if sampling else []),
        click.option("--timeout", type=SECONDS, default=timeout, show_default=True, help="Seconds per LLM call."),
        click.option("--max-retries", type=click.IntRange(0, 50), default=LLMOptions.max_retries, show_default=True,
                     help=retries_help),
        *([click.option("--no-structured", is_flag=True, help="Do not ask the endpoint for structured outputs."),
           click.option("--models", "models_file", type=click.Path(dir_okay=False, exists=True), default=None,
                        help="Model registry (prices, cutoffs) to use instead of the bundled one.")]
          if sampling else []),
    ]
    return packed(LLMOptions, "llm", options)


# ---- eval's options, made from EvalConfig's rows (scigame/run_config.py) -----------------

def _vocabulary(name: str):
    """One of the run's vocabularies (imported when an option is read, not at start-up)."""
    from . import controls, records
    return getattr(records, name, None) or getattr(controls, name)


#: The readers of eval's options typed as text (the rows with `text`), by field:
#: text to the field's value, or a usage error naming the option.
READERS = {
    "settings": lambda text: csv_choice(text, _vocabulary("SETTINGS"), "setting"),
    "environments": lambda text: csv_choice(text, _vocabulary("ENVIRONMENTS"), "env"),
    "protocols": lambda text: csv_choice(text, _vocabulary("PROTOCOLS"), "protocol"),
    "budgets": parse_budgets,
    "noises": parse_noises,
    "contexts": lambda text: csv_choice(text, _vocabulary("CONTEXTS"), "context"),
    "distractors": lambda text: parse_distractor_counts(text, _vocabulary("MAX_DISTRACTORS")),
}


def _click_type(row):
    """The click type of an option row's `kind`."""
    low, high = row.bounds
    return {"text": None, "int": int, "flag": None, "folder": click.Path(file_okay=False),
            "ints": click.IntRange(low, high) if row.kind == "ints" else None,
            "number": FiniteFloat(min=low, max=high) if row.kind == "number" else None,
            "choice": click.Choice(list(row.choices))}[row.kind]


def given_default(f: dataclasses.Field):
    """What an EvalConfig field's option holds when the command line does not give it."""
    row = f.metadata["option"]
    if row.text is not None:
        return row.text
    from .run_config import FIELD_DEFAULT
    if row.given is not FIELD_DEFAULT:
        return row.given
    return f.default


def config_options(first: str, last: str):
    """A decorator adding the click options of EvalConfig's fields `first` to
    `last` (in field order), each named after its field."""
    from .run_config import option_fields

    names = [f.name for f in option_fields()]
    chosen = option_fields()[names.index(first):names.index(last) + 1]

    def decorate(command):
        for f in reversed(chosen):
            row = f.metadata["option"]
            if row.kind == "flag":
                command = click.option(row.flag, f.name, is_flag=True, default=given_default(f), help=row.help)(command)
                continue
            command = click.option(row.flag, f.name, type=_click_type(row), default=given_default(f),
                                   show_default=row.show_default, metavar=row.metavar, help=row.help)(command)
        return command
    return decorate


def eval_config(values: dict, paths: tuple[str, ...], llm: LLMOptions, bundled: list[str]):
    """The run's EvalConfig from eval's option values by field name (one not
    given takes the command line's default), over `paths` (none: the
    `bundled` cards); every value checked, a usage error names the option."""
    from .run_config import EvalConfig, option_fields

    fields = option_fields()
    unknown = set(values) - {f.name for f in fields}
    if unknown:
        raise TypeError(f"not options of eval: {', '.join(sorted(unknown))}")
    config = {}
    for f in fields:
        value = values.get(f.name, given_default(f))
        config[f.name] = READERS[f.name](value) if f.metadata["option"].text is not None else value
    if config["ray_address"] and config["executor"] != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    if config["out"] is None:
        config["out"] = default_run_folder(config["player"].replace(":", "_").replace("/", "_"), paths)
    return EvalConfig(paths=list(paths or bundled), llm=llm.settings(), **config)


def resolve_config(config):
    """The run's card files and Temporal window, found and read once
    (runner.resolve_run) and handed to the run: a usage error names the
    paths or --window that do not resolve."""
    from .discovery import CardPathError
    from .runner import resolve_run
    try:
        return resolve_run(config)
    except CardPathError as exc:
        raise click.UsageError(str(exc))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--window")


def default_run_folder(player_slug: str, paths: tuple[str, ...]) -> str:
    """`runs/PLAYER` for the bundled cards; otherwise `runs/PLAYER-CARDSET`, named
    after the card set given, so that a run of other cards never lands in (and
    is summarised with) the bundled cards' folder: one file or folder gives its
    name (`runs/baseline-mycard`), several the first name in order, their count and a short
    hash of all of them (`runs/baseline-gravitation-and-2-more-1a2b3c4d`)."""
    if not paths:
        return str(Path("runs") / player_slug)
    names = [re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(p).stem or Path(p).resolve().name) for p in paths]
    if len(paths) == 1:
        return str(Path("runs") / f"{player_slug}-{names[0]}")
    import hashlib
    digest = hashlib.sha256("\0".join(sorted(str(Path(p).resolve()) for p in paths)).encode()).hexdigest()[:8]
    return str(Path("runs") / f"{player_slug}-{min(names)}-and-{len(paths) - 1}-more-{digest}")
