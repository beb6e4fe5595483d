"""The `thmcheck` command: list, papers, show, hermite, check, sweep, calibrate, calibration, tightness, oracle,
report, reproduce, contract, notebooks.

The parser is `checkers.cli.parser`; `list` is in `checkers.cli.listing`, `papers` in `checkers.cli.papers`, the
other inspection commands in `checkers.cli.inspection`, the running ones in `checkers.cli.running`, and the
equivalence family's oracle beside the family (`checkers.equivalence.oracle_command`).
Exit codes are `checkers.outcome`'s: 0 every verdict passes; 1 any fails; 2 bad input, a bad file or plugin (one
line on stderr, no traceback); 3 inconclusive or outside assumptions, none failing; 4 an error in a theorem, a
checker or thmcheck itself (a bug: one line naming the theorem and the prediction; `--debug` or THMCHECK_DEBUG=1
prints the traceback); 130 interrupted, 143 terminated.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import os
import sys
import traceback

from checkers import registry, stopping
from checkers.cli.parser import build_parser, formula_as_positional, usable_cores
from checkers.executors import InterruptSaid, Terminated, TerminationSaid
from checkers.outcome import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE
from theorems.errors import CheckError, DeclarationError, EnvironmentFault, ThmcheckError

__all__ = ["build_parser", "main"]


class _StderrThatCannotFail:
    """Standard error whose failed writes (a full disk, a closed stream) are dropped: what the command says there is
    commentary, and a failure to say it must not replace the exit code that is the command's verdict."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError):
            return self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    debug = bool(os.environ.get("THMCHECK_DEBUG"))
    stderr, sys.stderr = sys.stderr, (_StderrThatCannotFail(sys.stderr) if sys.stderr is not None else None)
    try:
        with stopping.handled():
            try:
                return _main(argv, debug)
            except KeyboardInterrupt as stop:
                if not isinstance(stop, InterruptSaid):  # else the command has said what it stopped and kept
                    print("thmcheck: interrupted", file=sys.stderr)
                return EXIT_INTERRUPTED
            except Terminated as stop:
                if not isinstance(stop, TerminationSaid):
                    print("thmcheck: terminated", file=sys.stderr)
                return EXIT_TERMINATED
    finally:
        sys.stderr = stderr


def _clamp_workers(arguments) -> None:
    """More local worker processes than usable cores only contend for them (and each holds its own memory): clamp
    to the cores, with a note. A remote dask scheduler's workers are its own to count."""
    workers, scheduler = getattr(arguments, "workers", None), getattr(arguments, "scheduler", None)
    cores = usable_cores()
    if workers is not None and workers > cores and scheduler in (None, "local"):
        print(f"thmcheck: --workers {workers} is more than the {cores} usable cores here; running {cores}",
              file=sys.stderr)
        arguments.workers = cores


def _main(argv: list[str] | None, debug: bool) -> int:
    try:
        given = list(sys.argv[1:] if argv is None else argv)
        arguments = build_parser().parse_args(formula_as_positional(given))
        arguments.argv = given  # for a command that says how to resume
        _clamp_workers(arguments)
        debug = debug or arguments.debug
        for module in arguments.plugins_before + arguments.plugin:
            registry.load_plugin(module)
        if sys.stdout is None:  # started with its standard output closed: whatever it printed would be lost
            raise EnvironmentFault("standard output is closed; give it a file or a pipe (thmcheck ... > out.txt)")
        code = _command(arguments.command)(arguments)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, where it can be reported
        return code
    except ThmcheckError as error:
        print(f"thmcheck: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader closed the pipe (`thmcheck list | head`): end quietly, as SIGPIPE would
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the final flush must not complain
        return 128 + 13
    except OSError as error:  # a file, folder, disk or stream of the user's: say which, and what went wrong
        where = f": {error.filename}" if error.filename else (" writing the output" if error.errno in _WRITE_ERRORS
                                                              else "")
        print(f"thmcheck: error: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_USAGE
    except (CheckError, DeclarationError) as error:  # a bug in a theorem or a checker, named
        _raise_the_stop_it_was(error)
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error in {error} (run with --debug for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as error:  # a bug: say so in one line unless debugging
        _raise_the_stop_it_was(error)
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL


def _raise_the_stop_it_was(error: Exception) -> None:
    """Where a stop arrived before `error`, a library turned the stop into it (`checkers.stopping`): raise the stop."""
    stop = stopping.arrived()
    if stop is not None:
        raise stop from error


_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EBADF}

# each command's module and function, imported only when the command is asked for
COMMANDS = {
    "list": ("checkers.cli.listing", "list_theorems"),
    "papers": ("checkers.cli.papers", "papers_command"),
    "show": ("checkers.cli.inspection", "show"),
    "hermite": ("checkers.cli.inspection", "hermite"),
    "tightness": ("checkers.cli.inspection", "tightness"),
    "check": ("checkers.cli.running", "check"),
    "sweep": ("checkers.cli.running", "sweep_command"),
    "calibrate": ("checkers.cli.running", "calibrate_command"),
    "calibration": ("checkers.cli.inspection", "calibration_command"),
    "report": ("checkers.cli.running", "report"),
    "review": ("checkers.cli.papers", "review_command"),
    "reproduce": ("checkers.reproduce", "reproduce_command"),
    "oracle": ("checkers.equivalence.oracle_command", "oracle"),
    "contract": ("checkers.cli.contract", "contract_command"),
    "notebooks": ("checkers.notebook_pages", "notebooks_command"),
}


def _command(name: str):
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(module), function)
