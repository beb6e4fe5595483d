"""The key balancedness identity: for a linear layer pair, W_{l+1}^T grad W_{l+1} = grad W_l W_l^T for any downstream
loss  [derived].

Statement (docs/derivations/collapse.md#balancedness-identity, [D]). Let layer l's output enter layer l+1 linearly,
Z_{l+1}' = W_{l+1} Z_l
with Z_l = W_l Z_{l-1}, and let the loss depend on W_{l+1} Z_l through any downstream map (a
non-linearity may follow W_{l+1}). With G the gradient at W_{l+1} Z_l, grad W_{l+1} = G Z_l^T and
grad W_l = W_{l+1}^T G Z_{l-1}^T, so

    W_{l+1}^T grad W_{l+1} = W_{l+1}^T G Z_{l-1}^T W_l^T = grad W_l W_l^T.

It is what makes D = W_{l+1}^T W_{l+1} - W_l W_l^T follow an exact law under gradient descent
(`balancedness-recurrence`) and vanish at stationary points of the regularized loss (`stationary-balanced`).
Through a non-linearity sigma between the layers it fails (the negative control), except on the
diagonal when sigma is positively homogeneous.
"""

from __future__ import annotations

import numpy as np
import sympy

from theorems.statement import (
    Assumption,
    Constant,
    Instance,
    Mutant,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)


def left_side(w_next, gradient_next):
    """W_{l+1}^T grad W_{l+1}, for numpy arrays and sympy matrices alike."""
    return w_next.T @ gradient_next


def symbolic_identity_residual(between: str = "linear", size: int = 2, samples: int = 2,
                               left_side=left_side) -> sympy.Matrix:
    """The identity's residual for symbolic size x size layers and an arbitrary downstream function phi
    (an undefined sympy Function), expanded; the zero matrix proves the identity for linear links."""
    phi = sympy.Function("phi")
    w = sympy.Matrix(size, size, lambda i, j: sympy.Symbol(f"a{i}{j}", real=True))
    w_next = sympy.Matrix(size, size, lambda i, j: sympy.Symbol(f"b{i}{j}", real=True))
    inputs = sympy.Matrix(size, samples, lambda i, j: sympy.Symbol(f"x{i}{j}", real=True))
    link = {"linear": lambda u: u, "tanh": sympy.tanh}[between]
    hidden = (w * inputs).applyfunc(link)
    loss = sum((w_next * hidden).applyfunc(phi))
    gradient = sympy.Matrix(size, size, lambda i, j: sympy.diff(loss, w[i, j]))
    gradient_next = sympy.Matrix(size, size, lambda i, j: sympy.diff(loss, w_next[i, j]))
    # expand suffices: the terms cancel identically for a linear link (simplify is slow through tanh)
    return (left_side(w_next, gradient_next) - gradient * w.T).applyfunc(sympy.expand)


CONSTANTS = (Constant.exactly("coefficient", 1, "1 in W_{l+1}^T grad W_{l+1} = coefficient * grad W_l W_l^T (--set it "
                                               "to test another claim)"),)


def linear_link(instance: Instance) -> str | None:
    """The assumption shared by the balancedness theorems: nothing between layers l and l+1."""
    if instance["between"] != "linear":
        note = " (for a homogeneous activation only the diagonal holds)" if instance["between"] == "relu" else ""
        return f"layer l's output passes through {instance['between']} before layer l+1: a linear link is needed" + note
    return None


LINEAR_LINK = Assumption(name="linear-link", statement="layer l's output enters layer l+1 linearly", check=linear_link)
BETWEEN = Parameter(name="between", description="what lies between layers l and l+1", kind="choice", default="linear",
                    choices=("linear", "relu", "tanh"))
WIDTH = Parameter(name="width", description="neurons of layer l", kind="integer", default="5", lower=1, upper=200)


def _symbolic_applies(instance: Instance) -> str | None:
    if instance["between"] == "relu":
        return "the symbolic check differentiates a smooth link; relu is checked numerically only"
    return None


def _zero(instance: Instance) -> Target:
    return Target.point(0, note="residual, zero in exact arithmetic")


def symbolic_nonzero(instance: Instance, measured) -> int:
    """The number of entries of the expanded symbolic residual that are not 0 (nothing is measured)."""
    residual = symbolic_identity_residual(instance["between"], left_side=instance.definition("left_side"))
    return sum(entry != 0 for entry in residual)


def relative_residual(instance: Instance, measured) -> float:
    """||W_{l+1}^T G_{l+1} - coefficient G_l W_l^T|| / (||W_{l+1}|| ||G_{l+1}||) for measured weights w, w_next and
    gradients g, g_next."""
    left = instance.definition("left_side")(measured["w_next"], measured["g_next"])
    coefficient = float(instance.constant("coefficient"))
    return np.linalg.norm(left - coefficient * measured["g"] @ measured["w"].T) / (
        np.linalg.norm(measured["w_next"]) * np.linalg.norm(measured["g_next"]))


def linear_pair(instance: Instance):
    """f = W_{l+1} W_l x with x = e_1, W_l = I, W_{l+1} = [[1, 1], [0, 1]] and the loss's gradient e_2 at the output:
    grad W_{l+1} = e_2 e_1^T and grad W_l = W_{l+1}^T e_2 e_1^T, both [[0, 0], [1, 0]]; the identity holds, and
    G_{l+1}^T W_{l+1} = [[0, 1], [0, 0]] does not equal them."""
    gradient = np.array([[0.0, 0.0], [1.0, 0.0]])
    return {"linear pair": {"w": np.eye(2), "w_next": np.array([[1.0, 1.0], [0.0, 1.0]]), "g": gradient,
                            "g_next": gradient}}


THEOREM = Theorem(
    id="balancedness-identity",
    title="W_{l+1}^T grad W_{l+1} = grad W_l W_l^T for a linear layer pair and any downstream loss",
    source="derived for thmcheck (docs/derivations/collapse.md#balancedness-identity); the mechanism of Du, Hu and Lee "
           "(2018)",
    provenance="derived",
    statement="W_{l+1}^T grad_{W_{l+1}} L = grad_{W_l} L W_l^T whenever Z_l = W_l Z_{l-1} enters W_{l+1} linearly",
    parameters=(BETWEEN, WIDTH),
    assumptions=(LINEAR_LINK,),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="symbolic", kind="identity",
                   statement="sympy: the residual expands to 0 for 2 x 2 layers and an arbitrary downstream function "
                             "phi (observed: the number of non-zero entries)", predict=_zero,
                   observable=symbolic_nonzero, references=lambda instance: {"symbolic": {}},
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "a count of matrix entries that sympy does not simplify to 0: "
                                                      "exact, any failure moves it by 1"),
                   resolution=lambda instance: 0.5,
                   applies=_symbolic_applies),
        Prediction(name="float64", kind="identity",
                   statement="a network with the pair, then tanh and a linear read-out, square loss: "
                   "||W_{l+1}^T G_{l+1} - coefficient G_l W_l^T|| / (||W_{l+1}|| ||G_{l+1}||) <= 1e-12",
                   predict=_zero, observable=relative_residual, references=linear_pair,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.4: the kept near mutant, the product transposed (G^T W for "
                                                      "W^T G), leaves a relative residual of 0.82 on the linear pair: "
                                                      "two resolutions. The identity holds to float64 round-off, "
                                                      "near 1e-15 relative"),
                   resolution=lambda instance: 0.4),
    ),
    mutants=(
        Mutant(name="transposed", description="G_{l+1}^T W_{l+1} in place of W_{l+1}^T G_{l+1}",
               definitions={"left_side": lambda w_next, gradient_next: gradient_next.T @ w_next}),
        Mutant(name="through-tanh",
               description="the identity claimed for a pair linked through tanh (assumption dropped)",
               dropped_assumptions=("linear-link",), parameters={"between": "tanh"}),
    ),
    definitions={"left_side": left_side},
)
