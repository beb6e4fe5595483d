"""Errors raised by thmcheck: every one carries a message fit to show a user as it is."""


class ThmcheckError(Exception):
    """Base class; the CLI turns it into one line on stderr and exit code 2."""


class InvalidInput(ThmcheckError, ValueError):
    """A user-supplied value (formula, parameter, option) is malformed or outside its domain."""


class UnknownName(InvalidInput, KeyError):
    """An activation, theorem, parameter or constant name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class WorkRefused(InvalidInput):
    """A request whose estimated work or memory is beyond its cap, refused before it starts: the message gives the
    sizes, the estimate and how to lift the cap."""


class EnvironmentFault(ThmcheckError):
    """A file, folder, disk, network address or plugin the user named cannot be used as asked: the message names
    it and what to do. Not a bug of thmcheck: exit 2, like bad input."""


class NumericalError(ThmcheckError, ArithmeticError):
    """A numeric route could not reach the requested accuracy; the message says which and why."""


class DeclarationError(Exception):
    """A theorem or checker names a prediction, constant, definition or parameter that does not exist.

    This is a bug in the declaration, not a user's mistake: it is not a `ThmcheckError`, so the CLI
    reports it as an internal error (exit 4), never as bad input or an inconclusive verdict.
    """


class CheckError(Exception):
    """An exception raised inside a theorem or a checker while one prediction was checked (a bug).

    The message names the theorem and the prediction; the original exception is the `__cause__`.
    """

    def __init__(self, theorem: str, prediction: str, error: BaseException):
        self.theorem, self.prediction, self.error = theorem, prediction, error
        super().__init__(f"{theorem}, prediction {prediction}: {type(error).__name__}: {error}")
