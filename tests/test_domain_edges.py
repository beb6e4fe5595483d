"""Every theorem at the ends of each of its parameters' domains, between each end and the default, and with other
activations, at quick fidelity, as a user would run it: a verdict, or a one-line refusal with the reason (exit 2),
never an internal error, a true statement failing, or a run without end. Slow: run on request with -m slow (about
70 minutes on two cores for the ends and the points between, and 25 more for the 225 activation points).

The points between each default and each end find what no end shows (a true statement failing at an interior
point). A failure found here and mended has its own test beside its module; one not yet mended is a strict
expected failure below."""

import math
import subprocess
import sys
from fractions import Fraction

import pytest

from checkers import registry
from theorems.errors import InvalidInput

# the longest a quick check at a domain edge may take here: elasticity-reference at n = d = N = 4000 took 321 s
EDGE_SECONDS = 900
EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_INCONCLUSIVE = 0, 1, 2, 3
# Edges a quick check cannot finish within EDGE_SECONDS on two cores: not run, and named here. None: a check whose
# draws would take that long is refused before it starts, with the sizes (large-step-beats-linear's `MAX_DRAW_WORK`,
# for one).
TOO_SLOW: dict[tuple[str, str, str], str] = {}
# Edges where a true statement still fails, found by this sweep and not yet mended. Strict: the day one passes, its
# mark must go.
KNOWN_FAILURES = {
    ("spike-outlier", "psi2", "0.05"):
        "c = d/N = 20: the overlap of u_1(W_1) with zeta reads 0.836, 0.835, 0.836 at d = 200, 400, 800 (N = 10..40, "
        "48 draws) against the derived 0.786, flat in d: a term the spiked-matrix derivation leaves out at large c, "
        "not a finite-size effect (the network's own output turns the residual's projection by 1 - cos^2 = 0.09 "
        "at N = 10, but the overlap with the turned direction is lower still)",
    ("mixture-equivalence", "activation", "1"):
        "an internal error (exit 4): a constant sigma gives every draw the same gap, 0, and the extrapolation refuses "
        "draws without spread; the statement lacks `theorems.activation_assumptions.not_constant`, which lands with "
        "its six calibration rows rerun (about 80 minutes of two cores)",
}


def _between(default: float, end: float) -> float:
    """A point between a default and an end of its domain: the geometric mean where both are positive (domains
    spanning decades), else the midpoint; four significant digits."""
    point = math.sqrt(default * end) if default > 0 and end > 0 else (default + end) / 2
    return float(f"{point:.4g}")


def _points(where: str):
    """(theorem, parameter, value) at each end of each real or integer parameter's domain (`where` = "ends"), or
    between the default and each end ("between")."""
    for checker in registry.builtin_checkers():
        for parameter in checker.theorem.parameters:
            if parameter.kind not in ("real", "integer"):
                continue
            for bound in (parameter.lower, parameter.upper):
                if bound is None:
                    continue
                if where == "ends":
                    point = float(bound)
                else:
                    default = float(Fraction(str(parameter.default)))
                    point = _between(default, float(bound))
                    point = round(point) if parameter.kind == "integer" else point
                    if point in (default, float(bound)):
                        continue
                value = str(int(point)) if parameter.kind == "integer" else repr(float(point))
                yield checker.id, parameter.name, value


#: other activations for the student (`activation`) and the teacher parameters: smooth and kinked, centred and not,
#: odd and even, and He_3 (c_1 = 0); sin is not in the formula language, so it checks the one-line refusal; a
#: constant, on which a step moves nothing, and exp(z^2), whose square is not integrable
STUDENTS = ("relu", "gelu", "sigmoid", "softplus", "erf", "tanh", "silu", "z**3 - 3*z", "sin(z)", "1", "exp(z**2)")
TEACHERS = ("relu", "abs", "sigmoid", "gelu", "tanh", "erf", "1", "exp(z**2)")


def _activation_points():
    """(theorem, parameter, value) for each activation parameter and each of STUDENTS or TEACHERS but its default."""
    for checker in registry.builtin_checkers():
        for parameter in checker.theorem.parameters:
            if parameter.kind != "activation":
                continue
            for value in STUDENTS if parameter.name == "activation" else TEACHERS:
                if value != parameter.default:
                    yield checker.id, parameter.name, value


def _cases(where: str):
    points = _activation_points() if where == "activations" else _points(where)
    for theorem_id, name, value in points:
        point = (theorem_id, name, value)
        marks = ([pytest.mark.xfail(reason=KNOWN_FAILURES[point], strict=True)] if point in KNOWN_FAILURES
                 else [pytest.mark.skip(reason=TOO_SLOW[point])] if point in TOO_SLOW else [])
        yield pytest.param(theorem_id, name, value, id=f"{theorem_id}-{name}={value}", marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("theorem_id, parameter, value",
                         [*_cases("ends"), *_cases("between"), *_cases("activations")])
def test_every_domain_edge_gives_a_verdict_or_a_clear_refusal(theorem_id, parameter, value):
    command = [sys.executable, "-m", "checkers.cli", "check", theorem_id, "--param", f"{parameter}={value}",
               "--fidelity", "quick", "--workers", "1"]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=EDGE_SECONDS)
    expected_failure = bool(registry.checker(theorem_id).theorem.expected_failure)
    allowed = {EXIT_PASS, EXIT_BAD_INPUT, EXIT_INCONCLUSIVE} | ({EXIT_FAIL} if expected_failure else set())
    assert finished.returncode in allowed, (finished.returncode, finished.stdout[-2000:], finished.stderr[-2000:])
    if finished.returncode == EXIT_BAD_INPUT:
        lines = [line for line in finished.stderr.splitlines() if line.startswith("thmcheck: error:")]
        assert len(lines) == 1, finished.stderr[-2000:]


@pytest.mark.slow  # about 30 s: every point of the slow sweep
def test_every_prediction_inside_the_assumptions_at_every_swept_point_has_a_target_and_a_resolution_above_zero():
    """Without a draw: at the defaults and at every point the slow sweep runs, each prediction that applies inside
    the assumptions evaluates its target (finite or infinite ends, lower <= value <= upper, no NaN) and states a
    positive, finite resolution (one of 0 can never be met; the check now refuses it as a bug). This found six
    resolutions of 0, all relative to a constant that vanishes there: srf-constants' spike at eta = 0 and with He_3
    (r = 0), its overlap with the teacher |z| (gamma = 0), and cohesion-separability's and elasticity-polynomial's
    coefficients with He_3 (c_1^2 = 0, where the step has no spike to build on). Outside the assumptions a target
    may be undefined (spike-outlier with He_3 divides by mu1 = 0); the check skips it with the reason."""
    points = [(checker.id, None, None) for checker in registry.builtin_checkers()]
    points += [*_points("ends"), *_points("between"), *_activation_points()]
    defects = []
    for theorem_id, name, setting in points:
        theorem = registry.checker(theorem_id).theorem
        try:
            instance = theorem.instance({name: setting} if name else {})
            if instance.assumption_failures():
                continue
            applying = [p for p in theorem.predictions if p.applies(instance) is None]
            instance.constants  # derived on first use: an activation whose square is not integrable is refused
        except InvalidInput:  # refused as bad input (exit 2): the slow test checks the one-line refusal
            continue
        for prediction in applying:
            target = prediction.predict(instance)
            lower, value, upper = float(target.lower), float(target.value), float(target.upper)
            resolution = float(prediction.resolution(instance))
            if not lower <= value <= upper:  # NaN fails this too
                defects.append((theorem_id, name, setting, prediction.name, "target", lower, value, upper))
            if not (math.isfinite(resolution) and resolution > 0):
                defects.append((theorem_id, name, setting, prediction.name, "resolution", resolution))
    assert not defects


@pytest.mark.slow
def test_show_at_every_swept_point_is_the_statement_or_a_clear_refusal(capsys):
    """`show` at the defaults and at every point above (about 90 s in one process): the statement (exit 0), or a
    one-line refusal (exit 2), never an internal error. dual-kernel with exp(z^2), whose constants are undefined
    there, was one."""
    from checkers.cli import main

    points = [(checker.id, None, None) for checker in registry.builtin_checkers()]
    points += [*_points("ends"), *_points("between"), *_activation_points()]
    codes = {}
    for theorem_id, name, value in points:
        try:
            code = main(["show", theorem_id, *(["--param", f"{name}={value}"] if name else [])])
        except SystemExit as stop:
            code = stop.code
        codes[(theorem_id, name, value)] = code
        capsys.readouterr()
    assert {point: code for point, code in codes.items() if code not in (0, 2)} == {}
