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
              (A,), "r1 on unbalanced starts", Status.OPEN, Cost.MINUTES,
              gap="Every alignment check starts balanced. Derived here, not yet run: with v^2 - |w|^2 = O(eps^2) and "
                  "|v| + |w| = O(eps), |v_j| - |w_j| = O(eps), the size of the weights, so the ratio |v_j|/|w_j| "
                  "stays of order one and away from 1.",
              proposal="directional-dynamics from a Gaussian start: the largest ||v_j| - |w_j|| / |w_j| over the "
                       "alignment phase at log epsilon = -10, -14, -18 (the authors: falls like epsilon; the "
                       "derivation: stays of order one)."),
        Claim("d4", "A balanced initialization is not needed: from a small Gaussian initialization of both layers "
              "the two phases still occur and Theorem 1's picture holds.",
              (A,), "r1; r2; r4 on balanced initialization", Status.OPEN, Cost.MINUTES,
              gap="Every alignment check starts balanced.",
              proposal="A parameter init = balanced | gaussian on early-alignment (cones by the sign of v_j at t1, "
                       "stable rank, final rate), alignment-time-flat and directional-dynamics; count the sign "
                       "flips of v_j; log epsilon in [-20, -10], h = 8 and 50."),
        Claim("d5", "Separable data (Assumption 1) is not needed in practice: centred two-digit MNIST meets it only "
              "roughly.",
              (A,), "r1-r4 on the data assumption", Status.OPEN, Cost.MINUTES,
              gap="The reference data have a fixed noise, so their separation margin is positive.",
              proposal="A noise parameter on the reference data, raised until the margin is negative; run "
                       "early-alignment outside its assumptions and count neurons outside the cones at the "
                       "measured t1. scikit-learn's bundled digits could stand in for MNIST."),
        Claim("d6", "Lemma 1's directional approximation extends to any positively 1-homogeneous activation, such "
              "as the alpha-leaky ReLU; Theorem 1 does not directly.",
              (A,), "r4 on other activations", Status.PARTLY, Cost.MINUTES,
              checks=(Check("conservation-law", parameters={"activation": "leaky_relu:0.1"}),),
              gap="Only the conservation law is run at a leaky ReLU; Lemma 1 is not.",
              proposal="An activation parameter on directional-dynamics' lemma-1 (eq. (4) with sigma' in place of "
                       "the indicator)."),
        Claim("d7", "How small epsilon must be: (a) O(sqrt(mu)/(sqrt(h) n)) for eq. (4) to be accurate, (b) "
              "O(exp(-(n/sqrt(mu)) log n)/sqrt(h)) for a long enough alignment phase.",
              (A,), "r4 on how small epsilon is", Status.PARTLY, Cost.MINUTES,
              checks=(Check("early-alignment"),),
              gap="The paper's explicit condition is early-alignment's small-initialization assumption; on the "
                  "default data, (b) with constant 1 gives log epsilon of about -18 where the explicit condition "
                  "gives -17219. Where between them the theorem stops holding is not measured.",
              proposal="early-alignment at log epsilon in {-1, -2, -5, -10, -20, -100, -1000, -17300}: the largest "
                       "epsilon where aligned-by-t1 and stable-rank hold, against both forms."),
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
              (R,), "r3 on the goal", Status.OPEN, Cost.MINUTES,
              gap="Every run is inside Theorem 1's assumptions, where it converges.",
              proposal="Runs from a large initialization or with the first layer only, over configurations; count "
                       "those whose loss stops above zero (a class with no live neuron)."),
    ),
    not_checkable=(
        NotCheckable("the significance of the contribution and 'complete, non-asymptotic, quantitative'",
                     "an opinion"),
        NotCheckable("the setting's difference from Brutzkus et al. and Wang et al.", "a comparison of texts"),
        NotCheckable("the realism of the assumptions", "an opinion the authors share"),
        NotCheckable("tracking the sign changes of v_j; grammar", "future work and presentation"),
    ),
)
