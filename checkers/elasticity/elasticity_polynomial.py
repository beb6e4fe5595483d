"""Checker of elasticity-polynomial: the Elasticity's leading coefficient, exact in x given the weights,
extrapolated across n = 250..1000 (`checkers.elasticity.leading_coefficient`)."""

from checkers.checker import Checker
from checkers.elasticity.leading_coefficient import elasticity_step_part, leading_coefficient_reader
from theorems.elasticity import elasticity_polynomial

CHECKER = Checker(
    theorem=elasticity_polynomial.THEOREM,
    simulation="exact in x given the weights; draws at n = 250..1000, extrapolated in n^(2 alpha - 1) with "
               "the exponent bounded within a factor two (the accepted models' spread is a systematic bound)",
    readers={"leading-coefficient": leading_coefficient_reader(elasticity_step_part)},
    second_point={"activation": "erf", "teacher": "relu", "alpha": "0.25", "similarity": "0.5"},
    slow_rerun=True,
)
