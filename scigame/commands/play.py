"""Commands on one card: simulate an experiment, score a predictor."""

from __future__ import annotations

import json
import sys

import click

from ..options import SECONDS, parse_number
from .common import ENV, EXIT_FINDINGS, load


def _parse_assignments(pairs) -> dict[str, float]:
    values: dict[str, float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.UsageError(f"expected NAME=VALUE, got {pair!r}")
        if name in values:
            raise click.UsageError(f"{name} is given twice")
        try:
            values[name] = parse_number(text)
        except ValueError as exc:
            raise click.UsageError(f"{name}: {exc}") from None
    return values


@click.command()
@click.argument("card_path", metavar="CARD")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option("--env", "env", type=ENV, default="original", show_default=True,
              help="Which world to observe: original or counterfactual.")
@click.option("--exact", is_flag=True, help="The law's exact values: no noise, no quantisation.")
@click.option("--seed", type=click.IntRange(0), default=None,
              help="Seed of the measurement noise (outputs with `noise`): the same seed, the same values.")


def simulate(card_path, assignments, env, exact, seed):
    """Print the observation for one experiment as JSON.

    CARD is a .sci file or a compiled card folder. Exit status 1 (with
    every reason) if the oracle rejects the inputs.
    """
    from ..oracle import Rejection

    card = load(card_path)
    values = _parse_assignments(assignments)
    try:
        observed = card.simulate(env, values, exact=exact, seed=seed)
    except Rejection as exc:
        click.echo("scigame: rejected: " + "; ".join(exc.reasons), err=True)
        sys.exit(EXIT_FINDINGS)
    out = {"environment": env, "exact": exact, "inputs": values,
           "outputs": {k: float(v[0]) for k, v in observed.items()},
           "units": {o.name: o.unit for o in card.data.outputs}}
    click.echo(json.dumps(out, indent=2))


@click.command()
@click.argument("card_path", metavar="CARD")
@click.argument("predictor_file", metavar="PREDICTOR.json", type=click.Path(dir_okay=False))
@click.option("--env", "env", type=ENV, required=True, help="Which world's law to score against.")
@click.option("--timeout", default=None, type=SECONDS,
              help="Seconds of wall time sympy may take to decide strict equivalence (then strict is "
                   "null); its work is always bounded by a fixed count of steps.")


def score(card_path, predictor_file, env, timeout):
    """Validate and score a predictor on the card's hidden evaluation set.

    Prints JSON with valid, reason, ps, weak, strict and per-output errors.
    Exit status 0 when the predictor was scored (valid or not), 1 when the
    card cannot be loaded (lint errors), 2 on usage errors.
    """
    from pathlib import Path

    card = load(card_path)
    try:
        text = Path(predictor_file).read_bytes()
    except OSError as exc:
        raise click.UsageError(f"cannot read {predictor_file}: {exc.strerror}") from None
    result = card.score(text, env, strict_timeout=timeout)
    click.echo(result.model_dump_json(indent=2))


#: The commands of this module, for scigame.cli.
COMMANDS = [simulate, score]
