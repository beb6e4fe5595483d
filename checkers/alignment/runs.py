"""Runs of the early-alignment family: the deterministic data of an instance, the polar-form flow from it (cached
by content: the data key, epsilon, loss, grid and tolerance), and the event times read off a run.

The data and W0 are deterministic functions of the parameters (`theorems.alignment.common`): the paper states its
results for a deterministic start, so every observation of the family is an `Exact` value (except the seeded
Hypothesis searches over pointwise lemmas). Tolerances are stated where they are set: the solver tolerance for
quantities conserved along a run, the time grid's spacing for event times, round-off for pointwise identities.
"""

from __future__ import annotations

import numpy as np

from checkers.alignment.gradient_flow import balanced_start, polar_flow
from checkers.shared_draws import cached
from theorems.alignment.common import class_directions, layout, region_codes
from theorems.errors import NumericalError
from theorems.statement import Instance

RTOL = 1e-10


def solve(function, *arguments, **options):
    try:
        return function(*arguments, **options)
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None


def data_key(instance: Instance) -> tuple:
    kind = instance["data"] if "data" in instance.parameters else "reference"
    return (kind, *(int(instance[name]) for name in ("per_class", "dimension", "width", "configuration")))


def data(key: tuple):
    """(x, y, W0, s) for a data key (kind, per_class, dimension, width, configuration)."""
    return layout(*key)


def absolute_tolerance(rtol: float) -> float:
    """The solver's absolute tolerance on the unit directions for relative tolerance `rtol`: below it a
    coordinate's sign is not resolved."""
    return rtol * 1e-2


def _flow(key: tuple, log_epsilon: float, loss: str, times: tuple, rtol: float):
    x, y, directions, signs = data(key)
    u, r, s = balanced_start(directions, signs, log_epsilon)
    return solve(polar_flow, x, y, u, r, s, loss, np.array(times), rtol=rtol, atol=absolute_tolerance(rtol))


@cached(maxsize=32)
def polar_run(key: tuple, log_epsilon: float, loss: str, times: tuple, rtol: float = 1e-11):
    """The polar-form flow for the data of `key` from epsilon = e^log_epsilon, on `times` (cached)."""
    return _flow(key, log_epsilon, loss, times, rtol)


def directions_at_step_end(key: tuple, log_epsilon: float, loss: str, time: float, rtol: float = 1e-11):
    """The directions u_j at `time` as the end of the solver's own last step (not cached).

    A grid run reads its times off DOP853's dense output, which is error-controlled only for a smooth right-hand
    side: where a stage crosses a ReLU switch (an inner product held at 0, a dropped point) the interpolant between
    two accepted steps can wiggle by a step times the jump, while the steps' ends stay controlled. At log epsilon
    = -1000 a dropped point's u_j . x_k (-2e-323 at both neighbouring step ends) read +0.013 at one grid time."""
    if time <= 0:
        _, _, directions, signs = data(key)
        return balanced_start(directions, signs, log_epsilon)[0]
    return _flow(key, log_epsilon, loss, (0.0, float(time)), rtol).directions[-1]


def switches_at_step_ends(key: tuple, log_epsilon: float, loss: str, times, patterns, x, events,
                          rtol: float = 1e-11, limit: int = 8) -> tuple[int, int]:
    """(switches among `events` that hold at the solver's own step ends, switches among `events` on the grid), for
    a run on `times` whose indicators 1{u_j . x_k > 0} are `patterns` (T, h, n); `events` (T - 1, h, n) marks the
    grid switches in question. Each grid time pair holding one is read again at step ends on both sides
    (`directions_at_step_end`): a switch on counts where the product goes from at most 0 to above the absolute
    tolerance, a switch off where it goes from above the tolerance to at most 0. The reading stops at the first
    grid time pair with a confirmed switch (a count of at least one is what a claim of none is tested on); more
    than `limit` unconfirmed pairs raise NumericalError."""
    gained, lost = ~patterns[:-1] & patterns[1:], patterns[:-1] & ~patterns[1:]
    tolerance = absolute_tolerance(rtol)
    for checked, k in enumerate(np.nonzero(np.any(events, axis=(1, 2)))[0]):
        if checked == limit:
            raise NumericalError(f"{limit} activation switches on the grid did not hold at the solver's step ends: "
                                 "the dense output is not resolving the switches")
        before = directions_at_step_end(key, log_epsilon, loss, times[k], rtol) @ x.T
        after = directions_at_step_end(key, log_epsilon, loss, times[k + 1], rtol) @ x.T
        held = (gained[k] & (before <= 0) & (after > tolerance)) | (lost[k] & (before > tolerance) & (after <= 0))
        confirmed = int(np.sum(events[k] & held))
        if confirmed:
            return confirmed, int(np.sum(events))
    return 0, int(np.sum(events))


def describe_confirmation(on_grid: int, confirmed: int) -> str:
    """What `switches_at_step_ends` found, in words."""
    if not on_grid:
        return "none in the dense output"
    return (f"{on_grid} in the dense output, {confirmed} of them confirmed at the solver's step ends (read up to the "
            "first confirmed time)")


def class_norms(x, y):

    positive, negative = class_directions(x, y)
    return float(np.linalg.norm(positive)), float(np.linalg.norm(negative))


def half_time(times, losses) -> float:
    """The first time the summed loss falls to half its initial value (linear interpolation on the grid)."""
    below = np.nonzero(losses <= losses[0] / 2)[0]
    if not len(below) or below[0] == 0:
        raise NumericalError("the loss did not halve within the run")
    k = below[0]
    fraction = (losses[k - 1] - losses[0] / 2) / (losses[k - 1] - losses[k])
    return float(times[k - 1] + fraction * (times[k] - times[k - 1]))


def empirical_alignment_time(times, directions, signs, x, y) -> float:
    """The first grid time after which every V+ neuron stays in S+ u S_dead and every V- neuron in S- u S_dead."""

    codes = region_codes(directions, x, y)
    aligned = np.all(np.where(signs > 0, (codes == 1) | (codes == 0), (codes == -1) | (codes == 0)), axis=1)
    bad = np.nonzero(~aligned)[0]
    if not len(bad):
        return 0.0
    if bad[-1] == len(times) - 1:
        raise NumericalError("the neurons were not aligned by the end of the run")
    return float(times[bad[-1] + 1])


def fine_then_geometric(dense_end: float, end: float, dense_points: int, extra=()) -> tuple:
    times = np.concatenate([np.linspace(0.0, dense_end, dense_points + 1), np.geomspace(dense_end * 1.001, end, 4000),
                            np.asarray(extra, dtype=float)])
    return tuple(np.unique(times))


def escape_end(x, y, log_epsilon: float, margin: float) -> float:
    return -log_epsilon / min(class_norms(x, y)) + margin


def log_domain_weights(run):
    """W(t) / e^(max_j r_j(t)) and that max: the scale-free weights (e^r underflows at tiny epsilon)."""
    top = np.max(run.log_norms, axis=1)
    return run.directions * np.exp(run.log_norms - top[:, None])[..., None], top
