"""Registry of theorems by id: the built-in families, plus any registered at run time."""

from __future__ import annotations

from theorems import (activation_monotonicity, alignment_geometry, alignment_time_flat, balanced_collapse,
                      balancedness, balancedness_identity, cohesion_separability, collapse_training,
                      conservation_law, directional_dynamics, dual_kernel, early_alignment, elasticity_polynomial,
                      elasticity_reference, escape_time, gaussian_equivalence, head_conditioning,
                      hermite_equivalence, large_step, local_recovery, mixture_equivalence, mixture_spike,
                      nc1_bound, nc2_bracket, nc3_bound, orthogonal_frozen, peak_alignment, population_loss,
                      pseudo_inverse_features, spike_alignment, spike_count, spike_decomposition, spike_outlier,
                      spike_strength, srf_constants, stationary_balanced)
from theorems.errors import InvalidInput, UnknownName
from theorems.statement import Theorem

_THEOREMS: dict[str, Theorem] = {}


def register(theorem: Theorem, *, replace: bool = False) -> Theorem:
    """Add a theorem; an id already taken by a different theorem is an error unless `replace`."""
    if not isinstance(theorem, Theorem):
        raise InvalidInput(f"register() takes a Theorem, got {type(theorem).__name__}")
    if theorem.id in _THEOREMS and _THEOREMS[theorem.id] is not theorem and not replace:
        raise InvalidInput(f"theorem id {theorem.id!r} is already registered")
    _THEOREMS[theorem.id] = theorem
    return theorem


def theorem(theorem_id: str) -> Theorem:
    try:
        return _THEOREMS[theorem_id]
    except KeyError:
        raise UnknownName(f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_THEOREMS))}") from None


def all_theorems() -> list[Theorem]:
    return [_THEOREMS[key] for key in sorted(_THEOREMS)]


for _module in (dual_kernel, population_loss,
                spike_decomposition, spike_strength, spike_alignment, spike_outlier, mixture_spike, spike_count,
                srf_constants, gaussian_equivalence, large_step, hermite_equivalence, mixture_equivalence,
                elasticity_reference, elasticity_polynomial, cohesion_separability, local_recovery,
                balancedness_identity, balancedness, stationary_balanced, nc1_bound, pseudo_inverse_features,
                nc2_bracket, nc3_bound, head_conditioning, balanced_collapse, collapse_training,
                conservation_law, alignment_geometry, directional_dynamics, activation_monotonicity, early_alignment,
                alignment_time_flat,
                escape_time, peak_alignment, orthogonal_frozen):
    register(_module.THEOREM)
