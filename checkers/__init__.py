"""How it is tested: checkers, calibrated statistics, verdicts, sweeps, reports and the CLI.

`Checker` ties a theorem to one reader per prediction; `run_check` turns it into a `Verdict`; the
registry (`checkers.registry`) discovers the built-in checks in the family packages. Readers return an
`Estimate` (Monte Carlo, built with `mean_estimate` and friends) or an `Exact` value, or raise `Unresolved`.
"""

from checkers.check import Budget, Checker, Exact, Unresolved, run_check
from checkers.outcome import Outcome
from checkers.stats import Estimate, control_variate_estimate, mean_estimate
from checkers.verdict import PredictionResult, Verdict

__all__ = ["Budget", "Checker", "Estimate", "Exact", "Outcome", "PredictionResult", "Unresolved", "Verdict",
           "control_variate_estimate", "mean_estimate", "run_check"]
