"""The claims ledger of the discussion of Min, Mallada and Vidal (early alignment from a small initialization).

`where` names the authors' four replies r1-r4 and their sections.
"""

from theorems.ledger import Check, Claim, Cost, Ledger, NotCheckable, Status, Who

P, A, R = Who.PAPER, Who.AUTHORS, Who.REVIEWER

LEDGER = Ledger(
    paper="min2024",
    document="the authors' replies r1-r4, by their sections",
    scale="both layers from a small unbalanced Gaussian initialization of variance alpha^2 (r1, r4); two centred "
          "MNIST digits; the paper's runs (as the project's alignment derivations record them): h = 50, "
          "alpha = 1e-6, gradient descent with eta = 2e-3, alignment by about 2,000 iterations. thmcheck: n = 6, "
          "D = 3, h = 8, a balanced start, log epsilon = -17300 (just inside the small-initialization "
          "assumption).",
    claims=(
        Claim("d1", "Theorem 1 (balanced small initialization, separable data): by t1 every neuron is in its class "
              "cone or dead; after t2 the loss is O(1/t); the stable rank is at most 2 + O(epsilon).",
              (P,), "r3 on the goal", Status.CHECKED, Cost.MINUTES,
              checks=(Check("early-alignment"), Check("activation-monotonicity"), Check("directional-dynamics"),
                      Check("alignment-geometry"))),
        Claim("d2", "The imbalance v_j^2 - |w_j|^2 is conserved by the flow, so it stays O(epsilon^2).",
              (A,), "r1 on unbalanced starts", Status.CHECKED, Cost.MINUTES,
              checks=(Check("conservation-law", "homogeneity"), Check("conservation-law", "descent-step"),
                      Check("conservation-law", "flow-drift"))),
        Claim("d3", "Hence v_j = sign(v_j) |w_j| + O(epsilon^2): an unbalanced start adds only an O(epsilon^2) error.",
              (A,), "r1 on unbalanced starts", Status.CHECKED, Cost.MINUTES,
              checks=(Check("unbalanced-imbalance"),
                      Check("unbalanced-imbalance", mutant="epsilon-squared-throughout")),
              finding="Contradicted through the alignment phase, confirmed after it. Until the escape |v_j| - |w_j| "
                      "is of the weights' own order: relative to |w_j| it is 0.55 at t1 on the reference data at "
                      "every epsilon (slope 1.5e-9 in log epsilon, against the authors' 1), so the ratio scales each "
                      "direction's speed. Once a neuron has grown it is O(epsilon^2) as the authors write (slope "
                      "1.9998 over log epsilon -6 to -10)."),
        Claim("d4", "A balanced initialization is not needed: from a small Gaussian initialization of both layers "
              "the two phases still occur and Theorem 1's picture holds.",
              (A,), "r1; r2; r4 on balanced initialization", Status.CHECKED, Cost.MINUTES,
              checks=(Check("early-alignment", parameters={"init": "gaussian"}),
                      Check("early-alignment", mutant="signs-from-the-start")),
              finding="Holds on the reference data at epsilon = e^-17300, inside the paper's bound (28): from "
                      "|v_j|/||w_j|| between 0.19 and 1.39, every neuron is in the cone of its sign at t1 or dead, "
                      "and the rate and stable-rank bounds hold. One neuron changes sign during alignment, so the "
                      "sign must be read at t1, as the authors say; read from the start, the claim fails."),
        Claim("d5", "Separable data (Assumption 1) is not needed in practice: centred two-digit MNIST meets it only "
              "roughly.",
              (A,), "r1-r4 on the data assumption", Status.OPEN, Cost.MINUTES,
              gap="The reference data have a fixed noise, so their separation margin is positive.",
              proposal="A noise parameter on the reference data, raised until the margin is negative; run "
                       "early-alignment outside its assumptions and count neurons outside the cones at the "
                       "measured t1. scikit-learn's bundled digits could stand in for MNIST."),
        Claim("d6", "Lemma 1's directional approximation extends to any positively 1-homogeneous activation, such "
              "as the alpha-leaky ReLU; Theorem 1 does not directly.",
              (A,), "r4 on other activations", Status.CHECKED, Cost.MINUTES,
              checks=(Check("directional-dynamics", parameters={"leak": "0.1"}),
                      Check("directional-dynamics", mutant="lemma-1-without-sqrt-h", parameters={"leak": "0.1"}),
                      Check("conservation-law", parameters={"activation": "leaky_relu:0.1"})),
              finding="Holds: at alpha = 0.1, Lemmas 4, 3 and 1 hold with the ReLU's constants (eq. (4) with sigma' "
                      "for the indicator) and every mutant of them is rejected; the imbalance is conserved as for "
                      "the ReLU. Theorem 1 is not run at a leaky ReLU: no neuron is ever dead there."),
        Claim("d7", "How small epsilon must be: (a) O(sqrt(mu)/(sqrt(h) n)) for eq. (4) to be accurate, (b) "
              "O(exp(-(n/sqrt(mu)) log n)/sqrt(h)) for a long enough alignment phase.",
              (A,), "r4 on how small epsilon is", Status.CHECKED, Cost.MINUTES,
              checks=(Check("early-alignment", parameters={"epsilon_condition": "order", "log_epsilon": "-18.4"}),
                      Check("directional-dynamics", parameters={"log_epsilon": "-3.31"})),
              finding="Both orders suffice on the reference data with their constants read as 1 (ours). (a): at "
                      "epsilon = sqrt(mu)/(sqrt(h) n) = 0.0365 (log -3.31; mu = 0.385, h = 8, n = 6) Lemma 1's bound "
                      "on eq. (4)'s error holds, using 0.11 of it, and Lemmas 3 and 4 hold; every mutant of "
                      "directional-dynamics is rejected there. (b): Theorem 1's four claims hold at log epsilon = "
                      "-18.4, where the paper's explicit condition (28) asks for -17219, and every mutant is rejected "
                      "there. On these data (28) is far from necessary, as the authors say."),
        Claim("d8", "Two phases need both layers trained; training the first layer alone gives no two phases even "
              "from a small initialization.",
              (A,), "r4 on prior work with SGD", Status.OPEN, Cost.MINUTES,
              gap="Both layers always train.",
              proposal="A parameter train = both | first-layer (v fixed at its initial value, and at +-1/sqrt(h)); "
                       "the alignment time against the time |W| first doubles: two phases (ratio much below 1) only "
                       "when both layers train."),
        Claim("d9", "Gradient flow reaches the global minimum at a rate, and a small initialization gives a low-rank "
              "W where a large one does not.",
              (A,), "r3 on the goal", Status.PARTLY, Cost.MINUTES,
              checks=(Check("early-alignment", "final-rate"), Check("early-alignment", "stable-rank")),
              gap="Only small initializations are run.",
              proposal="early-alignment at log_epsilon = 1, outside its assumptions, where stable-rank is expected "
                       "to fail; configurations 0-49 for global convergence."),
        Claim("d10", "Training a ReLU network on linearly separable data can stop in a local minimum (a reviewer, as "
              "the authors cite).",
              (R,), "r3 on the goal", Status.CHECKED, Cost.MINUTES,
              checks=(Check("dead-class"), Check("dead-class", mutant="global-convergence")),
              finding="It can, on the reference data themselves: from a small balanced start whose V+ neurons all "
                      "lie in the dead cone (inactive on every sample, an open set of starts wherever the data lie "
                      "in a half-space), the V+ neurons never move, the negative class is fitted at Theorem 1's "
                      "rate, and the loss stops at n_+ ell(0) = 3 exactly, not at 0. Theorem 1's convergence is "
                      "conditioned on S+ and S- each holding a neuron, and the condition is needed. How likely such "
                      "a start is from a random one is not measured."),
    ),
    not_checkable=(
        NotCheckable("the significance of the contribution and 'complete, non-asymptotic, quantitative'",
                     "an opinion"),
        NotCheckable("the setting's difference from Brutzkus et al. and Wang et al.", "a comparison of texts"),
        NotCheckable("the realism of the assumptions", "an opinion the authors share"),
        NotCheckable("tracking the sign changes of v_j; grammar", "future work and presentation"),
    ),
)
