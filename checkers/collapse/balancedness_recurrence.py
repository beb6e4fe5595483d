"""Checker of balancedness-recurrence: one step of the small network (`checkers.collapse.small_network`) in
float64 and in mpmath against D_1 = decay_factor D_0 + eta^2 S_0, the floor along a run from a balanced
start, and the gradient-flow limit as an observed order in eta."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured, Tightness, Unresolved
from checkers.collapse.small_network import (
    FLOOR_STEPS,
    FLOW_LEVELS,
    MAX_FLOW_LEVELS,
    MpmathArrays,
    descend,
    imbalance,
    network,
    one_step,
)
from theorems.collapse import balancedness_recurrence
from theorems.errors import InvalidInput
from theorems.formula import to_mpf
from theorems.statement import Instance


def _balanced(weights):
    """The same network with W_2 replaced by R (W_1 W_1^T)^(1/2) restricted to its range, so that D = 0:
    from there only the eta^2 source term can lift D, which is where the floor term is seen."""
    first = weights[0]
    left, singular, _ = np.linalg.svd(first, full_matrices=False)
    rank = min(first.shape[0], first.shape[1], weights[1].shape[0])
    rotation = np.linalg.qr(np.random.default_rng(0).standard_normal((weights[1].shape[0], rank)))[0]
    second = rotation * singular[:rank] @ left[:, :rank].T
    first = left[:, :rank] * singular[:rank] @ np.linalg.svd(first, full_matrices=False)[2][:rank]
    return [first, second, weights[2]]


UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2


def _gamma(terms: int) -> float:
    """Higham's gamma_n = n u / (1 - n u): the relative error bound of a sum of n products in float64."""
    return terms * UNIT_ROUNDOFF / (1 - terms * UNIT_ROUNDOFF)


def _floor_run(instance: Instance, seed: np.random.SeedSequence) -> dict:
    """Per step of a run from an exactly balanced start: ||D_k||, ||S_k|| and the run's round-off allowances, the
    measurements the statement's floor bound reads. The law is exact arithmetic; the float64 run meets it up to
    round-off, which is stated, not fitted: D is formed to gamma_n (||W_2||^2 + ||W_1||^2) (+ one rounding of the
    difference), each update W <- fl((1 - eta lambda) W - eta G) moves D by at most 2 ||W|| ||dW|| with
    ||dW|| <= 2u (||W|| + eta ||G||), and S is formed to gamma_n (||G_2||^2 + ||G_1||^2)."""
    weights, x, y = network(instance, seed)
    weights = _balanced(weights)
    eta = float(instance["learning_rate"])
    run = {"norms": [], "formed": [], "updated": [], "sources": []}
    inner = max(weights[1].shape[0], weights[0].shape[1])  # the length of the sums in W_2^T W_2 and W_1 W_1^T

    def visit(current, grads):
        norm = np.linalg.norm(imbalance(current))
        sizes = [np.linalg.norm(current[layer]) for layer in (0, 1)]
        steps = [np.linalg.norm(grads[layer]) for layer in (0, 1)]
        run["norms"].append(norm)
        run["formed"].append(_gamma(inner) * (sizes[0] ** 2 + sizes[1] ** 2) + UNIT_ROUNDOFF * norm)
        run["updated"].append(sum(4 * UNIT_ROUNDOFF * w * (w + eta * g) for w, g in zip(sizes, steps)))
        run["sources"].append(np.linalg.norm(grads[1].T @ grads[1] - grads[0] @ grads[0].T)
                              + _gamma(inner) * (steps[0] ** 2 + steps[1] ** 2))

    descend(instance, weights, x, y, eta, FLOOR_STEPS, visit)
    return run


def _flow_runs(instance: Instance, seed: np.random.SeedSequence):
    """D(0), then D(k eta) at k eta = flow_time for eta = eta_0 / 2^j, j = 0, 1, 2, ...: a generator, so the reader
    halves eta only as far as it needs."""
    start, x, y = network(instance, seed)
    base = float(instance["learning_rate"])
    first_steps = max(int(round(float(instance["flow_time"]) / base)), 1)
    if first_steps > MAX_FIRST_FLOW_STEPS:
        raise InvalidInput(f"the gradient-flow comparison runs flow_time/learning_rate = {first_steps} steps at its "
                           f"coarsest eta, and up to {2 ** (MAX_FLOW_LEVELS - 1)} times as many as it halves eta; "
                           f"above {MAX_FIRST_FLOW_STEPS} that takes minutes to hours: raise learning_rate or lower "
                           "flow_time")
    yield imbalance(start)
    for level in range(MAX_FLOW_LEVELS):
        steps = first_steps * 2**level
        eta = float(instance["flow_time"]) / steps
        yield imbalance(descend(instance, start, x, y, eta, steps))


def read_floor(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    run = _floor_run(instance, seed)
    bounds = balancedness_recurrence.floor_bounds(instance, run)
    ratios = [(norm / bound, step) for step, (norm, bound) in enumerate(zip(run["norms"], bounds)) if bound > 0]
    ratio, at = max(ratios, key=lambda pair: pair[0], default=(None, None))  # the first of equal ratios
    tightness = None if ratio is None else Tightness(float(ratio), f"step {at}",
                                                     balancedness_recurrence.floor_attained(instance),
                                                     "the first step from D_0 = 0, where D_1 = eta^2 S_0")
    return Exact(mpmath.mpf(observable(run)), tolerance=1e-12, method=f"{len(run['norms'])} GD steps in float64",
                 tightness=tightness, witnesses={"run": run})


# The observed order o_j = log2(e_j / e_{j+1}) at eta_j = eta/2^j of a method of order p is p + a eta_j + b eta_j^2
# + ... Over the last three orders, with changes c_1 = o_1 - o_2 and c_2 = o_2 - o_3, Richardson's 2 o_3 - o_2
# removes the a eta term and leaves -b eta_2^2 / 2, while c_1 - 2 c_2 = (3/2) b eta_2^2: so the value's remainder
# is (c_1 - 2 c_2)/3, read off the same orders. The extrapolated order is stated to ORDER_ACCURACY, and the
# checker extrapolates only once that remainder is below a fifth of it, halving eta further until it is
# (docs/derivations/collapse.md#balancedness-recurrence). At the default parameters the remainder is 7e-4 on seed
# 0, and the extrapolated orders of the 40 quick seeds lie within 0.0016 of 1.
ORDER_ACCURACY = 0.01
REMAINDER_BUDGET = ORDER_ACCURACY / 5
# 40 times the default's 500 steps: at most 1.3 million small steps at eta/64 (tens of seconds)
MAX_FIRST_FLOW_STEPS = 20_000


def _in_regime(changes: np.ndarray) -> bool:
    """Whether Richardson's value from the last two changes of the observed orders is accurate to
    ORDER_ACCURACY: its remainder, estimated as (c_1 - 2 c_2)/3 from the changes themselves, is within
    REMAINDER_BUDGET (so the a eta model of the changes holds: they halve with eta, or are already settled)."""
    return abs(changes[-2] - 2 * changes[-1]) / 3 <= REMAINDER_BUDGET


def read_gradient_flow(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """The observed order of GD's distance to the flow in eta, from eta/1 to eta/8, halving eta further (to
    eta/2^(MAX_FLOW_LEVELS - 1)) while the orders are not yet in their O(eta) regime; the last four errors are
    used."""
    flow = _flow_runs(instance, seed)
    initial = next(flow)
    finals = [next(flow) for _ in range(FLOW_LEVELS)]
    errors = [balancedness_recurrence.flow_error(instance, initial, final) for final in finals]
    if min(errors) == 0:
        raise Unresolved("GD meets the flow exactly at some eta (errors " + ", ".join(f"{e:.3g}" for e in errors)
                         + "): flow_time = 0, or D has decayed below float64's range, so no order can be read")
    while True:
        orders = np.array([observable({"initial": initial, "finals": pair})
                           for pair in zip(finals[-4:-1], finals[-3:])])
        changes = orders[:-1] - orders[1:]
        if _in_regime(changes) or len(errors) == MAX_FLOW_LEVELS:
            break
        finals.append(next(flow))
        errors.append(balancedness_recurrence.flow_error(instance, initial, finals[-1]))
    described = ("errors " + ", ".join(f"{e:.3g}" for e in errors) + f" at eta/1 to eta/{2 ** (len(errors) - 1)}; "
                 "orders from the last four " + ", ".join(f"{o:.4f}" for o in orders))
    if not _in_regime(changes):
        raise Unresolved(f"the orders are not yet in their O(eta) regime ({described}); a smaller learning_rate "
                         "would resolve it")
    extrapolated = orders[-1] - changes[-1]
    return Exact(mpmath.mpf(extrapolated), tolerance=ORDER_ACCURACY,
                 method=described + f"; Richardson-extrapolated order {extrapolated:.4f} (stated to {ORDER_ACCURACY})",
                 witnesses={"finest pair": {"initial": initial, "finals": finals[-2:]}})


def _read_float64(*, diagonal: bool):
    """A reader of one step in float64, for the residual of all of D or (`diagonal`) of its diagonal only."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
        weights, x, y = network(instance, seed)
        return Measured(one_step(instance, weights, x, y, np, float), tolerance=1e-12,
                        method="one step in float64" + (", diagonal of D only" if diagonal else ""))
    return read


def read_recurrence_mpmath(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    weights, x, y = network(instance, seed)
    digits = instance["digits"]
    with mpmath.workdps(digits):
        to_mp = np.vectorize(lambda v: mpmath.mpf(float(v)), otypes=[object])
        measured = one_step(instance, [to_mp(w) for w in weights], to_mp(x), to_mp(y), MpmathArrays,
                            lambda v: to_mpf(v, digits))
    return Measured(measured, tolerance=10.0 ** (5 - digits), method=f"one step in mpmath at {digits} digits")


CHECKER = Checker(
    theorem=balancedness_recurrence.THEOREM,
    simulation="the step in float64 (1e-12) and mpmath (10^(5 - digits)); the floor along a run from D_0 = 0; "
               "observed order 1 of the flow limit in eta",
    readers={"recurrence-float64": _read_float64(diagonal=False), "diagonal-float64": _read_float64(diagonal=True),
             "recurrence-mpmath": read_recurrence_mpmath, "floor": read_floor,
             "gradient-flow": read_gradient_flow},
    second_point={"learning_rate": "0.1", "weight_decay": "0.05", "width": "12"},
    calibration_seeds=200,
)
