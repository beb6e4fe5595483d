"""Checker of elasticity-leading-coefficient: elasticity-polynomial's observation (the Elasticity's leading
coefficient, exact in x given the weights, extrapolated across n = 250..1000) against E sigma'(Z)^2."""

from checkers.checker import Checker
from checkers.elasticity.leading_coefficient import elasticity_step_part, leading_coefficient_reader
from theorems.elasticity import elasticity_leading_coefficient

CHECKER = Checker(
    theorem=elasticity_leading_coefficient.THEOREM,
    simulation="exact in x given the weights; draws at n = 250..1000, extrapolated in n^(2 alpha - 1) with "
               "the exponent bounded within a factor two (the accepted models' spread is a systematic bound)",
    readers={"leading-coefficient": leading_coefficient_reader(elasticity_step_part)},
    second_point={"activation": "softplus", "teacher": "tanh", "alpha": "0.15", "similarity": "2"},
    slow_rerun=True,
)
