"""Checker of balancedness-recurrence: one step of the small network (`checkers.collapse.small_network`) in
float64 and in mpmath against D_1 = decay_factor D_0 + eta^2 S_0, the floor along a run from a balanced
start, and the gradient-flow limit as an observed order in eta."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact, Tightness, Unresolved
from checkers.collapse.small_network import (
    FLOOR_STEPS,
    FLOW_LEVELS,
    MAX_FLOW_LEVELS,
    MpmathArrays,
    descend,
    imbalance,
    network,
    residual,
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


def _floor_margin(instance: Instance, seed: np.random.SeedSequence) -> tuple[float, int, Tightness | None]:
    weights, x, y = network(instance, seed)
    weights = _balanced(weights)
    eta = float(instance["learning_rate"])
    decay = float(instance.constant("decay_factor"))
    source_weight = instance.definition("source_weight")
    state = {"bound": None, "margin": np.inf, "steps": 0, "ratio": None, "at": None}
    inner = max(weights[1].shape[0], weights[0].shape[1])  # the length of the sums in W_2^T W_2 and W_1 W_1^T

    def visit(current, grads):
        norm = np.linalg.norm(imbalance(current))
        # the law is exact arithmetic; the float64 run meets it up to round-off, which is stated, not fitted:
        # D is formed to gamma_n (||W_2||^2 + ||W_1||^2) (+ one rounding of the difference), and each update
        # W <- fl((1 - eta lambda) W - eta G) moves D by at most 2 ||W|| ||dW||, ||dW|| <= 2u (||W|| + eta ||G||)
        sizes = [np.linalg.norm(current[layer]) for layer in (0, 1)]
        steps = [np.linalg.norm(grads[layer]) for layer in (0, 1)]
        formed = _gamma(inner) * (sizes[0] ** 2 + sizes[1] ** 2) + UNIT_ROUNDOFF * norm
        updated = sum(4 * UNIT_ROUNDOFF * w * (w + eta * g) for w, g in zip(sizes, steps))
        source = np.linalg.norm(grads[1].T @ grads[1] - grads[0] @ grads[0].T) + _gamma(inner) * (steps[0] ** 2
                                                                                                  + steps[1] ** 2)
        bound = norm + formed if state["bound"] is None else state["bound"]
        reachable = max(norm - formed, 0.0)  # the smallest ||D|| the computed one allows
        if bound > 0:
            state["margin"] = min(state["margin"], 1 - reachable / bound)
            if state["ratio"] is None or norm / bound > state["ratio"]:
                state["ratio"], state["at"] = norm / bound, state["steps"]
        elif reachable > 0:
            state["margin"] = -np.inf
        state["bound"] = decay * bound + source_weight * eta**2 * source + updated
        state["steps"] += 1

    descend(instance, weights, x, y, eta, FLOOR_STEPS, visit)
    # from D_0 = 0 the first step is D_1 = eta^2 S_0 exactly, so there ||D_1|| / bound_1 = 1 / source_weight: the
    # bound is attained (ratio 1) for the recurrence's source_weight 1
    first_step = 1 / source_weight if source_weight else None
    tightness = None if state["ratio"] is None else Tightness(
        float(state["ratio"]), f"step {state['at']}", first_step, "the first step from D_0 = 0, where D_1 = eta^2 S_0")
    return state["margin"], state["steps"], tightness


def _flow_errors(instance: Instance, seed: np.random.SeedSequence):
    """||D(k eta) - flow_decay D(0)||_F / ||D(0)||_F at k eta = flow_time for eta = eta_0 / 2^j, j = 0, 1, 2, ...:
    a generator, so the reader halves eta only as far as it needs."""
    start, x, y = network(instance, seed)
    base = float(instance["learning_rate"])
    first_steps = max(int(round(float(instance["flow_time"]) / base)), 1)
    if first_steps > MAX_FIRST_FLOW_STEPS:
        raise InvalidInput(f"the gradient-flow comparison runs flow_time/learning_rate = {first_steps} steps at its "
                           f"coarsest eta, and up to {2 ** (MAX_FLOW_LEVELS - 1)} times as many as it halves eta; "
                           f"above {MAX_FIRST_FLOW_STEPS} that takes minutes to hours: raise learning_rate or lower "
                           "flow_time")
    flow_decay = float(instance.constant("flow_decay"))
    initial = imbalance(start)
    for level in range(MAX_FLOW_LEVELS):
        steps = first_steps * 2**level
        eta = float(instance["flow_time"]) / steps
        final = descend(instance, start, x, y, eta, steps)
        yield np.linalg.norm(imbalance(final) - flow_decay * initial) / np.linalg.norm(initial)


def read_floor(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    margin, steps, tightness = _floor_margin(instance, seed)
    return Exact(mpmath.mpf(margin), tolerance=1e-12, method=f"{steps} GD steps in float64", tightness=tightness)


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


def read_gradient_flow(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    """The observed order of GD's distance to the flow in eta, from eta/1 to eta/8, halving eta further (to
    eta/2^(MAX_FLOW_LEVELS - 1)) while the orders are not yet in their O(eta) regime; the last four errors are
    used."""
    flow = _flow_errors(instance, seed)
    errors = [next(flow) for _ in range(FLOW_LEVELS)]
    if min(errors) == 0:
        raise Unresolved("GD meets the flow exactly at some eta (errors " + ", ".join(f"{e:.3g}" for e in errors)
                         + "): flow_time = 0, or D has decayed below float64's range, so no order can be read")
    while True:
        orders = np.log2(np.array(errors[-4:-1]) / np.array(errors[-3:]))
        changes = orders[:-1] - orders[1:]
        if _in_regime(changes) or len(errors) == MAX_FLOW_LEVELS:
            break
        errors.append(next(flow))
    described = ("errors " + ", ".join(f"{e:.3g}" for e in errors) + f" at eta/1 to eta/{2 ** (len(errors) - 1)}; "
                 "orders from the last four " + ", ".join(f"{o:.4f}" for o in orders))
    if not _in_regime(changes):
        raise Unresolved(f"the orders are not yet in their O(eta) regime ({described}); a smaller learning_rate "
                         "would resolve it")
    extrapolated = orders[-1] - changes[-1]
    return Exact(mpmath.mpf(extrapolated), tolerance=ORDER_ACCURACY,
                 method=described + f"; Richardson-extrapolated order {extrapolated:.4f} (stated to {ORDER_ACCURACY})")


def _read_float64(*, diagonal: bool):
    """A reader of the one-step residual in float64, of all of D or (`diagonal`) of its diagonal only."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
        weights, x, y = network(instance, seed)
        decay = instance.constant("decay_factor")
        value = residual(instance, weights, x, y, np, float, float(decay), diagonal=diagonal)
        return Exact(mpmath.mpf(value), tolerance=1e-12,
                     method="one step in float64" + (", diagonal of D only" if diagonal else ""))
    return read


def read_recurrence_mpmath(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    weights, x, y = network(instance, seed)
    decay = instance.constant("decay_factor")
    digits = instance["digits"]
    with mpmath.workdps(digits):
        to_mp = np.vectorize(lambda v: mpmath.mpf(float(v)), otypes=[object])
        exact = instance.constants["decay_factor"].exact  # at this precision, not the constants' 30 digits
        decay_mp = to_mpf(exact, digits) if exact is not None else mpmath.mpf(decay)
        value = residual(instance, [to_mp(w) for w in weights], to_mp(x), to_mp(y), MpmathArrays,
                          lambda v: to_mpf(v, digits), decay_mp)
    return Exact(mpmath.mpf(value), tolerance=10.0 ** (5 - instance["digits"]),
                 method=f"one step in mpmath at {instance['digits']} digits")


CHECKER = Checker(
    theorem=balancedness_recurrence.THEOREM,
    simulation="the step in float64 (1e-12) and mpmath (10^(5 - digits)); the floor along a run from D_0 = 0; "
               "observed order 1 of the flow limit in eta",
    readers={"recurrence-float64": _read_float64(diagonal=False), "diagonal-float64": _read_float64(diagonal=True),
             "recurrence-mpmath": read_recurrence_mpmath, "floor": read_floor,
             "gradient-flow": read_gradient_flow},
    claims_in_checker=frozenset({
        "decay-not-squared", "floor-dropped", "flow-rate-halved", "penalty-without-half", "source-five-percent-low"}),
    second_point={"learning_rate": "0.1", "weight_decay": "0.05", "width": "12"},
    calibration_seeds=200,
)
