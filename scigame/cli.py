"""The `scigame` command line: the one group of every command (their
definitions are in scigame/commands/). The command line is the only place
that prints or picks exit codes."""

from __future__ import annotations

import sys

import click

from .commands import cards, curate, evaluate, play, report, source
from .commands.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE  # noqa: F401 - the exit codes, for scripts
from .commands.common import say
from .errors import UserFacingError


class _Group(click.Group):
    """Turns an unexpected exception into a one-line internal error (exit 2)
    instead of a traceback; `SCIGAME_DEBUG=1` shows the traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # `scigame lint ... | head`: the reader left; leave quietly
            import os
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT_FINDINGS)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except UserFacingError as exc:  # a damaged store, a run folder in use: already one line
            say(f"scigame: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except OSError as exc:  # the file system said no: name the file
            where = f"{exc.filename}: " if exc.filename else ""
            say(f"scigame: {where}{exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            import os
            if os.environ.get("SCIGAME_DEBUG"):
                raise
            if type(exc).__module__ == "sqlite3":  # damage Store's own check did not see: still one line
                say(f"scigame: a run store could not be read ({type(exc).__name__}: {exc}); it may be damaged",
                    err=True)
                sys.exit(EXIT_USAGE)
            say(f"scigame: internal error: {type(exc).__name__}: {exc}\n"
                       "  (set SCIGAME_DEBUG=1 to see the traceback, and please report it)", err=True)
            sys.exit(EXIT_USAGE)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "--version", "-V", prog_name="scigame", package_name="scigame")
def main() -> None:
    """scigame: science cards compiled into paired discovery games for LLM agents.

    Write a card in the .sci language and check it with `scigame lint`;
    `compile` it into simulators, `simulate` an experiment, `score` a
    predictor, and `eval` a player over the whole episode matrix.
    """


for _module in (cards, source, play, evaluate, report, curate):
    for _command in _module.COMMANDS:
        main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
