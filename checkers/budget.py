"""How hard a check looks and what one command may plan: fidelities, budgets, the false-fail rate, the task cap.

Importable without numerics, so that the command line can offer these choices before anything heavy loads.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TASKS = 100_000  # the most tasks one sweep plans: each is a check of seconds to minutes, and held in memory

DEFAULT_FALSE_FAIL_RATE = 1e-6
DEFAULT_SEEDS = 20  # seeds per version of a calibration that does not say

# The longest a check (or a task of a sweep) may be estimated to take on this machine before it is refused, and the
# longest a Hermite table's quadrature may; `--max-minutes` lifts either. An estimate above ANNOUNCE_SECONDS is
# printed before the work starts.
MAX_CHECK_MINUTES = 240
MAX_HERMITE_MINUTES = 10
ANNOUNCE_SECONDS = 60


@dataclass(frozen=True)
class Fidelity:
    """How hard to look. `level` scales each checker's base budget; `stages` bounds the sequential design."""

    name: str
    level: int
    stages: int


# "paper" is the papers' own scale (sizes in the thousands): only a check that declares what that is for it offers it
# (`Checker.paper_scale`); the others refuse it, since their budgets at that level were never planned
FIDELITIES = {
    "quick": Fidelity("quick", 0, 2),
    "default": Fidelity("default", 2, 3),
    "high": Fidelity("high", 4, 4),
    "paper": Fidelity("paper", 6, 2),
}
PAPER = "paper"


@dataclass(frozen=True)
class Budget:
    """The sample budget of one observation: fidelity level plus sequential stage."""

    fidelity: Fidelity
    stage: int

    @property
    def level(self) -> int:
        return self.fidelity.level + self.stage

    def scaled(self, base: int, factor: float = 2) -> int:
        """`base` times factor^level, rounded: the budget doubles (by default) per level. A factor between 1 and 2
        (sqrt 2 doubles every two levels, 2^(1/3) every three) grows it more slowly and still at every level, which
        2^(level // 2) or 2^(level // 3) would not: a stage that redraws at the previous stage's budget adds no power
        and spends its share of the false-fail rate on a second roll. A factor of 1 or less is refused."""
        if factor <= 1:
            raise ValueError(f"a budget must grow from level to level, not by a factor {factor}")
        return round(base * factor**self.level)

    def doubled_per_stage(self, base: int) -> int:
        """`base` times 2^(fidelity level // 2 + stage): 1 and 2 times it at quick, 2, 4 and 8 at default, 4 to 32 at
        high. For a check whose first stage at a fidelity is sized to be just short of resolving, so that its next
        stage must double (a sqrt 2 step would leave it short), while each fidelity still starts from a sqrt 2 per
        level budget."""
        return base * 2 ** (self.fidelity.level // 2 + self.stage)
