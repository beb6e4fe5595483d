"""Balancedness of linear layer pairs: the key identity and the exact gradient-descent law with weight decay  [derived].

Statements (specs/collapse.md 4.1 and 4.3, [D]; Du, Hu and Lee 2018 for the unregularized flow [S]).
Let layer l's output enter layer l+1 linearly, Z_{l+1} = W_{l+1} Z_l with Z_l = W_l Z_{l-1}, and let the
loss depend on W_{l+1} Z_l through any downstream map. Then

    (identity)    W_{l+1}^T grad_{W_{l+1}} = grad_{W_l} W_l^T,

since grad_{W_{l+1}} = G Z_l^T and grad_{W_l} = W_{l+1}^T G Z_{l-1}^T (G: the gradient at W_{l+1} Z_l).
With D := W_{l+1}^T W_{l+1} - W_l W_l^T and one step W <- (1 - eta lambda) W - eta grad W of gradient
descent with weight decay (penalty (lambda/2) ||W||^2), the cross terms cancel by the identity and

    (recurrence)  D_{k+1} = (1 - eta lambda)^2 D_k + eta^2 S_k,   S_k := G_{l+1}^T G_{l+1} - G_l G_l^T,

exactly. Named constant: decay_factor = (1 - eta lambda)^2 (a penalty lambda ||W||^2 without the 1/2
would give (1 - 2 eta lambda)^2). For a homogeneous activation between the layers (ReLU) only the
diagonal of D obeys the law; for a smooth non-homogeneous one (tanh) nothing does: the checks run
there too and report it, outside the assumption.

The checks: the identity proved by sympy for 2 x 2 layers and an undefined downstream function; the
recurrence for one step of a small network (linear pair, then tanh, then a linear read-out, square
loss), in float64 and in mpmath at `digits` digits, with the residual taken against `decay_factor` as
the instance gives it (so `--set decay_factor=...` and the mutants change what is tested).
"""

from __future__ import annotations

import sympy

from theorems.formula import exact_number, to_mpf
from theorems.hermite import Quantity, combine
from theorems.statement import Assumption, Instance, Mutant, Parameter, Prediction, Target, Theorem


def symbolic_identity_residual(between: str = "linear", size: int = 2, samples: int = 2) -> sympy.Matrix:
    """The identity's residual for symbolic size x size layers and an arbitrary downstream function phi
    (an undefined sympy Function), simplified; the zero matrix proves the identity for linear links."""
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
    return (w_next.T * gradient_next - gradient * w.T).applyfunc(sympy.expand)


def _decay_factor(parameters, digits, given):
    eta, decay = exact_number(parameters["learning_rate"]), exact_number(parameters["weight_decay"])
    exact = (1 - eta * decay) ** 2
    return {"decay_factor": given.get("decay_factor") or combine(
        "decay_factor", digits, [Quantity("decay_factor", 0, "exact", digits, exact)], lambda v: v)}


def _symbolic_applies(instance: Instance) -> str | None:
    if instance["between"] == "relu":
        return "the symbolic check differentiates a smooth link; relu is checked numerically only"
    return None


def _homogeneous_link(instance: Instance) -> str | None:
    if instance["between"] == "tanh":
        return "tanh is not positively homogeneous: not even the diagonal law is claimed (see recurrence-float64)"
    return None


def _linear_link(instance: Instance) -> str | None:
    if instance["between"] != "linear":
        return (f"layer l's output passes through {instance['between']} before layer l+1: the identity needs a "
                f"linear link" + (" (for a homogeneous activation only the diagonal holds)"
                                  if instance["between"] == "relu" else ""))
    return None


def _zero(instance: Instance) -> Target:
    return Target.point(0, note="relative residual, zero in exact arithmetic")


def _float64_resolution(instance: Instance) -> float:
    return 1e-12


def _mpmath_resolution(instance: Instance) -> float:
    return 10.0 ** (5 - instance["digits"])


def _unsquared(parameters, digits):
    eta, decay = exact_number(parameters["learning_rate"]), exact_number(parameters["weight_decay"])
    return Quantity("decay_factor", to_mpf(1 - eta * decay, digits), "mutant", digits)


def _doubled(parameters, digits):
    eta, decay = exact_number(parameters["learning_rate"]), exact_number(parameters["weight_decay"])
    return Quantity("decay_factor", to_mpf((1 - 2 * eta * decay) ** 2, digits), "mutant", digits)


THEOREM = Theorem(
    id="balancedness-recurrence",
    title="Balancedness of a linear layer pair under gradient descent with weight decay",
    source="derived for thmcheck (specs/collapse.md 4.1, 4.3); unregularized flow: Du, Hu and Lee (2018)",
    provenance="derived",
    statement="W_{l+1}^T grad W_{l+1} = grad W_l W_l^T, and one GD step with weight decay gives exactly "
              "D_{k+1} = (1 - eta lambda)^2 D_k + eta^2 S_k, D = W_{l+1}^T W_{l+1} - W_l W_l^T",
    parameters=(
        Parameter("learning_rate", "step size eta", "real", "0.05", 0.0, 10.0),
        Parameter("weight_decay", "lambda of the penalty (lambda/2)||W||^2", "real", "0.01", 0.0, 10.0),
        Parameter("between", "what lies between layers l and l+1", "choice", "linear",
                  choices=("linear", "relu", "tanh")),
        Parameter("width", "neurons of layer l", "integer", "5", 1, 200),
        Parameter("digits", "mpmath precision of the exact-arithmetic check", "integer", "50", 20, 500),
    ),
    assumptions=(Assumption("linear-link", "layer l's output enters layer l+1 linearly", _linear_link),),
    constants=_decay_factor,
    predictions=(
        Prediction("identity-symbolic", "identity",
                   "sympy: W_{l+1}^T grad W_{l+1} - grad W_l W_l^T expands to 0 for 2 x 2 layers and an "
                   "arbitrary downstream function", _zero, lambda instance: 1e-300, applies=_symbolic_applies),
        Prediction("recurrence-float64", "identity",
                   "one GD step in float64: ||D_1 - decay_factor D_0 - eta^2 S_0|| / ||D_1|| <= 1e-12",
                   _zero, _float64_resolution),
        Prediction("diagonal-float64", "identity",
                   "the diagonal of the law (per neuron: ||row of W_l||^2 - ||column of W_{l+1}||^2) holds for a "
                   "linear or a positively homogeneous (relu) link; relative residual <= 1e-12",
                   _zero, _float64_resolution, applies=_homogeneous_link),
        Prediction("recurrence-mpmath", "identity",
                   "the same step in mpmath at `digits` digits: relative residual <= 10^(5 - digits)",
                   _zero, _mpmath_resolution),
    ),
    mutants=(
        Mutant("decay-not-squared", "decay factor (1 - eta lambda) instead of its square",
               constants={"decay_factor": _unsquared}),
        Mutant("penalty-without-half", "decay factor (1 - 2 eta lambda)^2, as for a penalty lambda ||W||^2",
               constants={"decay_factor": _doubled}),
        Mutant("through-tanh", "the law claimed for a pair linked through tanh (assumption dropped)",
               dropped_assumptions=("linear-link",), parameters={"between": "tanh"}),
        Mutant("full-law-through-relu", "the full matrix law claimed through relu, where only its diagonal holds",
               dropped_assumptions=("linear-link",), parameters={"between": "relu"}),
    ),
)
