"""The one error a user can cause."""


class InputError(ValueError):
    """Bad user input (rule file, state, option): the CLI prints it on one line, exit code 2."""
