"""The one base class of errors a user can act on: the command line prints
the message as one line and exits 2 (see `scigame.cli`)."""


class UserFacingError(Exception):
    """An error whose message names the file or folder and says what to do."""
