"""Checker of cohesion-separability: the class-mean metrics' step parts over the linear features' scale,
extrapolated across sizes (`checkers.elasticity.leading_coefficient`)."""

from checkers.checker import Checker
from checkers.elasticity.leading_coefficient import class_mean_step_part, leading_coefficient_reader
from theorems.elasticity import cohesion_separability
from theorems.elasticity.cohesion_separability import cohesion, separability

CHECKER = Checker(
    theorem=cohesion_separability.THEOREM,
    simulation="exact in x given the weights, with the linear features' metric as the scale; draws at "
               "n = 250..1000, extrapolated in n^(2 alpha - 1) with the exponent bounded within a factor two (the "
               "accepted models' spread is a systematic bound)",
    readers={"cohesion-coefficient": leading_coefficient_reader(class_mean_step_part(cohesion)),
             "separability-coefficient": leading_coefficient_reader(class_mean_step_part(separability))},
    second_point={"activation": "erf", "teacher": "relu", "alpha": "0.25", "similarity": "0.5"},
    slow_rerun=True,
)
