"""Command-line values checked before any work: one definition of a finite
number, a number typed on the command line, and an output folder.

Every check fails with click's own usage error, naming the option, so the
command exits 2 with one line.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import click

#: A number as the card language writes one: ASCII digits, an optional
#: sign, point and exponent. No `1_0`, no full-width digits, no nan/inf.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z", re.ASCII)


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
