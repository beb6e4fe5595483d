"""Observing the neural-collapse bounds (Theorems A-D, the pseudo-inverse identity): Hypothesis searches
over generated heads for the smallest margin, and exact instances evaluated in mpmath.

Every margin is computed from quantities measured on the generated matrices (specs/collapse.md 7.1,
step 8), never from the generator's targets. Margins are relative: bound_scale - observed/bound for
upper bounds, so a margin of -0.5 means the observed value is 1.5 times the claimed bound. The known
tight and adversarial instances are always among the examples tried (`explicit`).

Float64 caveat (spec 7.4): eps2 is measured with an absolute error ~1e-16 ||W||^2, so the search keeps
eps2 >= 1e-6 scale^2 and the margins are accurate to about 1e-8; the tolerance used is 1e-7.
"""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

from checkers.check import Budget, Checker, Exact
from checkers.search import search_counterexample
from checkers.simulate.collapse import (Float64, Head, Mpmath, generate_chain, generate_head, measure_head,
                                        one_hot_targets)
from theorems import balanced_collapse, head_conditioning, nc1_bound, nc2_bracket, nc3_bound, pseudo_inverse_features
from theorems.collapse import head_condition_bound, head_product_gap, nc2_perturbation
from theorems.statement import Instance

MARGIN_TOLERANCE = 1e-7
BASE_EXAMPLES = 100


def head_settings(classes: int, per_class: int):
    """Hypothesis strategy for the generator's settings at fixed K and n (dimensions, targets, flags)."""
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "extra": st.integers(1, 3),
        "input_extra": st.integers(0, 2),
        "kappa": st.one_of(st.just(1.0), st.floats(1.0, 10.0)),
        "scale": st.floats(0.3, 3.0),
        "eps1_fraction": st.one_of(st.just(0.0), st.floats(1e-4, 0.9)),
        "eps2_exponent": st.floats(-6.0, 0.0),
        "spread": st.one_of(st.just(0.0), st.floats(0.01, 30.0)),
        "adversarial": st.booleans(),
        "error": st.sampled_from(["random", "within", "shrink"]),
        "imbalance": st.one_of(st.just(0.0), st.floats(0.0, 0.2)),
    })


def tight_settings(**changes) -> dict:
    """The adversarial instance on which Theorem A is attained (kappa = 1, eps1 = 0), or a variant."""
    settings = dict(seed=0, extra=2, input_extra=1, kappa=1.0, scale=1.3, eps1_fraction=0.0, eps2_exponent=-2.0,
                    spread=2.0, adversarial=True, error="random", imbalance=0.0)
    settings.update(changes)
    return settings


EXPLICIT = (
    tight_settings(),
    tight_settings(eps2_exponent=-0.5, scale=2.0, spread=5.0),
    # between-class output error that shrinks the class separation, with a large hidden spread: this is
    # where dropping the -eps1 of Theorem A's denominator is caught (spec 7.3)
    tight_settings(error="shrink", eps1_fraction=0.05, spread=20.0, eps2_exponent=-1.0),
)


def build_head(instance: Instance, settings: dict, backend=Float64):
    classes, per_class = instance["classes"], instance["per_class"]
    return generate_head(
        np.random.default_rng(settings["seed"]), backend, classes=classes, per_class=per_class,
        width=classes + settings["extra"], input_width=classes + settings["extra"] + settings["input_extra"],
        kappa=settings["kappa"], scale=settings["scale"],
        eps1=settings["eps1_fraction"] * float(np.sqrt(per_class * (classes - 1))),
        eps2=settings["scale"] ** 2 * 10.0 ** settings["eps2_exponent"], spread=settings["spread"],
        adversarial=settings["adversarial"], error=settings["error"], imbalance=settings["imbalance"])


def _nc1_margin(instance: Instance, settings: dict, form: str) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    classes, per_class = instance["classes"], instance["per_class"]
    if measured["eps1"] >= float(np.sqrt(per_class * (classes - 1))):
        return float("inf")  # outside the theorem's hypothesis: nothing is claimed
    if form == "theorem-a":
        bound = instance.definition("nc1_bound")(measured["eps1"], measured["eps2"], measured["s_first"],
                                                  measured["s_last"], measured["omega"], per_class, classes)
    else:
        if measured["eps1"] >= float(np.sqrt(per_class)):
            return float("inf")
        bound = instance.definition("nc1_bound_radius")(
            measured["eps1"], measured["eps2"], measured["radius"], per_class, classes, head.inputs.shape[0],
            classes * per_class)
    return float(instance.constant("bound_scale") - measured["nc1"] / bound)


def _search(instance: Instance, budget: Budget, seed: np.random.SeedSequence, margin, strategy, explicit, what):
    result = search_counterexample(margin, strategy, max_examples=budget.scaled(BASE_EXAMPLES),
                                   seed=int(seed.generate_state(1)[0]), explicit=explicit,
                                   tolerance=MARGIN_TOLERANCE)
    return Exact(mpmath.mpf(result.smallest_margin), tolerance=MARGIN_TOLERANCE,
                 method=f"Hypothesis search over {result.examples} {what}; smallest margin at {result.example}")


def observe_nc1(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "tight":
        digits = instance["digits"]
        with mpmath.workdps(digits):
            head = build_head(instance, tight_settings(), Mpmath)
            measured = measure_head(head, Mpmath)
            bound = instance.definition("nc1_bound")(measured["eps1"], measured["eps2"], measured["s_first"],
                                                      measured["s_last"], measured["omega"], instance["per_class"],
                                                      instance["classes"])
            ratio = measured["nc1"] / (instance.constant("bound_scale") * bound)
        return Exact(ratio, tolerance=10.0 ** (5 - digits),
                     method=f"adversarial head (kappa = 1, eps1 = 0) built and measured in mpmath at {digits} digits")
    strategy = head_settings(instance["classes"], instance["per_class"])
    return _search(instance, budget, seed, lambda settings: _nc1_margin(instance, settings, prediction),
                   strategy, EXPLICIT, "heads")



def _pseudo_inverse_margin(instance: Instance, settings: dict) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    residual = np.linalg.norm(head.features - np.linalg.pinv(head.last) @ head.outputs)
    bound = instance.definition("pseudo_inverse_bound")(measured["eps2"], np.linalg.norm(head.inputs))
    return float(instance.constant("bound_scale") - residual / bound)


def observe_pseudo_inverse(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "exact-balance":
        digits = instance["digits"]
        with mpmath.workdps(digits):
            head = _exact_head(instance, Mpmath, kappa=2.0)
            residual = Mpmath.frobenius(head.features - Mpmath.pinv(head.last) @ head.outputs)
            value = residual / Mpmath.frobenius(head.features)
        return Exact(value, tolerance=10.0 ** (5 - digits),
                     method=f"exactly balanced head (eps2 = 0, eps1 > 0) in mpmath at {digits} digits")
    return _search(instance, budget, seed, lambda settings: _pseudo_inverse_margin(instance, settings),
                   head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads")


def _exact_head(instance: Instance, backend, *, kappa: float, eps1: float = 0.3, spread: float = 2.0):
    """A head with eps2 = 0 (W_{L-1} balanced against W_L) and the given eps1."""
    classes, per_class = instance["classes"], instance["per_class"]
    return generate_head(np.random.default_rng(7), backend, classes=classes, per_class=per_class,
                         width=classes + 2, input_width=classes + 3, kappa=kappa, scale=1.1, eps1=eps1, eps2=0.0,
                         spread=spread, adversarial=False)


def _mean_condition(head: Head, backend=Float64):
    means = np.stack([head.features[:, head.labels == c].sum(axis=1) / head.per_class
                      for c in range(head.classes)], axis=1)
    singular = backend.singular_values(means)
    return singular[0] / singular[head.classes - 1]


def _nc2_margin(instance: Instance, settings: dict) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    delta2 = nc2_perturbation(measured["eps1"], measured["eps2"], instance["per_class"], measured["s_last"],
                              measured["input_means_norm"]) * instance.constant("bound_scale")
    lower, upper = instance.definition("nc2_bracket")(measured["s_first"], measured["s_last"], delta2)
    kappa = _mean_condition(head)
    return float(min(kappa - lower, upper - kappa) / kappa)


def observe_nc2(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "exact":
        digits = instance["digits"]
        with mpmath.workdps(digits):
            head = _exact_head(instance, Mpmath, kappa=float(instance["kappa"]), eps1=0.0)
            singular = Mpmath.singular_values(head.last)
            # the exact case: delta_2 = 0 (measuring eps2 would give sqrt(round-off) ~ 10^(-digits/2))
            lower, upper = instance.definition("nc2_bracket")(singular[0], singular[head.classes - 1], 0)
            kappa = _mean_condition(head, Mpmath)
            value = max(abs(kappa - lower), abs(upper - kappa)) / kappa
        return Exact(value, tolerance=10.0 ** (5 - digits),
                     method=f"exact head (eps1 = eps2 = 0, kappa(W_L) = {instance['kappa']}) in mpmath at {digits} digits")
    return _search(instance, budget, seed, lambda settings: _nc2_margin(instance, settings),
                   head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads")


def _nc3_margin(instance: Instance, settings: dict) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    targets, _ = one_hot_targets(head.classes, head.per_class)
    pinv = np.linalg.pinv(head.last)
    distances = np.linalg.norm(head.outputs - targets, axis=0)
    rows = head.last[head.labels]
    cosines = np.einsum("ij,ji->i", rows, head.features) / (
        np.linalg.norm(rows, axis=1) * np.linalg.norm(head.features, axis=0))
    bound = instance.definition("nc3_sample_bound")
    margins = [cosines[i] / float(bound(distances[i], np.linalg.norm(rows[i]), np.linalg.norm(pinv[:, c]),
                                        measured["s_last"], measured["eps2"], np.linalg.norm(head.inputs[:, i])))
               for i, c in enumerate(head.labels) if distances[i] < 1]
    return float(min(margins) - instance.constant("bound_scale")) if margins else float("inf")


def _exact_cosines(last, backend=Float64):
    """cos(W_L^+ e_c, w_c) for each class c."""
    pinv = backend.pinv(last)
    return [(last[c] @ pinv[:, c]) / backend.sqrt((last[c] @ last[c]) * (pinv[:, c] @ pinv[:, c]))
            for c in range(last.shape[0])]


def _kantorovich_margin(instance: Instance, settings: dict) -> float:
    rng = np.random.default_rng(settings["seed"])
    classes = instance["classes"]
    width = classes + settings["extra"]
    singular = settings["scale"] * settings["kappa"] ** -(np.arange(classes) / (classes - 1))
    last = Float64.orthonormal(rng.standard_normal((classes, classes))) * singular @ Float64.orthonormal(
        rng.standard_normal((width, classes))).T
    measured_singular = np.linalg.svd(last, compute_uv=False)
    floor = instance.definition("kantorovich_floor")(measured_singular[0] / measured_singular[-1])
    return float(min(_exact_cosines(last)) / floor - 1)


def observe_nc3(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "attained":
        digits = instance["digits"]
        with mpmath.workdps(digits):
            last = _attaining_head(instance["classes"], instance["kappa"])
            value = min(_exact_cosines(last, Mpmath))
        return Exact(value, tolerance=10.0 ** (5 - digits),
                     method=f"W_L with e_0 = (u_1 + u_K)/sqrt(2), kappa = {instance['kappa']}, in mpmath at {digits} digits")
    if prediction == "kantorovich-floor":
        return _search(instance, budget, seed, lambda settings: _kantorovich_margin(instance, settings),
                       head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "exact heads")
    return _search(instance, budget, seed, lambda settings: _nc3_margin(instance, settings),
                   head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads")


def _attaining_head(classes: int, kappa) -> np.ndarray:
    """W_L = U diag(s) V^T (mpf) whose extreme left singular vectors are (e_0 +- e_1)/sqrt(2)."""
    half = 1 / mpmath.sqrt(2)
    rotation = np.array([[mpmath.mpf(0)] * classes for _ in range(classes)], dtype=object)
    rotation[0, 0], rotation[1, 0] = half, half              # u_1
    rotation[0, classes - 1], rotation[1, classes - 1] = half, -half  # u_K
    for j in range(1, classes - 1):                          # e_2 .. e_{K-1} in between
        rotation[j + 1, j] = mpmath.mpf(1)
    kappa = mpmath.mpf(kappa)
    singular = np.array([kappa ** (-mpmath.mpf(i) / (classes - 1)) for i in range(classes)], dtype=object)
    right = Mpmath.orthonormal(np.random.default_rng(11).standard_normal((classes + 2, classes)))
    return (rotation * singular) @ right.T


def chain_settings():
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "extras": st.lists(st.integers(0, 3), min_size=8, max_size=8),
        "kappa": st.one_of(st.just(1.0), st.floats(1.0, 10.0)),
        "scale": st.floats(0.5, 2.0),
        "perturbation_exponent": st.floats(-7.0, -1.0),
    })


def _chain(instance: Instance, settings: dict, perturbation=None):
    classes, depth = instance["classes"], instance["depth"]
    widths = tuple(classes + e for e in settings["extras"][:depth]) + (classes,)
    return generate_chain(np.random.default_rng(settings["seed"]), widths=widths, kappa=settings["kappa"],
                          scale=settings["scale"],
                          perturbation=10.0 ** settings["perturbation_exponent"] if perturbation is None else perturbation)


def _product(chain):
    product = chain[0]
    for weight in chain[1:]:
        product = weight @ product
    return product


def _chain_margin(instance: Instance, settings: dict, prediction: str) -> float:
    chain, depth = _chain(instance, settings), instance["depth"]
    eps2 = max(Float64.symmetric_norm(upper.T @ upper - lower @ lower.T) for lower, upper in zip(chain, chain[1:]))
    radius = max(np.linalg.norm(weight, 2) for weight in chain)
    delta = head_product_gap(eps2, radius, depth) * instance.constant("bound_scale")
    product_singular = np.linalg.svd(_product(chain), compute_uv=False)
    last_singular = np.linalg.svd(chain[-1], compute_uv=False)
    if prediction == "weyl":
        gap = np.max(np.abs(product_singular**2 - last_singular ** (2 * depth)))
        return float(1 - gap / delta)
    bound = head_condition_bound(product_singular[0], product_singular[-1], delta, depth,
                                 instance.definition("root_exponent")(depth))
    return float(bound / (last_singular[0] / last_singular[-1]) - 1)


def observe_head_conditioning(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "exact-root":
        settings = dict(seed=5, extras=[1, 2, 0, 3, 1, 2, 0, 1], kappa=float(instance["kappa"]), scale=1.2,
                        perturbation_exponent=0.0)
        chain = _chain(instance, settings, perturbation=0.0)
        last, product = (np.linalg.svd(m, compute_uv=False) for m in (chain[-1], _product(chain)))
        predicted = (product[0] / product[-1]) ** float(instance.definition("root_exponent")(instance["depth"]))
        return Exact(mpmath.mpf(last[0] / last[-1] / predicted - 1), tolerance=1e-10,
                     method="an exactly balanced chain in float64")
    explicit = (dict(seed=1, extras=[0] * 8, kappa=2.0, scale=1.5, perturbation_exponent=-4.0),)
    return _search(instance, budget, seed, lambda settings: _chain_margin(instance, settings, prediction),
                   chain_settings(), explicit, "near-balanced chains")


CHECKERS = [
    Checker(nc1_bound.THEOREM, observe_nc1),
    Checker(pseudo_inverse_features.THEOREM, observe_pseudo_inverse),
    Checker(nc2_bracket.THEOREM, observe_nc2),
    Checker(nc3_bound.THEOREM, observe_nc3),
    Checker(head_conditioning.THEOREM, observe_head_conditioning),
]


ORDER_PATH = (1e-1, 1e-2, 1e-3, 1e-4)


def observe_balanced_collapse(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    """Slopes of log NC1_J against log shape between consecutive t, on two paths: eps1 = t with
    eps2 = t^4 (the eps1 term dominates) and eps1 = t^2 with eps2 = t^2 (the sqrt(eps2) term dominates)."""
    shape = instance.definition("shape")
    between = float(np.sqrt(instance["per_class"] * (instance["classes"] - 1)))
    finals, changes, described = [], [], []
    for name, eps1_of, eps2_of in (("eps1 = t, eps2 = t^4", lambda t: t, lambda t: t**4),
                                   ("eps1 = t^2, eps2 = t^2", lambda t: t**2, lambda t: t**2)):
        logs = []
        for t in ORDER_PATH:
            settings = tight_settings(eps1_fraction=eps1_of(t) / between,
                                      eps2_exponent=float(np.log10(eps2_of(t) / 1.3**2)), error="random")
            measured = measure_head(build_head(instance, settings))
            value = shape(measured["eps1"], measured["eps2"], instance.constant("power"))
            logs.append((np.log(float(value)), np.log(measured["nc1"])))
        slopes = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(logs, logs[1:])]
        finals.append(slopes[-1])
        changes.append(abs(slopes[-1] - slopes[-2]))
        described.append(f"{name}: slopes " + ", ".join(f"{s:.4f}" for s in slopes))
    return Exact(mpmath.mpf(min(finals)), tolerance=float(max(changes)),
                 method="; ".join(described) + f" (t = {ORDER_PATH})")


CHECKERS.append(Checker(balanced_collapse.THEOREM, observe_balanced_collapse))
