"""The `scigame` command line: the one group of every command (their
definitions are in scigame/commands/). The command line is the only place
that prints or picks exit codes."""

from __future__ import annotations

import sys

import click

from .commands import cards, curate, evaluate, mcp, play, report, source
from .commands.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE  # noqa: F401 - the exit codes, for scripts
from .commands.guard import fail


class _Group(click.Group):
    """Turns an unexpected exception into a one-line internal error (exit 2)
    instead of a traceback; `SCIGAME_DEBUG=1` shows the traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - the last line of defence
            fail(exc)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "--version", "-V", prog_name="scigame", package_name="scigame")
def main() -> None:
    """scigame: science cards compiled into paired discovery games for LLM agents.

    Write a card in the .sci language and check it with `scigame lint`;
    `compile` it into simulators, `simulate` an experiment, `score` a
    predictor, and `eval` a player over the whole episode matrix.
    """


for _module in (cards, source, play, evaluate, report, curate, mcp):
    for _command in _module.COMMANDS:
        main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
