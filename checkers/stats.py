"""Calibrated comparisons: every stochastic test states its false-fail rate and its resolving power.

Contents
--------
Estimates:     `Estimate` (mean, standard error, degrees of freedom, sample count), `mean_estimate`,
               `pooled_mean` (independent estimates of one quantity, pooled by inverse variance, systematic
               bounds included), `product_limit` (the limit of a product of two ratios read apart),
               `welch_freedom` (the degrees of freedom of a sum of estimated error terms)
Comparisons:   `compare_to_target` (an estimate vs a predicted interval, t-test at a stated false-fail
               rate, with its `allowance`), `compare_exact` (a deterministic value vs the interval), `Comparison`
Power:         `critical_value`, `detectable_discrepancy` (the smallest discrepancy found with
               probability `power`), `samples_needed` (how many samples make it smaller than a target)
Error budget:  `split_false_fail_rate` (Bonferroni across predictions and sequential stages)
Rates:         `fit_rate` (log-log least squares across sizes; exponent with a t confidence interval)

Conventions: a test "fails" (rejects the prediction) when the estimate lies farther from the
predicted interval [lower, upper] than critical * standard_error plus its allowance (the estimate's
`systematic` bound and float64 round-off), where `critical` is the two-sided Student-t quantile at the
false-fail rate. If the prediction is true, the estimate's bias is within its allowance and its standard
error is right, that happens with probability at most the false-fail rate. A test that does not fail
"passes" only if it could have seen a discrepancy of size `resolution`, allowance included; otherwise it
is "inconclusive".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from checkers.outcome import FAIL, INCONCLUSIVE, PASS

# the relative accuracy of a float64 simulation's observable: unit round-off (1.1e-16) accumulated over the up to
# ~1e4 operations behind one value. Below it a standard error measures rounding, not sampling: draws that agree
# to round-off (srf-constants' bulk at eta = 0 is 1 on every draw) have a standard error near 1e-17 and a mean
# a few 1e-16 off, which a test at that standard error would call a failure.
ROUND_OFF = 1e-12


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate: `value` with `standard_error` on `degrees_of_freedom`, from `samples`.

    `systematic` bounds a bias of `value` that the standard error does not cover: the spread of the limits of
    the finite-size models that the sizes accept (`checkers.convergence.bounded_extrapolation`). A comparison
    adds it to what it allows before failing and to what it can detect before passing. An estimate of a claim made
    at several sizes at once carries one estimate per size (`parts`, `at_every_size`), and its own numbers are those
    of the part nearest to failing."""

    value: float
    standard_error: float
    degrees_of_freedom: float
    samples: int
    method: str = ""
    systematic: float = 0.0
    parts: tuple["Estimate", ...] = ()


def _least_studentized(parts) -> int:
    """The index of the part with the least value over standard error."""
    return min(range(len(parts)), key=lambda index: parts[index].value / parts[index].standard_error
               if parts[index].standard_error > 0 else math.copysign(math.inf, parts[index].value))


def at_every_size(parts, method: str = "") -> Estimate:
    """One estimate of a claim made at each of several sizes, from each size's own estimate: a test compares every
    part at its share of the false-fail rate (Bonferroni), fails where one part fails and passes where all pass.
    Its value, standard error and degrees of freedom are those of the part with the least studentized value (for a
    margin, the least evidence that it is positive)."""
    parts = tuple(parts)
    if len(parts) < 2:
        raise ValueError("a claim at every size needs at least two sizes")
    least = parts[_least_studentized(parts)]
    return Estimate(least.value, least.standard_error, least.degrees_of_freedom, sum(p.samples for p in parts),
                    method, least.systematic, parts)


def mean_estimate(replicates: np.ndarray, *, samples_per_replicate: int = 1, method: str = "") -> Estimate:
    """Mean of independent replicate values, with its standard error on (R - 1) degrees of freedom."""
    replicates = np.asarray(replicates, dtype=np.float64)
    if replicates.ndim != 1 or replicates.size < 2:
        raise ValueError("need at least two independent replicates for a standard error")
    count = replicates.size
    return Estimate(float(replicates.mean()), float(replicates.std(ddof=1) / math.sqrt(count)),
                    float(count - 1), int(count * samples_per_replicate), method)


def pooled_mean(values, standard_errors, systematic=None) -> tuple[float, float, float]:
    """(mean, its sampling standard error, chi-square of the values around it on their standard errors) of
    independent estimates of one quantity, each weighted by 1/(se^2 + systematic^2).

    Without systematic bounds this is the inverse-variance mean. With them, an estimate whose reading could be off
    by its bound (an extrapolation read at an exponent its sizes only bound) cannot outweigh the others through a
    small standard error. The weights are then not 1/se^2, so the standard error is that of the weighted mean,
    sqrt(sum w^2 se^2)/sum w: sampling only, since a model's bound shared by the estimates does not average away."""
    values, errors = np.asarray(values, dtype=np.float64), np.asarray(standard_errors, dtype=np.float64)
    bounds = np.zeros_like(errors) if systematic is None else np.asarray(systematic, dtype=np.float64)
    weights = 1.0 / (errors**2 + bounds**2)
    mean = float(np.sum(weights * values) / np.sum(weights))
    error = float(np.sqrt(np.sum(weights**2 * errors**2)) / np.sum(weights))
    return mean, error, float(np.sum((values - mean) ** 2 / errors**2))


def product_limit(first: Estimate, second: Estimate, method: str) -> Estimate:
    """The limit (1 + L_1)(1 + L_2) - 1 of a product of two ratios whose limits were read apart, from the same
    draws. Whatever their correlation, the standard error is at most (1 + |L_2|) se_1 + (1 + |L_1|) se_2 (the two
    first-order terms added, not in quadrature), and the systematic bound is the worst case of the two bounds:
    (1 + |L_2|) b_1 + (1 + |L_1|) b_2 + b_1 b_2. The degrees of freedom are Welch and Satterthwaite's for the two
    terms, so a factor read almost exactly on few draws does not set them."""
    first_term = (1 + abs(second.value)) * first.standard_error
    second_term = (1 + abs(first.value)) * second.standard_error
    value = (1 + first.value) * (1 + second.value) - 1
    systematic = ((1 + abs(second.value)) * first.systematic + (1 + abs(first.value)) * second.systematic
                  + first.systematic * second.systematic)
    freedom = welch_freedom((first_term, second_term), (first.degrees_of_freedom, second.degrees_of_freedom))
    freedom = min(first.degrees_of_freedom, second.degrees_of_freedom) if freedom is None else freedom
    return Estimate(value, first_term + second_term, float(freedom), min(first.samples, second.samples), method,
                    systematic)


def welch_freedom(terms, freedoms) -> float | None:
    """Welch and Satterthwaite's degrees of freedom of a sum of independent error terms, each a standard error
    estimated on its own degrees of freedom (inf where known exactly): (sum t_i^2)^2 / sum t_i^4 / nu_i. None where
    no term carries an estimated spread (every nu_i infinite, or every t_i zero)."""
    spread = sum(term**4 / freedom for term, freedom in zip(terms, freedoms))
    return sum(term**2 for term in terms) ** 2 / spread if spread > 0 else None


def control_variate_estimate(replicates: np.ndarray, controls: np.ndarray, *, method: str = "") -> Estimate:
    """Mean of `replicates` with regression control variates `controls` (one column each, or a vector), whose
    exact means are 0: the mean of y_i - c_i . b, with b fitted by least squares on the same replicates. The
    standard error is the residual one, on R - 1 - k degrees of freedom (k controls). The bias from fitting b
    is O(1/R)."""
    replicates = np.asarray(replicates, dtype=np.float64)
    controls = np.asarray(controls, dtype=np.float64)
    controls = controls[:, None] if controls.ndim == 1 else controls
    count, number = controls.shape
    if replicates.shape != (count,) or count < number + 3:
        raise ValueError("need paired replicates and controls, at least k + 3 of them")
    centred = controls - controls.mean(axis=0)
    slope = np.linalg.lstsq(centred, replicates - replicates.mean(), rcond=None)[0]
    adjusted = replicates - controls @ slope
    residual = adjusted - adjusted.mean()  # the residuals about the fitted plane
    error = math.sqrt(float(residual @ residual) / (count - 1 - number) / count)
    return Estimate(float(adjusted.mean()), error, float(count - 1 - number), int(count), method)


# Student's t, the normal and chi-square tails through scipy.special, the functions scipy.stats calls for them (its
# import alone takes longer than a quick check's start): sf = upper tail, isf its inverse.
def _normal_sf(x: float) -> float:
    return float(scipy.special.ndtr(-x))


def _normal_isf(q: float) -> float:
    return float(-scipy.special.ndtri(q))


def _t_sf(x: float, degrees_of_freedom: float) -> float:
    return _normal_sf(x) if math.isinf(degrees_of_freedom) else float(scipy.special.stdtr(degrees_of_freedom, -x))


def _t_isf(q: float, degrees_of_freedom: float) -> float:
    return _normal_isf(q) if math.isinf(degrees_of_freedom) else float(-scipy.special.stdtrit(degrees_of_freedom, q))


def _chi2_sf(x: float, degrees_of_freedom: float) -> float:
    return float(scipy.special.chdtrc(degrees_of_freedom, x))


def _f_sf(x: float, numerator_freedom: float, denominator_freedom: float) -> float:
    """Upper tail of Fisher's F; chi-square over its degrees of freedom where the denominator's are infinite."""
    if math.isinf(denominator_freedom):
        return _chi2_sf(x * numerator_freedom, numerator_freedom)
    return float(scipy.special.fdtrc(numerator_freedom, denominator_freedom, x))


def split_false_fail_rate(total: float, parts: int) -> float:
    """Bonferroni: each of `parts` tests gets total/parts, so the family's rate is at most `total`."""
    if not 0 < total < 1:
        raise ValueError(f"false-fail rate must lie in (0, 1), got {total}")
    return total / max(1, parts)


def critical_value(false_fail_rate: float, degrees_of_freedom: float = math.inf) -> float:
    """Two-sided critical value of Student's t (normal when degrees_of_freedom is infinite)."""
    return _t_isf(false_fail_rate / 2, degrees_of_freedom)


def detectable_discrepancy(standard_error: float, degrees_of_freedom: float, false_fail_rate: float,
                           *, power: float = 0.9) -> float:
    """Smallest distance from the predicted interval that the test detects with probability `power`."""
    critical = critical_value(false_fail_rate, degrees_of_freedom)
    beta = float(scipy.special.ndtri(power) if math.isinf(degrees_of_freedom)
                 else scipy.special.stdtrit(degrees_of_freedom, power))
    return (critical + beta) * standard_error


def rejection_power(shift: float, standard_error: float, degrees_of_freedom: float, false_fail_rate: float) -> float:
    """Probability that the two-sided test at `false_fail_rate` rejects when the observable's mean lies `shift`
    outside the tested interval: P(|T + shift/se| > critical), T Student's t (normal when the degrees of freedom
    are infinite). This is the power against a version whose prediction lies `shift` away."""
    if standard_error <= 0:
        return 1.0 if shift > 0 else 0.0
    critical = critical_value(false_fail_rate, degrees_of_freedom)
    return beyond_either_side(critical, shift / standard_error, degrees_of_freedom)


def power_beyond(shift: float, estimate: Estimate, lower: float, upper: float, false_fail_rate: float) -> float:
    """The power of the test of `estimate` against [lower, upper] at `false_fail_rate` against a version whose mean
    lies `shift` beyond the interval: `rejection_power` after the bias the test allows (`allowance`), which may pull
    the reading back toward the interval."""
    return rejection_power(max(shift - allowance(estimate, lower, upper), 0.0), estimate.standard_error,
                           estimate.degrees_of_freedom, false_fail_rate)


def beyond_either_side(threshold: float, centre: float, degrees_of_freedom: float) -> float:
    """P(|centre + T| > threshold), T Student's t on the degrees of freedom (normal where they are infinite)."""
    return _t_sf(threshold - centre, degrees_of_freedom) + _t_sf(threshold + centre, degrees_of_freedom)


def samples_needed(standard_deviation: float, resolution: float, false_fail_rate: float,
                   *, power: float = 0.9) -> int:
    """Samples n such that a discrepancy `resolution` is detected with probability `power`, for iid
    samples of the given standard deviation (normal approximation: grows like log(1/rate))."""
    if resolution <= 0:
        raise ValueError("resolution must be positive")
    z_sum = _normal_isf(false_fail_rate / 2) + float(scipy.special.ndtri(power))
    return max(2, math.ceil((z_sum * standard_deviation / resolution) ** 2))


@dataclass(frozen=True)
class Comparison:
    """The outcome of one prediction's test, with the numbers behind it."""

    outcome: str
    distance: float          # how far the observation lies outside the predicted interval (0 inside)
    statistic: float         # distance / standard error (inf for a deterministic miss)
    p_value: float
    critical: float
    detectable: float        # smallest discrepancy this test could detect (power 0.9)
    false_fail_rate: float


def allowance(estimate: Estimate, lower: float, upper: float) -> float:
    """The bias a test of `estimate` against [lower, upper] allows before failing: the estimate's `systematic`
    bound plus float64 round-off, ROUND_OFF relative to the larger of 1 and the predicted interval's finite ends
    (a stated accuracy of the predicted quantity, not a share of what was observed)."""
    scale = max([1.0] + [abs(end) for end in (lower, upper) if math.isfinite(end)])
    return estimate.systematic + ROUND_OFF * scale


def distance_outside(value, lower, upper):
    """How far `value` lies outside [lower, upper]: 0 inside."""
    return max(lower - value, value - upper, 0.0)


def compare_to_target(estimate: Estimate, lower: float, upper: float, *, false_fail_rate: float,
                      resolution: float, power: float = 0.9, strict: bool = False) -> Comparison:
    """Test whether a Monte Carlo estimate is consistent with the predicted interval [lower, upper]. Its
    `allowance` (systematic bound and round-off) widens the interval it is tested against (a bias up to it is
    no evidence) and adds to the smallest discrepancy it can detect. A `strict` target (lower, inf), a strict
    inequality, passes only where the estimate lies above `lower` by more than the allowance and the critical
    multiple of its standard error: where the test rejects equality, its nearest error. An estimate with `parts`
    (`at_every_size`) fails where a part fails, passes where every part passes, each at its share of the rate; the
    comparison reported is the failing part's, else the first undecided one's, else the part nearest to failing."""
    if estimate.parts:
        comparisons = [compare_to_target(part, lower, upper, false_fail_rate=false_fail_rate / len(estimate.parts),
                                         resolution=resolution, power=power, strict=strict)
                       for part in estimate.parts]
        for outcome in (FAIL, INCONCLUSIVE):
            if any(c.outcome == outcome for c in comparisons):
                return next(c for c in comparisons if c.outcome == outcome)
        return comparisons[_least_studentized(estimate.parts)]
    distance = distance_outside(estimate.value, lower, upper)
    allowed = allowance(estimate, lower, upper)
    beyond = max(distance - allowed, 0.0)  # the part of the distance a bias cannot explain
    critical = critical_value(false_fail_rate, estimate.degrees_of_freedom)
    if estimate.standard_error > 0:
        statistic = beyond / estimate.standard_error
        p_value = 2 * _t_sf(statistic, estimate.degrees_of_freedom)
    else:
        statistic = math.inf if beyond > 0 else 0.0
        p_value = 0.0 if beyond > 0 else 1.0
    # a two-sided prediction is only as sharp as its interval is narrow; a one-sided one (a bound)
    # is sharp on its finite side
    width = upper - lower if math.isfinite(upper - lower) else 0.0
    detectable = detectable_discrepancy(estimate.standard_error, estimate.degrees_of_freedom,
                                        false_fail_rate, power=power) + width + allowed
    if beyond > critical * estimate.standard_error:
        outcome = FAIL
    elif strict:
        outcome = PASS if estimate.value - lower - allowed > critical * estimate.standard_error else INCONCLUSIVE
    elif detectable <= resolution:
        outcome = PASS
    else:
        outcome = INCONCLUSIVE
    return Comparison(outcome, distance, statistic, p_value, critical, detectable, false_fail_rate)


def compare_exact(value: float, lower: float, upper: float, *, tolerance: float,
                  resolution: float, strict: bool = False) -> Comparison:
    """A deterministic value (exact or to many digits, accurate to `tolerance`) vs the interval; a `strict` target
    (lower, inf) passes only where the value exceeds `lower` by more than its tolerance."""
    distance = distance_outside(value, lower, upper)
    width = float(upper - lower)
    detectable = (width if math.isfinite(width) else 0.0) + tolerance
    if distance > tolerance:
        outcome = FAIL
    elif strict:
        outcome = PASS if value - lower > tolerance else INCONCLUSIVE
    elif detectable <= resolution:
        outcome = PASS
    else:
        outcome = INCONCLUSIVE
    return Comparison(outcome, float(distance), math.inf if distance > tolerance else 0.0,
                      0.0 if distance > tolerance else 1.0, 1.0, detectable, 0.0)


@dataclass(frozen=True)
class RateFit:
    """value ~ prefactor * size^exponent, fitted in log-log space."""

    exponent: float
    standard_error: float
    interval: tuple[float, float]
    prefactor: float
    confidence: float
    sizes: tuple[float, ...]


def fit_rate(sizes, values, standard_errors=None, *, confidence: float = 0.95) -> RateFit:
    """Weighted least squares of log(value) on log(size); the exponent's t interval on n - 2 dof.

    With `standard_errors` the weights are 1/var(log value) ~ (value/se)^2 (delta method) and the
    residual scale is still estimated from the fit, so a misspecified power law widens the interval.
    """
    sizes, values = np.asarray(sizes, dtype=float), np.asarray(values, dtype=float)
    if sizes.shape != values.shape or sizes.size < 3:
        raise ValueError("a rate fit needs at least three (size, value) pairs of equal length")
    if np.any(sizes <= 0) or np.any(values <= 0):
        raise ValueError("a rate fit in log-log space needs positive sizes and values")
    x, y = np.log(sizes), np.log(values)
    weights = np.ones_like(x) if standard_errors is None else (values / np.asarray(standard_errors, float)) ** 2
    design = np.column_stack([np.ones_like(x), x])
    gram = design.T @ (weights[:, None] * design)
    coefficients = np.linalg.solve(gram, design.T @ (weights * y))
    residuals = y - design @ coefficients
    dof = x.size - 2
    scale = float(weights @ residuals**2) / dof if dof > 0 else 0.0
    covariance = np.linalg.inv(gram) * scale
    standard_error = float(math.sqrt(max(covariance[1, 1], 0.0)))
    half_width = _t_isf((1 - confidence) / 2, dof) * standard_error
    slope = float(coefficients[1])
    return RateFit(slope, standard_error, (slope - half_width, slope + half_width),
                   float(math.exp(coefficients[0])), confidence, tuple(sizes.tolist()))


def _values_and_errors(estimates: list[Estimate]) -> tuple[np.ndarray, np.ndarray]:
    """The estimates' values and standard errors, which a finite-size fit weighs by 1/se^2: finite values and
    positive, finite standard errors, else a ValueError (a zero one would make the chi-square nan)."""
    values = np.array([e.value for e in estimates], dtype=float)
    errors = np.array([e.standard_error for e in estimates], dtype=float)
    if not (np.all(np.isfinite(values)) and np.all(np.isfinite(errors)) and np.all(errors > 0)):
        raise ValueError("extrapolation needs finite values with positive, finite standard errors")
    return values, errors


def extrapolation_fit(sizes, estimates: list[Estimate], *, exponent: float) -> float:
    """The p-value of the finite-size model value(size) = L + B size^(-exponent) on the estimates: the sum of its
    squared weighted least-squares residuals over its k = sizes - 2 degrees of freedom, against Fisher's F(k, nu)
    with nu the smallest of the estimates' degrees of freedom (chi-square on k where nu is infinite); 1.0 with two
    sizes, where the model fits exactly and cannot be checked. The weights are estimated standard errors, so a
    chi-square reference, which takes them as known, rejects a true model more often than its level: 2.4 to 4 times
    at 1e-3 with 16 draws a size, where F's is below the level (docs/derivations/statistics.md#finite-size-fit). A
    small p-value rejects the model, so the limit it gives is not evidence."""
    sizes = np.asarray(sizes, dtype=float)
    if sizes.size < 3:
        return 1.0
    values, errors = _values_and_errors(estimates)
    design = np.column_stack([np.ones_like(sizes), sizes ** (-exponent)])
    weights = 1.0 / errors**2
    coefficients = np.linalg.solve(design.T @ (weights[:, None] * design), design.T @ (weights * values))
    residuals = (values - design @ coefficients) / errors
    freedom = sizes.size - 2
    return _f_sf(float(residuals @ residuals) / freedom, freedom,
                 float(min(e.degrees_of_freedom for e in estimates)))


def extrapolate_limit(sizes, estimates: list[Estimate], *, exponent: float, method: str = "") -> Estimate:
    """The limit L of a finite-size estimate modelled as value(size) = L + B size^(-exponent).

    Weighted least squares over the sizes with the estimates' own standard errors; the standard error
    of L is the model's (no residual rescaling: with two sizes the fit is exact), on the smallest of
    the estimates' degrees of freedom (conservative: docs/derivations/statistics.md#limit-degrees-of-freedom).
    The price of removing an unknown O(size^-exponent) bias is a larger standard error: with sizes d and 4d and
    exponent 1/2, L = 2 v(4d) - v(d).
    """
    sizes = np.asarray(sizes, dtype=float)
    if len(estimates) != sizes.size or sizes.size < 2 or len(set(sizes.tolist())) < 2:
        raise ValueError("extrapolation needs estimates at two or more distinct sizes")
    values, errors = _values_and_errors(estimates)
    design = np.column_stack([np.ones_like(sizes), sizes ** (-exponent)])
    weights = 1.0 / errors**2
    gram = design.T @ (weights[:, None] * design)
    covariance = np.linalg.inv(gram)
    coefficients = covariance @ design.T @ (weights * values)
    return Estimate(float(coefficients[0]), float(math.sqrt(covariance[0, 0])),
                    float(min(e.degrees_of_freedom for e in estimates)), int(sum(e.samples for e in estimates)),
                    method)
