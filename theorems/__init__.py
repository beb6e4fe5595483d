"""What is claimed: theorems about two-layer networks as statements, with no randomness and no I/O.

The statement model (`Theorem`, `Parameter`, `Assumption`, `Constant`, `Prediction`, `Mutant`, `Target`),
the exact Hermite and Gaussian algebra (`hermite_coefficients`, `second_moment`, `Quantity`), activations
(`activation`) and the errors a user can meet. One package per family holds the theorems themselves
(`theorems.onestep.spike_outlier.THEOREM`, ...); `checkers.registry` finds them.
"""

from theorems.activations import Activation, activation
from theorems.errors import CheckError, DeclarationError, InvalidInput, NumericalError, ThmcheckError, UnknownName
from theorems.hermite import Quantity, hermite_coefficients, second_moment
from theorems.statement import (
                                PROVENANCES,
                                Assumption,
                                Constant,
                                Instance,
                                Kind,
                                Mutant,
                                Parameter,
                                Prediction,
                                Target,
                                Theorem,
)

__all__ = ["PROVENANCES", "Activation", "Assumption", "CheckError", "Constant", "DeclarationError", "Instance",
           "InvalidInput", "Kind", "Mutant", "NumericalError", "Parameter", "Prediction", "Quantity", "Target",
           "Theorem", "ThmcheckError", "UnknownName", "activation", "hermite_coefficients", "second_moment"]
