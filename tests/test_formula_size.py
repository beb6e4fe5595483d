"""Nested powers multiply past the parser's bound on each (theorems/formula_size.py): refused as the user's input, in
one line and at once, where a parameter or `thmcheck hermite` reads the formula."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from theorems.errors import InvalidInput
from theorems.formula import MAX_POWER, parse_formula
from theorems.formula_size import bounded_activation, size_failure


@pytest.mark.parametrize("formula, said", [
    ("((z**64)**64)**64", "a polynomial of degree 262144"),
    ("(z**64 + 1)**64", "a polynomial of degree 4096"),
    ("(tanh(z)**64)**64", "the power 4096 of tanh(z)"),
    ("((((2**64)**64)**64)**64)*z", "a number too large to hold"),
    ("(2**64)**64*z", "a number of more than 4096 bits"),
])
def test_a_formula_that_builds_too_much_is_the_users_input(formula, said):
    with pytest.raises(InvalidInput, match=re.escape(said)):
        bounded_activation(formula)


@pytest.mark.parametrize("formula", ["z**64", "(z**8)**8", "tanh(z)**64", "(z**2 - 1)**32", "2**64*z", "1e-300*z",
                                     "relu", "log(1 + exp(z)) + tanh(z)"])
def test_what_the_parser_allows_one_power_at_a_time_is_allowed_composed_to_the_same_bound(formula):
    assert bounded_activation(formula).name == formula
    assert size_failure(parse_formula("z")) is None and MAX_POWER == 64


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from Linux's /proc")
@pytest.mark.parametrize("arguments", [
    ["hermite", "((z**64)**64)**64"],
    ["hermite", "((((2**64)**64)**64)**64)*z"],
    ["check", "dual-kernel", "--param", "activation=((z**64)**64)**64", "--fidelity", "quick"],
    ["show", "spike-strength", "--param", "teacher=(z**64)**64"],
])
def test_the_command_refuses_it_in_one_line_before_any_work(arguments):
    """Once these ran past 4 GB (hermite), ended in an internal error (a number sympy cannot print) or hung (a check
    at z**4096); each is now exit 2 with one line, well under 1 GB."""
    # the command, then its own peak (`peak_bytes`)
    child = ("import sys\nfrom checkers.cli import main\nfrom checkers.cost import peak_bytes\n"
             "code = main(sys.argv[1:])\nprint(code, peak_bytes())")
    result = subprocess.run([sys.executable, "-c", child, *arguments], capture_output=True, text=True, timeout=60)
    code, peak = result.stdout.split()
    assert int(code) == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "nested powers multiply" in result.stderr
    assert float(peak) < 2**30  # under 1 GiB
