"""Errors raised by thmcheck: every one carries a message fit to show a user as it is."""


class ThmcheckError(Exception):
    """Base class; the CLI turns it into one line on stderr and exit code 2."""


class InvalidInput(ThmcheckError, ValueError):
    """A user-supplied value (formula, parameter, option) is malformed or outside its domain."""


class UnknownName(InvalidInput, KeyError):
    """An activation, theorem, parameter or constant name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class NumericalError(ThmcheckError, ArithmeticError):
    """A numeric route could not reach the requested accuracy; the message says which and why."""
