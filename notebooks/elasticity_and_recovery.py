# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Local elasticity after one step, and local recovery through the exact population loss
#
# Part 1 covers the ICLR 2025 submission on alignment and local elasticity (secondary, docs/derivations/elasticity.md).
# After one step with eta = n^alpha, the Elasticity E_x ||F(x) - F_0(x)||^2 on unseen x ~ N(mu, I) grows
# with the train-unseen similarity m = zeta^T mu. We compare three curves:
# - Monte Carlo;
# - the exact per-neuron Gaussian law (`elasticity-reference`);
# - the paper's polynomial, whose coefficients are c_k c_k', next to the spec's corrected
#   E[sigma^(k) sigma^(k')]/(k! k'!).
#
# Part 2 covers Zhou and Ge (secondary, docs/derivations/elasticity.md#local-recovery). It shows the exact population
# loss of one
# debiased-ReLU student neuron around a teacher direction, then a staged GD run whose recovery metrics fall
# as the weight decay is halved. Normalization: Ba's (see `theorems.onestep.common`). The tests run the notebook at
# small sizes.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from checkers.elasticity.recovery import local_start, run_stages
from checkers.onestep.simulation import OneStepSetting, one_step
from theorems.activations import activation
from theorems.elasticity.elasticity_reference import bivariate_expectation, coherent_and_bulk, neuron_laws
from theorems.elasticity.local_recovery import DEBIASED_KERNEL_AT_ONE, population_loss_and_gradient, teacher_layout
from theorems.hermite import hermite_coefficients, second_moment

SMALL = bool(os.environ.get("THMCHECK_SMALL"))
tanh = activation("tanh")
c1 = float(hermite_coefficients(tanh, 1, digits=20).coefficients[1])
slope_moment = float(second_moment(tanh.derivative(), digits=20).value)

# %% [markdown]
# ## 1. Elasticity against the similarity m
# One network, n = d = N, alpha = 0.3. The squared displacement is heavy-tailed, so the Monte Carlo uses
# common random numbers across m: the same base samples, shifted by mu.
# The two polynomial curves keep only the leading term e_11 (sum_j t_j^2) m^2 on top of the reference's
# value at m = 0:
# - c_1^2 for the paper;
# - E sigma'^2, the corrected coefficient.

# %%
size = 200 if SMALL else 800
alpha = 0.3
step = one_step(OneStepSetting(size, size, size, tanh, tanh, noise=0.1, learning_rate=size**alpha),
                np.random.default_rng(0))
w0, w1, zeta = step.initial_weights, step.updated_weights(), step.zeta
coherent, bulk = coherent_and_bulk(w1 - w0, zeta)
similarities = np.linspace(0, 3, 7)
base = np.random.default_rng(1).standard_normal((1000 if SMALL else 4000, size))


def squared_displacement(u, v):
    return (tanh(u + v) - tanh(u)) ** 2


reference, simulated = [], []
for m in similarities:
    mu = m * zeta / (zeta @ zeta)
    reference.append(np.sum(bivariate_expectation(squared_displacement, *neuron_laws(w0, w1 - w0, mu, zeta))))
    x = base + mu
    simulated.append(np.mean(np.sum((tanh(x @ w1) - tanh(x @ w0)) ** 2, axis=1)))
leading = np.sum(coherent**2) * similarities**2
figure, axis = plt.subplots(figsize=(7, 4))
axis.plot(similarities, simulated, "o", label="Monte Carlo (common random numbers)")
axis.plot(similarities, reference, "-", label="exact per-neuron law")
axis.plot(similarities, reference[0] + slope_moment * leading, "--", label="leading term, E sigma'^2 (corrected)")
axis.plot(similarities, reference[0] + c1**2 * leading, ":", label="leading term, c_1^2 (paper)")
axis.set_xlabel("m = zeta^T mu")
axis.set_ylabel("Elasticity")
axis.legend()
plt.show()
print(f"bulk constant sum_j b_j^2 E sigma'^2 ~ {slope_moment * np.sum(bulk**2):.3g}; Elasticity at m = 0: "
      f"{reference[0]:.4g}")

# %% [markdown]
# ## 2. The population loss of one student neuron around a teacher direction
# The debiased teacher is s(w* . x), with ||w*|| = 1, and the student is one neuron a s(w . x). The loss is
# exact: L = [a^2 ||w||^2 kappa^(1) - 2 a ||w|| kappa^(cos theta) + kappa^(1)] / 2. It is even in the
# direction: theta and pi - theta look the same. Below, ||w|| = 1 and a = 1, as a function of the angle.

# %%
angles = np.linspace(0, np.pi, 181)
teacher = np.array([[1.0, 0.0]])
losses = [population_loss_and_gradient(np.ones(1), np.array([[np.cos(t), np.sin(t)]]), np.ones(1), teacher)[0]
          for t in angles]
figure, axis = plt.subplots(figsize=(7, 3.5))
axis.plot(angles, losses)
axis.set_xlabel("angle between student and teacher (radians)")
axis.set_ylabel("population loss")
axis.set_title("even in the direction: minima at 0 and pi")
plt.show()

# %% [markdown]
# ## 3. A recovery run
# Three orthonormal teachers; six students start near each of +-w*_i and six small neurons start far from
# all of them. The weight decay lambda is halved per stage. Derived for orthonormal teachers
# (`local-recovery`), checked here by the lines drawn:
# - the far mass and the angular error die at every stage;
# - the mass deficit is lambda / kappa^(1);
# - the excess loss is 3 lambda^2 / (2 kappa^(1)).

# %%
a_star, teachers = teacher_layout(3, 8)
a, weights = local_start(a_star, teachers, students_per_teacher=6, far_neurons=6, start_angle=0.25,
                         rng=np.random.default_rng(2))
records = run_stages(a, weights, a_star, teachers, regularization=0.02, stages=4 if SMALL else 8,
                     steps=1000 if SMALL else 3000, step_size=0.5, near_angle=0.3, up_to_sign=True)
lambdas = np.array([r.regularization for r in records])
kernel_at_one = float(DEBIASED_KERNEL_AT_ONE)
figure, axis = plt.subplots(figsize=(7, 4))
axis.loglog(lambdas, [np.max(a_star - r.mass) for r in records], "o", label="(a) mass deficit")
axis.loglog(lambdas, lambdas / kernel_at_one, "-", label="lambda / kappa^(1)")
axis.loglog(lambdas, [r.loss for r in records], "s", label="(d) excess loss")
axis.loglog(lambdas, 3 * lambdas**2 / (2 * kernel_at_one), "--", label="3 lambda^2 / (2 kappa^(1))")
axis.loglog(lambdas, [max(r.far_mass, 1e-18) for r in records], "^", label="(b) far mass (floored at 1e-18)")
axis.loglog(lambdas, [max(r.angular_error, 1e-18) for r in records], "v", label="(c) angular error (floored)")
axis.invert_xaxis()
axis.set_xlabel("lambda (halved per stage)")
axis.legend(fontsize=8)
plt.show()
