"""The ridge errors after one giant step are those of Cui et al.'s spiked random features (Result 3.3)  [code].

Source: Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova and Loureiro, "Asymptotics of feature learning in two-layer
networks after one gradient step", ICML 2024 (arXiv 2402.04980), Result 3.3, in the form of the authors' code
(SPOC-group/OneStepGD_asymptotics, `theory.ipynb`). The paper's abstract says what is claimed of whom: Result 3.3
is "an exact asymptotic description" of the errors of the spiked random-features model (sRF), and that description
"captures closely" the network's learning curves. The p != d width ratio, the label noise and the training error
are this project's extensions, checked against simulations (docs/derivations/limits.md#giant-step).

Setting (`theorems.equivalence.srf_constants`): W_0 with unit Gaussian rows, a_0 = 1/sqrt(p), one step
W_1 = W_0 + eta~ p G^T on n_0 = alpha0 d samples; then, on n = alpha p fresh samples (sample splitting), the
readout a = argmin ||y - sigma(X W_1^T) a / sqrt(p)||^2 + lambda_C ||a||^2. The sRF at the step's (r, c, gamma)
replaces W_1 by sqrt(c) W_0 + r 1 v^T, with the teacher direction gamma v^ + rho theta_perp. As d, p, n, n_0 ->
infinity at fixed ratios, the sRF's test error E (sigma*(theta . x) - a . sigma(W x)/sqrt(p))^2 (noiseless teacher)
and training error (1/n) ||y - X a/sqrt(p)||^2 tend to Result 3.3's fixed-point values
(`theorems.equivalence.giant_step_oracle`) at the r, c, gamma of srf-constants; the network's lie within the
closeness the authors show for it.

Check, at three sizes d (p = (p/d) d), every reading extrapolated as L + B d^-e with e bounded in [1/2, 2] (around
the 1/d of a ridge error's finite-size correction):
- srf-test-error, srf-train-error [D]: the sRF's simulated errors against the limit values, each to 2% of it, so that
  the penalty's convention and the noise's place lie two resolutions away or more (paper fidelity resolves that);
- test-error, train-error [D]: the network's simulated errors (the test error with two control variates of the
  step) within the authors' closeness of the limit values, NETWORK_TEST_CLOSENESS and NETWORK_TRAIN_CLOSENESS
  (relative half-widths of a band); the gap itself and its trend in d are measured and reported;
- realized-test-error [D]: per draw, the network's test error over Result 3.3 evaluated on that draw's own W_1 (its
  r, c, gamma and spectrum), minus 1, against 0 (`realized_gap`, the statement's observable); it needs a spike
  (eta~ > 0).
Every reading is unresolved where Result 3.3's mean channel is not yet in its limit at d = 100: the mean feature's
noise-to-signal ratio or the ridge's shrinkage of it above 1/2. Resolutions, the mutants' moves and the errors too
near to be seen: docs/derivations/limits.md#giant-step.
"""

from __future__ import annotations

import functools

import mpmath

from theorems.activations import unbounded_derivative
from theorems.equivalence import srf_constants
from theorems.equivalence.giant_step_oracle import MarchenkoPastur, RealizedFeatures, limit_errors, realized_errors
from theorems.onestep import common as onestep
from theorems.quantity import Quantity
from theorems.statement import Constant, Instance, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

ACCURACY_DIGITS = 9  # the fixed point's relative accuracy is about 1e-10 (Gauss-Hermite 121 x 101, tolerance 1e-11)
# The sRF's limits are resolved to 2%, so that the nearest errors named lie two resolutions away or more: lambda_C in
# Ba's units moves the test error by +5.5% and the training error by -11.9%, the test error against the noisy label
# by +10.4%, the readout's noise left out the training error by -13.6% (docs/derivations/limits.md#giant-step). Only
# paper fidelity's draws resolve that; below it the sRF's readings are inconclusive (at default fidelity's last stage
# they detect about 5% and 6.7%). The realized gap's nearest errors lie at +3.5% and -5.2% (its prediction says which).
TEST_RESOLUTION = 0.02
TRAIN_RESOLUTION = 0.02
REALIZED_RESOLUTION = 0.04
# How close the paper claims the network to Result 3.3 ("captures closely", the abstract), as the authors' own
# simulations show it: their test errors sit 0.3-3.9% from the theory (Simulations.ipynb, d = p = 2000), their
# training losses 1.8-4.7% above this project's training-error formula (alpha = 1.6). A relative half-width each.
NETWORK_TEST_CLOSENESS = 0.04
NETWORK_TRAIN_CLOSENESS = 0.05
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


def _band(name: str, closeness: float):
    """The limit value's band of relative half-width `closeness`: where the network's limit is claimed to lie."""
    def predict(instance):
        value = instance.constant(name)
        return Target.around(value, closeness * value,
                             note=f"the network within {closeness:.0%} of the sRF's limit (the authors' simulations)")
    return predict


def _relative(name: str, fraction: float):
    return lambda instance: fraction * abs(float(instance.constant(name)))


def _network_applies(instance: Instance) -> str | None:
    """The network is claimed close to the sRF only where the first three derivatives of sigma are bounded: the
    hypothesis of the Gaussian-equivalence arguments that carry a network after one step to a Gaussian model (Ba et
    al.'s Assumption 1, as gaussian-equivalence and spike-outlier encode it), and the kind of activation (tanh) the
    authors' closeness was measured on. With He_3 (sigma' = 3 z^2 - 3, c = 33.7) the network's training error read
    12% below Result 3.3 at default fidelity while the sRF met it (docs/derivations/limits.md#giant-step)."""
    reason = unbounded_derivative(instance["activation"], 3)
    if reason is None:
        return None
    return f"the network's closeness to the sRF is claimed for bounded derivatives only: {reason}"


def _network_band(name: str, error: str, constant: str, closeness: float, evidence: str,
                  derived: bool = False) -> Prediction:
    """The network's error within `closeness` of Result 3.3's, as an interval. A band's test detects no better than
    its width (any limit inside it passes), so its resolution is a band's width beyond it: a network whose limit lies
    three times the authors' closeness from Result 3.3 must be seen. The gap itself, with its trend in d, is measured
    and reported beside the verdict, not absorbed into the band."""
    return Prediction(
        name=name, kind="limit",
        statement=f"the network's simulated {error}, extrapolated in d, lies within {closeness:.0%} of Result 3.3's "
                  f"{error}" + (" (derived)" if derived else ""),
        predict=_band(constant, closeness),
        resolution_reason=ResolutionReason("ours", f"{4 * closeness:.0%} of the limit, the band's width beyond the "
                                                   f"band: a limit {3 * closeness:.0%} from Result 3.3 is seen; the "
                                                   f"band is the authors' ({evidence})"),
        resolution=_relative(constant, 4 * closeness), applies=_network_applies)


def _realized_applies(instance: Instance) -> str | None:
    """Result 3.3 on a draw's own W_1 speaks of a spike: without one (no step, or mu1 = E sigma'(Z) = 0, as for
    He_3) the draw's r is its O(p^-1/2) fluctuation, and the mean channel never resolves it
    (docs/derivations/limits.md#giant-step, "The mean channel")."""
    cause = "eta = 0: no step" if float(instance["eta"]) == 0 else onestep.requires_coefficient(
        1, "mu1 = E sigma'(Z) = 0: the step has no rank-one part")(instance)
    if cause is None:
        return None
    return (f"{cause}, so no spike (r = 0); each draw's r is the O(p^-1/2) fluctuation of W_0's mean along v^, "
            "which Result 3.3's unregularized mean direction reads as signal at every size")


def realized_gap(instance: Instance, measured) -> float:
    """One network draw's test error (`test_error`) over Result 3.3 on its own first layer (`features`: its r, c,
    gamma and spectrum, at its readout's `sample_ratio`), with this version's penalty and noise, minus 1."""
    errors = realized_errors(instance["activation"], instance["teacher"], measured["features"],
                             sample_ratio=measured["sample_ratio"], ridge=float(instance.constant("solver_penalty")),
                             noise=float(instance.constant("readout_noise")))
    return measured["test_error"] / (errors.test_error + float(instance.constant("test_noise"))) - 1


def draw_at_the_limit(instance: Instance):
    """A draw whose first layer is the limit's (r, c, gamma and the Marchenko-Pastur spectrum) and whose test error
    is Result 3.3's there: the statement's gap is 0 on it, and a version with another penalty or noise is as far
    off as its Result 3.3 is."""
    features = RealizedFeatures(*(float(instance.constant(name)) for name in ("r", "c", "gamma")),
                                MarchenkoPastur(float(instance.constant("c")), float(instance["width_ratio"])))
    return {"at the limit": {"test_error": float(instance.constant("test_error")), "features": features,
                             "sample_ratio": float(instance["sample_ratio"])}}


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
    statement="ridge with n = alpha p samples on the spiked random features sigma(W x)/sqrt(p), W = sqrt(c) W_0 + "
              "r 1 v^T, has test and training errors -> Result 3.3's fixed point at Cui's r, c, gamma; on the "
              "network's sigma(W_1 x)/sqrt(p) after W_1 = W_0 + eta~ p G^T they lie within 4% and 5% of it",
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
        Prediction(name="srf-test-error", kind="limit",
                   statement="the spiked random-features model's simulated test error, extrapolated in d, -> Result "
                             "3.3's test error",
                   predict=_point("test_error"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2% of the limit: lambda_C in Ba's units (+5.5%) lies 2.75 "
                                                      "resolutions away and the test error taken against the noisy "
                                                      "label (+10.4%) 5.2; a 5% error in the formula 2.5"),
                   resolution=_relative("test_error", TEST_RESOLUTION)),
        Prediction(name="srf-train-error", kind="limit",
                   statement="the spiked random-features model's simulated training error, extrapolated in d, -> "
                             "Result 3.3's training error (leave-one-out form, derived)",
                   predict=_point("train_error"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2% of the limit, as the test error's: its nearest errors, "
                                                      "lambda_C in Ba's units (-11.9%) and the readout's noise left "
                                                      "out (-13.6%), lie 6 and 6.8 resolutions away"),
                   resolution=_relative("train_error", TRAIN_RESOLUTION)),
        _network_band("test-error", "test error", "test_error", NETWORK_TEST_CLOSENESS,
                      "the authors' simulations sit 0.3-3.9% from their theory, and the paper says the description "
                      "'captures closely' the network and is exact only for the sRF"),
        _network_band("train-error", "training error", "train_error", NETWORK_TRAIN_CLOSENESS,
                      "the authors' simulated training losses sit 1.8-4.7% above the formula, which the sRF meets",
                      derived=True),
        Prediction(name="realized-test-error", kind="limit",
                   statement="the network's test error / Result 3.3 on the draw's own W_1 - 1 -> 0, paired per "
                             "draw, extrapolated in d (derived)",
                   predict=lambda instance: Target.point(0, note="relative gap, against each draw's own W_1"),
                   observable=realized_gap, references=draw_at_the_limit,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "4%: lambda_C in Ba's units raises Result 3.3's test error by "
                                                      "5.5% and so moves the gap by -5.2%, 1.3 resolutions, the noisy "
                                                      "label (+10.4%) by -9.4%; the readout's noise left out (-3.4%) "
                                                      "moves it by +3.5%, 0.88 resolutions, too near to be seen here, "
                                                      "and is the sRF's training error's to reject (6.8 there)"),
                   resolution=lambda instance: REALIZED_RESOLUTION,
                   applies=_realized_applies),
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
    notes="Result 3.3 is read from the authors' code; the paper's abstract says it is exact for the sRF and close "
          "for the network, its p != d factors and whether it has a training-error formula are not confirmed. The "
          "network's gap to the limit is reported with its trend in d beside the band the authors' simulations set, "
          "not widened into it: about +2% to +3.5% of the test error over d = 100-400 "
          "(docs/derivations/limits.md#giant-step).",
)
