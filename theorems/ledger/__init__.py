"""The claims ledger: every claim a number could settle in a paper's peer discussion, with who makes it, where, and
how this project stands on it.

A discussion (reviews, the authors' rebuttal, a meta-review) argues over claims of three kinds: the paper's own, the
authors' beyond the paper (an extension, a belief), a reviewer's. Each checkable claim is `checked` (a theorem, a
prediction, a mutant or a parameter point answers it: `Check`), `partly` checked (the `gap` is named) or `open` (not
yet encoded: `gap` says why, `proposal` how it would be checked). What no number can settle (real data sets and deep
nets not here, novelty, writing) is listed as `NotCheckable` with the reason, so nothing is dropped silently.

One module per discussed paper holds its `LEDGER`; `ledger(key)` finds it by the paper's key (`theorems.papers`).
The ledger says what is claimed and where it is checked; the verdicts come from running those checks.
"""

from __future__ import annotations

import importlib
import shlex
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Mapping

from theorems.errors import DeclarationError, UnknownName


class Who(StrEnum):
    """Who makes a claim in the discussion."""

    PAPER = "paper"  # the paper's own claim, as its abstract, a review or the rebuttal states it
    AUTHORS = "authors"  # the authors in their rebuttal, beyond the paper
    REVIEWER = "reviewer"
    META = "meta-review"


class Status(StrEnum):
    CHECKED = "checked"
    PARTLY = "partly checked"
    OPEN = "not yet encoded"


class Cost(StrEnum):
    """What checking a claim takes on two cores."""

    MINUTES = "minutes"
    LONGER = "tens of minutes, or needs care"
    UNREACHABLE = "needs data sets or hardware that are not here"


@dataclass(frozen=True)
class Check:
    """One place where this project checks a claim: a theorem, or one of its predictions, a named mutant, or the
    theorem at a parameter point."""

    theorem: str
    prediction: str = ""
    mutant: str = ""
    parameters: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def command(self) -> str:
        """The command that runs this check, quoted for a POSIX shell."""
        words = ["thmcheck", "check", self.theorem]
        words += [f"--param {shlex.quote(f'{name}={value}')}" for name, value in self.parameters.items()]
        words += [f"--mutant {self.mutant}"] if self.mutant else []
        return " ".join(words)

    def __str__(self) -> str:
        text = self.theorem + (f" {self.prediction}" if self.prediction else "")
        text += f" (mutant {self.mutant})" if self.mutant else ""
        points = ", ".join(f"{name}={value}" for name, value in self.parameters.items())
        return text + (f" at {points}" if points else "")


@dataclass(frozen=True)
class Claim:
    """A checkable claim of the discussion, in this project's words. `where` names the replies or items of the
    discussion that make it; `finding` is what the checks found, where that is a sentence and not just a verdict."""

    label: str
    claim: str
    who: tuple[Who, ...]
    where: str
    status: Status
    cost: Cost
    checks: tuple[Check, ...] = ()
    gap: str = ""
    proposal: str = ""
    finding: str = ""

    def __post_init__(self):
        if not self.who:
            raise DeclarationError(f"claim {self.label}: say who makes it")
        if self.status is Status.OPEN and (self.checks or not self.gap or not self.proposal):
            raise DeclarationError(f"claim {self.label}: an open claim has no checks, says why (gap) and how "
                                   "it would be checked (proposal)")
        if self.status is not Status.OPEN and not self.checks:
            raise DeclarationError(f"claim {self.label}: a {self.status} claim names its checks")
        if self.status is Status.PARTLY and not self.gap:
            raise DeclarationError(f"claim {self.label}: a partly checked claim names what is not covered (gap)")


@dataclass(frozen=True)
class NotCheckable:
    """A point of the discussion that no simulation here can settle, and why."""

    topic: str
    why: str


@dataclass(frozen=True)
class Ledger:
    """One paper's discussion: its parts (how `where` names them), the scale it gives for the paper's experiments,
    its checkable claims and what is not checkable."""

    paper: str
    document: str
    scale: str
    claims: tuple[Claim, ...]
    not_checkable: tuple[NotCheckable, ...]

    def __post_init__(self):
        labels = [claim.label for claim in self.claims]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise DeclarationError(f"ledger {self.paper}: claims {', '.join(repeated)} listed twice")

    def counts(self) -> dict[str, int]:
        """Claims by status, and the points that are not checkable."""
        counted = {status.value: sum(claim.status is status for claim in self.claims) for status in Status}
        return counted | {"not checkable": len(self.not_checkable)}

    def claim(self, label: str) -> Claim:
        for claim in self.claims:
            if claim.label == label:
                return claim
        raise UnknownName(f"{self.paper} has no claim {label!r}; its claims: "
                          f"{', '.join(c.label for c in self.claims)}")

    def checked_by(self, theorem_id: str) -> list[Claim]:
        """The claims this theorem checks, in whole or in part."""
        return [claim for claim in self.claims if any(check.theorem == theorem_id for check in claim.checks)]


# the discussed papers' keys and their modules
MODULES = {"ale2025": "ale2025", "jacot2025": "jacot2025", "demir-dogan2025": "demir_dogan2025",
           "min2024": "min2024", "zhou-ge2024": "zhou_ge2024"}


def ledger(key: str) -> Ledger:
    """The ledger of the paper with this key; a paper with no discussion here has none (the user's error)."""
    if key not in MODULES:
        raise UnknownName(f"paper {key!r} has no discussion ledger; the ledgers: {', '.join(MODULES)}")
    return importlib.import_module(f"theorems.ledger.{MODULES[key]}").LEDGER


def ledgers() -> list[Ledger]:
    return [ledger(key) for key in MODULES]


def has_ledger(key: str) -> bool:
    return key in MODULES
