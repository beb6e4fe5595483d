"""The `thmcheck` command: list, show, hermite, check, sweep, calibrate, tightness, oracle, report.

The parser is `checkers.cli.parser`; the inspection commands are in `checkers.cli.inspect`, the running ones in
`checkers.cli.run`, and the equivalence family's oracle beside the family (`checkers.equivalence.oracle_command`).
Exit codes are `checkers.outcome`'s: 0 every verdict passes; 1 any fails; 2 bad input, a bad file or plugin (one
line on stderr, no traceback); 3 inconclusive or outside assumptions, none failing; 4 an error in a theorem, a
checker or thmcheck itself (a bug: one line naming the theorem and the prediction; `--debug` or THMCHECK_DEBUG=1
prints the traceback); 130 interrupted, 143 terminated.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import signal
import sys
import threading
import traceback

from checkers import registry
from checkers.cli.parser import build_parser
from checkers.outcome import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE
from theorems.errors import CheckError, DeclarationError, ThmcheckError

__all__ = ["build_parser", "main"]


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C (a BaseException, so no handler of errors takes it), so that what
    finished is kept and worker processes are stopped."""


def _terminate(signum, frame):
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    debug = bool(os.environ.get("THMCHECK_DEBUG"))
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if on_main_thread else None
    try:
        return _main(argv, debug)
    except Terminated:
        print("thmcheck: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None, debug: bool) -> int:
    try:
        arguments = build_parser().parse_args(argv)
        debug = debug or arguments.debug
        for module in arguments.plugins_before + arguments.plugin:
            registry.load_plugin(module)
        return _command(arguments.command)(arguments)
    except ThmcheckError as error:
        print(f"thmcheck: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("thmcheck: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader closed the pipe (`thmcheck list | head`): end quietly, as SIGPIPE would
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the final flush must not complain
        return 128 + 13
    except (CheckError, DeclarationError) as error:  # a bug in a theorem or a checker, named
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error in {error} (run with --debug for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as error:  # a bug: say so in one line unless debugging
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL


# each command's module and function, imported only when the command is asked for
COMMANDS = {
    "list": ("checkers.cli.inspection", "list_theorems"),
    "show": ("checkers.cli.inspection", "show"),
    "hermite": ("checkers.cli.inspection", "hermite"),
    "tightness": ("checkers.cli.inspection", "tightness"),
    "check": ("checkers.cli.running", "check"),
    "sweep": ("checkers.cli.running", "sweep_command"),
    "calibrate": ("checkers.cli.running", "calibrate_command"),
    "report": ("checkers.cli.running", "report"),
    "oracle": ("checkers.equivalence.oracle_command", "oracle"),
}


def _command(name: str):
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(module), function)
