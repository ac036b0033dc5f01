"""`python -m scigame` and the `scigame` script: lint's plain form runs
without loading click (see commands/linting.py); every other command line
goes to the click group in cli.py."""

import sys


def run() -> None:
    """The command line's entry point."""
    from .commands.linting import fast_lint
    code = fast_lint(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from .cli import main
    main()


if __name__ == "__main__":
    run()
