"""What `--fidelity paper` reads for each Monte Carlo check: the sizes it declares for its paper
(`Checker.paper_scale`), else its default sizes where they stand for its source's scale, else nothing yet, with the
scale its source reports.

A check's default sizes stand for its source's scale where the source reports no experiment in the statement's
setting (a statement derived here, an identity, a paper whose runs are on data this project cannot fetch) or where
default already draws at the source's sizes. Otherwise the source's scale is named and not offered: `check ID
--fidelity paper` refuses it, and `check --all --fidelity paper` runs the check at default and says so. An exact check
reads paper at default (`Checker.exact`). The table holds only what a source reports; it changes no draw, so it lives
apart from the checks, whose calibration records are keyed by their own modules.
"""

from __future__ import annotations

from dataclasses import dataclass

from checkers.budget import PAPER
from checkers.checker import Checker


@dataclass(frozen=True)
class SourceScale:
    """What a check's source reports of its experiments' sizes in the statement's setting (`reported`), and whether
    the check's default sizes stand for it (`default_stands`)."""

    reported: str
    default_stands: bool


_MIN = ("Min, Mallada and Vidal's runs train h = 50 neurons from a 1e-6 initialization on two MNIST digits, data not "
        "available offline; the statement is derived here, on the reference data")
_JACOT = ("Jacot et al. report no sizes for this setting (their Fig. 1, 5 runs of a 9-layer MLP on MNIST, is "
          "qualitative and on data not available offline)")
_ALE = ("the ALE submission and its discussion give no n, d or N (its two-layer metrics average 30 seeds); the check "
        "uses Ba et al.'s regression setting")
_BA_DERIVED = "derived here from Ba et al.'s Proposition 2, for which the paper reports no experiment"
_IDENTITY = "an identity between Gaussian integrals, with no experiment in its sources; the draws test the closed form"
_MIXTURE_CODE = ("the replies give no sizes; Demir and Dogan's code draws its figures at n = m = k = 1000 over 20 "
                 "runs, and default reads n = m = k = 250, a constant of the statement (at 1000 it is another "
                 "statement: measured there, the claim holds and its near mutant moves less, "
                 "docs/derivations/equivalence.md)")

SOURCE_SCALES: dict[str, SourceScale] = {
    "alignment-time-flat": SourceScale(_MIN, True),
    "unbalanced-imbalance": SourceScale(_MIN, True),
    "balanced-collapse": SourceScale(_JACOT, True),
    "balancedness-recurrence": SourceScale(_JACOT, True),
    "collapse-training": SourceScale(_JACOT, True),
    "cohesion-separability": SourceScale(_ALE, True),
    "elasticity-leading-coefficient": SourceScale(_ALE, True),
    "elasticity-monotone": SourceScale(_ALE, True),
    "elasticity-polynomial": SourceScale(_ALE, True),
    "elasticity-projection": SourceScale(_ALE, True),
    "elasticity-reference": SourceScale(_ALE, True),
    "dual-kernel": SourceScale(_IDENTITY, True),
    "population-loss": SourceScale(_IDENTITY, True),
    "spike-alignment": SourceScale(_BA_DERIVED, True),
    "spike-strength": SourceScale(_BA_DERIVED, True),
    "subspace-spike": SourceScale(_BA_DERIVED, True),
    "spike-decomposition": SourceScale(
        "Ba et al. report no experiment on Proposition 2's rate (their Fig. 2, at d = 512, illustrates a trajectory); "
        "default reads n up to 1600", True),
    "large-step-beats-linear": SourceScale(
        "Ba et al.'s Fig. 3 draws at d = 512 (50 runs); default reads d = 128, 256 and 512", True),
    "spike-count": SourceScale(
        "Moniri et al.'s sizes are not recorded in this project's sources; default counts the outliers at n = 2000",
        True),
    "hermite-equivalence": SourceScale(
        "derived here after Moniri et al., whose sizes are not recorded in this project's sources", True),
    "mixture-means": SourceScale(_MIXTURE_CODE, False),
    "mixture-coefficient-class": SourceScale(_MIXTURE_CODE, False),
}


def paper_fidelity(checker: Checker) -> str | None:
    """The fidelity that `--fidelity paper` runs `checker` at: paper where it declares its paper's sizes, default
    where it is exact or its default sizes stand for its source's scale, None where its source's scale is not
    offered yet."""
    if checker.paper_scale:
        return PAPER
    scale = SOURCE_SCALES.get(checker.id)
    if checker.exact or (scale is not None and scale.default_stands):
        return "default"
    return None


def paper_scale_words(checker: Checker) -> str:
    """What paper fidelity reads for `checker`, in words that follow "at paper fidelity": its paper's sizes, or its
    default and why that stands for its source's scale, or that it is not offered and the source's scale it lacks."""
    if checker.paper_scale:
        return f"its paper's sizes, {checker.paper_scale}"
    if checker.exact:
        return "default, as an exact check's verdict does not sharpen with sizes"
    scale = SOURCE_SCALES.get(checker.id)
    if scale is None:
        return "not offered: the check declares no paper scale"
    if scale.default_stands:
        return f"default, whose sizes stand for its source's scale: {scale.reported}"
    return f"not offered, short of its source's scale: {scale.reported}"
