"""How it is tested: checkers, calibrated statistics, verdicts, sweeps, reports and the CLI.

`Checker` ties a theorem to one reader per prediction (`checkers.checker`); `run_check` turns it into a `Verdict`
(`checkers.engine`); the registry (`checkers.registry`) discovers the built-in checks in the family packages. Readers
return a `Measurement`: an `Estimate` (Monte Carlo, built with `mean_estimate` and friends) or an `Exact` value, or,
for a prediction that owns its observable, `Measured` quantities or per-draw `Draws`, `Fitted` across sizes or
`Pooled` by the reader's own estimator; or they raise `Unresolved`.

The names are imported on first use, so that the command line can start without the check engine.
"""

import importlib

_EXPORTS = {
    "checkers.budget": ("Budget",),
    "checkers.checker": ("Checker", "Draws", "Exact", "Fitted", "Measured", "Measurement", "Pooled", "Unresolved"),
    "checkers.engine": ("run_check",),
    "checkers.outcome": ("Outcome",),
    "checkers.stats": ("Estimate", "control_variate_estimate", "mean_estimate"),
    "checkers.verdict": ("PredictionResult", "Verdict"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'checkers' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
