"""A user's own theorem, checked by thmcheck: Stein's lemma E[Z sigma(Z)] = E sigma'(Z) = c_1.

Run it with `thmcheck --plugin examples/stein_plugin.py check stein-lemma`, or register it through
the `thmcheck.theorems` entry point of your package.
"""

import numpy as np

from checkers.checker import Checker
from checkers.stats import mean_estimate
from theorems.hermite import hermite_coefficients, second_moment
from theorems.statement import Constant, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

# The constant graph: each constant from the parameters or from constants declared before it. A --set or a
# mutant changes a constant, and thmcheck recomputes whatever depends on it.
CONSTANTS = (
    Constant.of_parameters("c1", lambda parameters, digits: hermite_coefficients(
        parameters["activation"], 1, digits=digits).quantity(1)),
    Constant.of_parameters("second_moment", lambda parameters, digits: second_moment(
        parameters["activation"], digits=digits)),
)


def predict_c1(instance):
    return Target.point(instance.constant("c1"))


THEOREM = Theorem(
    id="stein-lemma",
    title="Stein's lemma: E[Z sigma(Z)] = c_1",
    source="Stein (1981), Lemma 1",
    provenance="paper",
    statement="E[Z sigma(Z)] = E sigma'(Z) = c_1 for Z ~ N(0, 1)",
    parameters=(Parameter(name="activation", description="the activation sigma", kind="activation", default="tanh"),),
    assumptions=(),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="first-moment", kind="limit", statement="E[Z sigma(Z)] equals c_1", predict=predict_c1,
                   resolution=lambda instance: 0.03 * float(instance.constant("second_moment")) ** 0.5,
                   resolution_reason=ResolutionReason("nearest-error", "3% of sigma's scale sqrt(E sigma^2): "
                                                      "the mutant c1-five-percent-high lies under two resolutions "
                                                      "away for tanh")),
    ),
    mutants=(Mutant(name="c1-doubled", description="c_1 replaced by 2 c_1", constant_factors={"c1": 2.0}),
             Mutant(name="c1-five-percent-high", description="c_1 5% high, the near error (about 1.6 resolutions)",
                    constant_factors={"c1": 1.05})),
)


def read_first_moment(instance, budget, seed):
    """Plain Monte Carlo in 16 independent batches (seeded by thmcheck, batched in numpy)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((16, budget.scaled(4096)))
    batch_means = np.mean(z * instance["activation"](z), axis=1)
    return mean_estimate(batch_means, samples_per_replicate=z.shape[1], method="Monte Carlo x 16 batches")


CHECKER = Checker(theorem=THEOREM, simulation="E[Z sigma(Z)] by plain Monte Carlo in 16 batches",
                  readers={"first-moment": read_first_moment})
