"""What is claimed: theorems about two-layer networks as statements, with no randomness and no I/O.

The statement model (`Theorem`, `Parameter`, `Assumption`, `Constant`, `Prediction` with its `ResolutionReason`,
`Mutant`, `Nearness`, `Target`), the exact Hermite and Gaussian algebra (`hermite_coefficients`, `second_moment`), the
numbers they derive (`Quantity`, `combine`), activations
(`activation`) and the errors a user can meet. One package per family holds the theorems themselves
(`theorems.onestep.spike_outlier.THEOREM`, ...); `checkers.registry` finds them.

The names are imported on first use, so that importing a light module of this package (its errors, its domains)
does not load sympy.
"""

import importlib

_EXPORTS = {
    "theorems.activations": ("Activation", "activation"),
    "theorems.errors": ("CheckError", "DeclarationError", "InvalidInput", "NumericalError", "ThmcheckError",
                        "UnknownName"),
    "theorems.hermite": ("hermite_coefficients", "second_moment"),
    "theorems.quantity": ("Quantity", "combine"),
    "theorems.statement": ("PROVENANCES", "Assumption", "Constant", "Instance", "Kind", "Mutant", "Nearness",
                           "Parameter", "Prediction", "ResolutionReason", "Target", "Theorem"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'theorems' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
