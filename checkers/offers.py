"""What a check offers before it runs: its fidelities, its backends and its estimated cost, each refused as bad input
where the check lacks it, with the checks that offer it named from the registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers import arrays, registry
from checkers.budget import FIDELITIES, PAPER, Fidelity
from checkers.checker import Checker
from checkers.cost import Estimate, estimate, refusal
from checkers.paper_scales import paper_fidelity, paper_scale_words
from theorems.errors import InvalidInput, WorkRefused


def fidelity_for(checker: Checker, name: str) -> Fidelity:
    """The fidelity `name` for `checker`, where paper is what `checkers.paper_scales.paper_fidelity` says (default for
    an exact check and for one whose default sizes stand for its source's scale); bad input where there is none by
    that name, or where it is paper and the check does not reach its source's scale yet."""
    if name not in FIDELITIES:
        raise InvalidInput(f"fidelity must be one of {', '.join(FIDELITIES)}, got {name!r}")
    if name != PAPER:
        return FIDELITIES[name]
    reading = paper_fidelity(checker)
    if reading is None:
        raise InvalidInput(f"{checker.id} at paper fidelity: {paper_scale_words(checker)} (`thmcheck check --all "
                           f"--fidelity paper` runs it at default and says so)")
    return FIDELITIES[reading]


def backend_for(checker: Checker, name: str) -> str:
    """The backend `name` for `checker`; bad input where it is unknown or not installed, or where the check's
    simulation runs on numpy only."""
    arrays.require(name)
    if name != arrays.DEFAULT and not checker.array_api:
        offered = [other.id for other in registry.all_checkers() if other.array_api]
        raise InvalidInput(f"{checker.id} runs on numpy only; backend {name} is offered by {', '.join(offered)}")
    return name


def estimated(checker: Checker, parameters: Mapping[str, Any] | None = None, *, fidelity: str = "default",
              mutant: str | None = None, max_minutes: float | None = None,
              max_memory: float | None = None) -> Estimate | None:
    """A check's time on one core here at these parameters (`checkers.cost.estimate`), before any draw; None where
    it neither declares a cost nor has a record. With `max_minutes`, a check whose most is beyond it, or whose peak
    memory is beyond `max_memory` GiB (where given) or the memory available, is refused (`WorkRefused`), as the check
    itself would refuse it. Bad parameters raise `InvalidInput`, as the check would."""
    given = dict(parameters or {})
    parameters = checker.theorem.mutant_parameters(mutant, given) if mutant is not None else given
    found = estimate(checker, checker.theorem.instance(parameters), fidelity_for(checker, fidelity))
    what = f"{checker.id} at {', '.join(f'{k}={v}' for k, v in given.items())}" if given else checker.id
    if found is not None and max_minutes is not None and \
            (reason := refusal(what, found, 60 * max_minutes, max_memory)):
        raise WorkRefused(reason)
    return found
