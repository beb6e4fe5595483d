"""Theorem B: a near-balanced linear head has kappa(W_L) close to the L2-th root of kappa of the head product
[derived].

Source: docs/derivations/collapse.md#head-conditioning (derived for thmcheck): the explicit form of conclusion (3) of
Jacot,
Sukenik, Wang and Mondelli (ICLR 2025) Theorem 3.1, and of the exact-balance identity of the paper's
Section 5 (its theorem number is not confirmed against the paper).

Statement. A head of L2 matrices W_{L1+1}, ..., W_L, all with ||W_l||_op <= r, each consecutive pair
with ||W_{l+1}^T W_{l+1} - W_l W_l^T||_op <= eps2; A = W_L ... W_{L1+1}; delta = eps2 r^(2(L2-1)) L2 (L2-1)/2:

    ||A A^T - (W_L W_L^T)^L2||_op <= delta,  so  |s_i(A)^2 - s_i(W_L)^(2 L2)| <= delta for i <= K (Weyl),
    kappa(W_L) <= ((s_1(A)^2 + delta)/(s_K(A)^2 - delta))^(1/(2 L2))   (infinite while delta >= s_K(A)^2),

and at exact balance kappa(W_L) = kappa(A)^(1/L2): a deeper head is better conditioned.
bound_scale multiplies delta.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from theorems.collapse import bounds as collapse
from theorems.statement import Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem


def _root_target(instance):
    return Target.point(0, note="kappa(W_L) - kappa(A)^(root exponent), relative")


def _delta(instance, measured):
    return collapse.head_product_gap(measured["eps2"], measured["radius"], instance["depth"]) \
        * instance.constant("bound_scale")


def weyl_margin(instance, measured):
    """1 - max_i |s_i(A)^2 - s_i(W_L)^(2 L2)| / (bound_scale delta), from the measured eps2 (the largest imbalance of
    a consecutive pair), radius r and singular values of A (product_singular) and W_L (last_singular); +inf at
    delta = 0, an exactly balanced chain, which exact-root checks."""
    delta = _delta(instance, measured)
    if delta == 0:
        return mpmath.inf
    gap = np.max(np.abs(np.asarray(measured["product_singular"]) ** 2
                        - np.asarray(measured["last_singular"]) ** (2 * instance["depth"])))
    return 1 - gap / delta


def condition_margin(instance, measured):
    """The conditioning bound over kappa(W_L), minus 1."""
    product, last = measured["product_singular"], measured["last_singular"]
    depth = instance["depth"]
    bound = collapse.head_condition_bound(product[0], product[-1], _delta(instance, measured), depth,
                                          instance.definition("root_exponent")(depth))
    return bound / (last[0] / last[-1]) - 1


def root_digits(instance) -> int:
    """The precision exact-root is evaluated at: 20 digits beyond the 2 L2 log10(kappa) that the Gram matrix of the
    product, of condition kappa^(2 L2), loses."""
    return 20 + math.ceil(2 * instance["depth"] * math.log10(float(instance["kappa"])))


def root_residual(instance, measured):
    """kappa(W_L) / kappa(A)^(root exponent) - 1, at `root_digits`."""
    product, last = measured["product_singular"], measured["last_singular"]
    with mpmath.workdps(root_digits(instance)):
        predicted = (product[0] / product[-1]) ** instance.definition("root_exponent")(mpmath.mpf(instance["depth"]))
        return last[0] / last[-1] / predicted - 1


def graded_chain(instance):
    """The near-tight chain of docs/derivations/collapse.md#head-conditioning at r = 1, eps2 = 1e-4: square diagonal
    layers with first entries s_l^2 = 1 - (L2 - l) eps2 (l = 1..L2), the others 1/2, in closed form: each pair is
    eps2-balanced with equality, s_1(A)^2 = prod_l s_l^2 and s_1(W_L) = 1."""
    depth, classes, eps2 = instance["depth"], instance["classes"], mpmath.mpf(1) / 10**4
    top = mpmath.sqrt(mpmath.fprod(1 - k * eps2 for k in range(depth)))
    half = mpmath.mpf(1) / 2
    return {"graded": {"eps2": eps2, "radius": 1, "product_singular": [top] + [half**depth] * (classes - 1),
                       "last_singular": [mpmath.mpf(1)] + [half] * (classes - 1)}}


def balanced_chain(instance):
    """An exactly balanced chain with kappa(W_L) = 2: kappa(A) = 2^L2."""
    return {"balanced": {"product_singular": [mpmath.mpf(2) ** instance["depth"], 1], "last_singular": [2, 1]}}


THEOREM = Theorem(
    id="head-conditioning",
    title="Conditioning of the last layer from the head product (Theorem B)",
    source="derived for thmcheck (docs/derivations/collapse.md#head-conditioning), explicit form of Jacot, Sukenik, "
           "Wang and Mondelli (ICLR 2025) Theorem 3.1 (3)",
    provenance="derived",
    statement="|s_i(A)^2 - s_i(W_L)^(2 L2)| <= eps2 r^(2(L2-1)) L2(L2-1)/2; kappa(W_L) = kappa(A)^(1/L2) at exact "
              "balance",
    parameters=(
        Parameter(name="classes", description="number of classes K", kind="integer", default="3", lower=2, upper=8),
        Parameter(name="depth", description="number L2 of linear layers in the head", kind="integer", default="3",
                  lower=2, upper=8),
        Parameter(name="kappa", description="kappa(W_L) of the exact chain", kind="real", default="1.5", lower=1.0,
                  upper=100.0),
    ),
    assumptions=(),
    constants=(collapse.BOUND_SCALE,),
    predictions=(
        Prediction(name="weyl", kind="inequality",
                   statement="for every generated near-balanced chain: max_i |s_i(A)^2 - s_i(W_L)^(2 L2)| <= "
                             "bound_scale delta",
                   predict=lambda instance: Target.at_least(0, note="smallest margin bound_scale - gap/delta; "
                                                         "the near-tight construction (graded diagonal chain) is "
                                                         "among the chains, so gap/delta reaches 1 - O(eps2/r^2)"),
                   observable=weyl_margin, references=graded_chain,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "5%: delta 10% low (the kept near mutant) moves the margin on "
                                                      "the graded chain by 0.11, two resolutions; the margin is "
                                                      "float64 linear algebra on O(1) matrices (about 1e-13) and the "
                                                      "searched gap reaches 0.9999995 of delta"),
                   resolution=lambda instance: 0.05),
        Prediction(name="condition-bound", kind="inequality",
                   statement="for the same chains: kappa(W_L) <= ((s_1(A)^2 + delta)/(s_K(A)^2 - delta))^(1/(2 L2))",
                   predict=lambda instance: Target.at_least(0, note="smallest margin bound/kappa(W_L) - 1"),
                   observable=condition_margin, references=graded_chain,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin is float64 linear algebra on O(1) matrices "
                                                      "(accurate to about 1e-13); 1e-6 leaves room; the searched gap "
                                                      "reaches 0.9999995 of delta"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="exact-root", kind="identity",
                   statement="an exactly balanced chain: kappa(W_L) = kappa(A)^(1/L2), relative residual in mpmath <= "
                             "1e-10",
                   predict=_root_target, observable=root_residual, references=balanced_chain,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "at exact balance kappa(W_L) = kappa(A)^(1/L2) is computed in "
                                                      "mpmath at 20 + 2 L2 log10(kappa) digits (the singular values "
                                                      "come from a Gram matrix of condition kappa^(2 L2)), so the "
                                                      "residual is near 1e-20; 1e-10 leaves room, and float64, "
                                                      "accurate to 1e-16 kappa^L2, would not at large kappa^L2"),
                   resolution=lambda instance: 1e-10),
    ),
    mutants=(
        Mutant(name="root-exponent-off", description="kappa(W_L) = kappa(A)^(1/(L2 - 1))",
               definitions={"root_exponent": lambda depth: mpmath.mpf(1) / (depth - 1)}),
        Mutant(name="delta-halved", description="delta multiplied by 1/2", constant_factors={"bound_scale": 0.5}),
        Mutant(name="delta-ten-percent-low", description="delta multiplied by 0.9 (a near error: the near-tight "
               "construction reaches gap/delta = 0.9999)", constant_factors={"bound_scale": 0.9}),
    ),
    definitions={"root_exponent": lambda depth: mpmath.mpf(1) / depth},
)
