"""The ridge errors after one giant step are those of Cui et al.'s spiked random features (Result 3.3)  [code].

Source: Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova and Loureiro, "Asymptotics of feature learning in two-layer
networks after one gradient step", ICML 2024 (arXiv 2402.04980), Result 3.3, in the form of the authors' code
(SPOC-group/OneStepGD_asymptotics, `theory.ipynb`); the paper's own statement was not read. The width ratio
p != d, the label noise and the training error are this project's extensions, checked against simulations
(docs/derivations/limits.md#giant-step).

Setting (`theorems.equivalence.srf_constants`): W_0 with unit Gaussian rows, a_0 = 1/sqrt(p), one step
W_1 = W_0 + eta~ p G^T on n_0 = alpha0 d samples; then, on n = alpha p fresh samples (sample splitting), the
readout a = argmin ||y - sigma(X W_1^T) a / sqrt(p)||^2 + lambda_C ||a||^2. As d, p, n, n_0 -> infinity at fixed
ratios, the test error E (sigma*(theta . x) - a . sigma(W_1 x)/sqrt(p))^2 (noiseless teacher) and the training
error (1/n) ||y - X a/sqrt(p)||^2 tend to Result 3.3's fixed-point values (`theorems.equivalence.giant_step_oracle`)
at the r, c, gamma of srf-constants.

Check, at three sizes d (p = (p/d) d):
- test-error: the simulated test error (with two control variates of the step), extrapolated in 1/d, against
  the limit value. Resolution 5% of it. Reason: the authors' own simulations (Simulations.ipynb, d = p = 2000)
  sit 0.3-3.9% from their theory, and this project's measure up to 3.5% above it at finite alpha0
  (docs/derivations/limits.md#giant-step), a gap of the spiked-random-features model itself that is not known to
  vanish at fixed alpha0. 5% resolves the nearest named error, the test error taken against the noisy label
  (+10.4% at the defaults), with one resolution to spare.
- train-error [D]: the same for the training error. Resolution 6% of it: the nearest named errors, lambda_C given
  in Ba's units (-11.9%) and the readout's label noise left out (-13.6%), lie two resolutions away; the training
  error spreads more from draw to draw than the test error (12% per draw at d = 200 against 8%).
- realized-test-error [D]: per draw, the simulated test error over Result 3.3 evaluated on that draw's own W_1
  (its r, c, gamma and spectrum) minus 1, extrapolated in 1/d, against 0. Resolution 3%: with the draw's spectrum
  the per-draw spread halves and the p != d bias goes; the remaining gap measured at d = 1000 is under 2%.
The mutants, with their move of (test, train) error at the defaults: the test error against the noisy label
(+10.4%, 0), lambda in Ba's units (+5.5%, -11.9%), the readout's noise left out (-3.4%, -13.6%), no spike
(+104%, +96%), the sample ratio misplaced (+119%, +130%), the spike not aligned with the teacher (+177%, +209%).
Nearer errors cannot be seen at these resolutions and are not claimed: E sigma'^2 for Var sigma' in c (+4.2%,
-3.8%), c = 1 (-0.9%, +2.6%).
"""

from __future__ import annotations

import functools

import mpmath

from theorems.equivalence import srf_constants
from theorems.equivalence.giant_step_oracle import limit_errors
from theorems.hermite import Quantity
from theorems.statement import Constant, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

ACCURACY_DIGITS = 9  # the fixed point's relative accuracy is about 1e-10 (Gauss-Hermite 121 x 101, tolerance 1e-11)
TEST_RESOLUTION = 0.05
TRAIN_RESOLUTION = 0.06
REALIZED_RESOLUTION = 0.03
SOLVER_INPUTS = ("r", "c", "gamma", "solver_penalty", "readout_noise", "test_noise")


def _solved(parameters, dependencies, digits):
    """(test error, training error) of Result 3.3 at these inputs: one fixed point serves both constants."""
    values = tuple(float(dependencies[name]) for name in SOLVER_INPUTS)
    return _fixed_point(parameters["activation"], parameters["teacher"], float(parameters["width_ratio"]),
                        float(parameters["sample_ratio"]), *values)


@functools.lru_cache(maxsize=64)
def _fixed_point(sigma, teacher, width_ratio, sample_ratio, r, c, gamma, solver_penalty, readout_noise, test_noise):
    errors = limit_errors(sigma, teacher, spike=r, inflation=c, overlap=gamma, width_ratio=width_ratio,
                          sample_ratio=sample_ratio, ridge=solver_penalty, noise=readout_noise)
    return errors.test_error + test_noise, errors.train_error


def _error(name: str, index: int) -> Constant:
    return Constant(name=name, depends_on=SOLVER_INPUTS,
                    derive=lambda parameters, dependencies, digits: Quantity(
                        name=name, value=mpmath.mpf(_solved(parameters, dependencies, digits)[index]),
                        route="float64", digits=min(digits, ACCURACY_DIGITS)),
                    description=f"Result 3.3's {name.replace('_', ' ')} (float64 fixed point, about "
                                f"{ACCURACY_DIGITS} digits)")


# the mutants' versions: lambda_Ba = lambda_C p/n given where lambda_C is meant (the pitfall of four ridge
# conventions), and the test error taken against the noisy label
PENALTY_IN_BA_UNITS = Constant.formula("solver_penalty", (), lambda lam, ratio: lam / ratio,
                                       parameters=("penalty", "sample_ratio"))
NOISE_IN_TEST = Constant.formula("test_noise", (), lambda s: s**2, parameters=("noise",))

CONSTANTS = (
    *srf_constants.CONSTANTS,
    Constant.formula("solver_penalty", (), lambda lam: lam, parameters=("penalty",),
                     description="lambda_C, the readout's ridge in Cui's normalization"),
    Constant.formula("readout_noise", (), lambda s: s, parameters=("noise",),
                     description="the label noise of the readout's training samples (its training channel)"),
    Constant.exactly("test_noise", 0, "what the test error adds for label noise: none, it is against the noiseless "
                                      "teacher"),
    _error("test_error", 0),
    _error("train_error", 1),
)


def _point(name: str):
    return lambda instance: Target.point(instance.constant(name))


def _relative(name: str, fraction: float):
    return lambda instance: fraction * abs(float(instance.constant(name)))


def _srf_mutant(**options):
    return {name: srf_constants.mutant_constant(name, **options) for name in ("r", "c", "gamma")}


THEOREM = Theorem(
    id="giant-step-risk",
    title="Ridge after one giant step has the test and training errors of Cui et al.'s spiked random features",
    source="Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova and Loureiro, 'Asymptotics of feature learning in two-layer "
           "networks after one gradient step', ICML 2024 (arXiv 2402.04980), Result 3.3, as in the authors' code "
           "SPOC-group/OneStepGD_asymptotics (theory.ipynb); p != d, noise and training error "
           "docs/derivations/limits.md#giant-step",
    provenance="code",
    statement="after W_1 = W_0 + eta~ p G^T, ridge on sigma(W_1 x)/sqrt(p) with n = alpha p samples has test and "
              "training errors -> Result 3.3's fixed point at Cui's r, c, gamma",
    parameters=(
        *srf_constants.THEOREM.parameters[:2],
        Parameter(name="noise", description="standard deviation of the label noise (step and readout)", kind="real",
                  default="0.1", lower=0.0, upper=10.0),
        *srf_constants.THEOREM.parameters[3:],
        Parameter(name="penalty", description="lambda_C in ||y - X a/sqrt(p)||^2 + lambda_C ||a||^2", kind="real",
                  default="0.1", lower=1e-4, upper=1e3),
        Parameter(name="sample_ratio", description="alpha = n/p, readout samples per neuron", kind="real",
                  default="2", lower=0.1, upper=20.0),
        Parameter(name="width_ratio", description="p/d, neurons per dimension", kind="real", default="1",
                  lower=0.25, upper=4.0),
    ),
    assumptions=srf_constants.THEOREM.assumptions,
    constants=CONSTANTS,
    predictions=(
        Prediction(name="test-error", kind="limit",
                   statement="the simulated test error, extrapolated in 1/d, -> Result 3.3's test error",
                   predict=_point("test_error"),
                   resolution_reason=ResolutionReason("paper",
                                                      "5% of the limit: the authors' own simulations "
                                                      "(Simulations.ipynb, d = p = 2000) match the limit to about "
                                                      "that; the test error taken against the noisy label (+10.4%) "
                                                      "lies two resolutions away"),
                   resolution=_relative("test_error", TEST_RESOLUTION)),
        Prediction(name="train-error", kind="limit",
                   statement="the simulated training error, extrapolated in 1/d, -> Result 3.3's training error "
                             "(leave-one-out form, derived)",
                   predict=_point("train_error"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "6% of the limit: lambda_C given in Ba's units (-11.9%) and "
                                                      "the readout's noise left out (-13.6%) lie two resolutions "
                                                      "away"),
                   resolution=_relative("train_error", TRAIN_RESOLUTION)),
        Prediction(name="realized-test-error", kind="limit",
                   statement="test error / Result 3.3 on the draw's own W_1 - 1 -> 0, paired per draw, "
                             "extrapolated in 1/d (derived)",
                   predict=lambda instance: Target.point(0, note="relative gap; resolution 0.03, the measured "
                                                         "finite-size gap at d = 1000 being under 0.02"),
                   resolution_reason=ResolutionReason("affordable",
                                                      "3%: with each draw's own spectrum the remaining gap measured "
                                                      "at d = 1000 is under 2%, so 3% is what the sizes afford; a "
                                                      "nearer error is not rejected"),
                   resolution=lambda instance: REALIZED_RESOLUTION),
    ),
    mutants=(
        Mutant(name="noise-in-test-error", description="the test error taken against the noisy label",
               constants={"test_noise": NOISE_IN_TEST}),
        Mutant(name="penalty-in-ba-units", description="lambda_Ba = lambda_C p/n given where lambda_C is meant",
               constants={"solver_penalty": PENALTY_IN_BA_UNITS}),
        Mutant(name="noise-left-out-of-readout", description="the readout's training labels taken noiseless",
               constant_factors={"readout_noise": 0}),
        Mutant(name="no-spike", description="the spike r left out of the features (r = 0)",
               constant_factors={"r": 0}),
        Mutant(name="ratio-misplaced", description="alpha0 multiplying E[y^2] in r, c, gamma instead of dividing it",
               constants=_srf_mutant(ratio_in_numerator=True)),
        Mutant(name="spike-not-aligned", description="the spike taken orthogonal to the teacher (gamma = 0)",
               constant_factors={"gamma": 0}),
    ),
    notes="Result 3.3 is read from the authors' code; the paper's statement, its p != d factors and whether it has "
          "a training-error formula are not confirmed. The network sits up to 3.5% above the limit at finite "
          "alpha0 (p = 2d): an approximation of the spiked model that may vanish only as alpha0 grows (Dandi et "
          "al., arXiv 2410.18938). At the defaults the check measures +2.2 +- 0.6% (test) and +2.6 +- 0.8% (train) "
          "after extrapolation: it passes at default fidelity, and high fidelity would reject the limit values if "
          "that gap stays; the realized variant (-0.3 +- 0.4%) is the sharper claim.",
)
