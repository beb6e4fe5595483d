"""A resolution's reason at the point asked: the distances a reason states were computed at the defaults, so away from
them the nearest errors are computed again from the claims table there, before any draw.

`show` and a run's evidence print the reason as written, then, away from the defaults, what `nearest_by_prediction`
finds: the mutants that move each prediction's target here, nearest first, in that prediction's resolutions here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from theorems.errors import InvalidInput

NEAREST = 3  # the mutants named per prediction


def at_defaults(theorem, instance) -> bool:
    """Whether `instance` sits at `theorem`'s default parameters, however spelt (overrides aside: they change the
    claim, not the point)."""
    return instance.parameters == theorem.instance().parameters


def mutant_moves(claims, name: str) -> dict[str, float | None] | None:
    """How far mutant `name` moves each prediction's target, in resolutions (`ClaimsTable.moves`; inf where its claim
    excludes what the statement allows by any margin: a bracket of no width; None for a NaN, and for all where its
    statement is undefined at its parameters; a bug in it still propagates)."""
    try:
        return {prediction: None if math.isnan(value) else value for prediction, value in claims.moves(name).items()}
    except (ArithmeticError, InvalidInput):
        return None


def nearest(moves: Mapping[str, Mapping[str, float | None] | None], prediction: str) -> dict[str, float]:
    """The mutants that move `prediction` (`moves`: per mutant, `mutant_moves`), nearest first, at most NEAREST."""
    found = sorted((distance, name) for name, moved in moves.items() if moved
                   and (distance := moved.get(prediction)) is not None)
    return {name: distance for distance, name in found[:NEAREST]}


def nearest_by_prediction(theorem, claims) -> dict[str, dict[str, float]]:
    """Away from the defaults, per prediction the nearest mutants here (`nearest`; empty where none moves it); at
    the defaults, or for a table without mutants, nothing: the reasons' own distances are the defaults'."""
    if not claims.mutants or at_defaults(theorem, claims.tested.instance):
        return {}
    moves = {name: mutant_moves(claims, name) for name in claims.mutants}
    return {prediction.name: nearest(moves, prediction.name) for prediction in theorem.predictions}


def describe_here(found: Mapping[str, float]) -> str:
    """The line that follows a reason away from the defaults (a strict inequality's mutant lies beyond any
    resolution: its resolution is round-off)."""
    opening = "away from the defaults, where that reason's distances were computed: here "
    if not found:
        return opening + "no mutant moves its target"
    near = [f"{name} {distance:.3g}" for name, distance in found.items() if math.isfinite(distance)]
    beyond = [name for name, distance in found.items() if not math.isfinite(distance)]
    parts = ([f"the nearest errors lie {', '.join(near)} resolutions away"] if near else []) + (
        [f"{', '.join(beyond)} beyond any resolution"] if beyond else [])
    return opening + "; ".join(parts)
