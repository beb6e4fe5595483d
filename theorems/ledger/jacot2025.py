"""The claims ledger of the discussion of Jacot, Sukenik, Wang and Mondelli (neural collapse under weight decay).

`where` names the five reviews' replies rev1-rev5 and the weaknesses (W) and questions (Q) each answers.
"""

from theorems.ledger import Check, Claim, Cost, Ledger, NotCheckable, Status, Who

P, A, R = Who.PAPER, Who.AUTHORS, Who.REVIEWER

LEDGER = Ledger(
    paper="jacot2025",
    document="the replies to five reviews, rev1-rev5, by the weakness (W) or question (Q) each answers",
    scale="no experiment sizes; LeCun initialization N(0, 1/n_(l-1)) with n_1 = Omega(N) (rev4 W2), and two "
          "timescales, about 1/eta steps to interpolate and 1/(eta lambda) to balance (rev1 W2). thmcheck's "
          "collapse-training: K = 4 Gaussian classes of 10 points in d = 8, widths (64, 32 | head), two smooth "
          "leaky-ReLU layers and a linear head of depth 2, 3 or 5, eta = 5e-4, lambda = 0.2, 3/(eta lambda) steps.",
    claims=(
        Claim("b1", "Theorem 3.1: approximate interpolation (eps1) and balancedness (eps2), bounded weights and "
              "representations, and a well-conditioned head give NC1 = O((eps1 + sqrt(eps2))^2), NC2 and NC3.",
              (P,), "rev4 W2; rev3 W1", Status.CHECKED, Cost.MINUTES,
              checks=(Check("nc1-bound"), Check("balanced-collapse"), Check("nc2-bracket"), Check("nc3-bound"),
                      Check("head-conditioning"))),
        Claim("b2", "Balancedness keeps Z_(L-1) near the row space of W_L, so Z_(L-1) is close to W_L^+ Z_L.",
              (A,), "rev3 Q1", Status.CHECKED, Cost.MINUTES, checks=(Check("pseudo-inverse-features"),)),
        Claim("b3", "Theorem 3.1 needs no assumption on the activation.",
              (A,), "rev2 Q1", Status.CHECKED, Cost.MINUTES,
              checks=(Check("nc1-bound"), Check("nc2-bracket"), Check("nc3-bound")),
              finding="The head theorems take Z_(L-1) and the weights as given, with no activation anywhere in them."),
        Claim("b4", "Theorem 4.4: gradient descent with weight decay on a pyramidal network with smooth activations "
              "interpolates, then balances, then collapses.",
              (P,), "rev1 W2; rev4 W2", Status.CHECKED, Cost.MINUTES, checks=(Check("collapse-training"),)),
        Claim("b5", "Two timescales, about 1/eta steps to interpolate and 1/(eta lambda) to balance, which separate "
              "as lambda shrinks.",
              (A,), "rev1 W2", Status.PARTLY, Cost.LONGER,
              checks=(Check("collapse-training", "timescales"), Check("collapse-training", "balancedness-rate")),
              gap="The timescales ratio is claimed only for lambda >= 0.02 and eta <= 1e-3, and it rises as lambda "
                  "falls because its criterion uses the final eps1, which lambda sets; the scaling in lambda is not "
                  "read.",
              proposal="lambda in {0.02, 0.05, 0.1, 0.2, 0.5} at eta = 5e-4: interpolation step = first eps1 "
                       "below a fixed level, balancing step = an e-fold of the imbalance; claim log-log slopes 0 and "
                       "-1 against lambda."),
        Claim("b6", "At the end the weights are low-rank and the hidden features far from their initialization: "
              "feature learning, not the NTK regime.",
              (A,), "rev1 W2", Status.CHECKED, Cost.MINUTES,
              checks=(Check("collapse-architectures", "low-rank"),
                      Check("collapse-architectures", "features-move"),
                      Check("collapse-architectures", mutant="lazy-weights"),
                      Check("collapse-architectures", mutant="lazy-features")),
              finding="Every weight after the first ends with stable rank below K = 4 (from about 11 at the start), "
                      "and every representation moves by 0.69-1.64 of its own size: no run is lazy. The first "
                      "layer is not claimed, since its input has rank d = 8 (it ends at 2.2-3.7)."),
        Claim("b7", "Two linear layers are not necessary for collapse, as the experiments suggest (a reviewer asks "
              "how hard removing them would be).",
              (A, R), "rev1 W1", Status.CHECKED, Cost.MINUTES,
              checks=(Check("collapse-architectures", "nc1-falls"),
                      Check("collapse-architectures", "nc1-falls", parameters={"linear_layers": "0"}),
                      Check("collapse-architectures", mutant="no-collapse-without-a-linear-pair"),
                      Check("collapse-architectures", mutant="no-collapse-without-a-linear-pair",
                            parameters={"linear_layers": "0"})),
              finding="The authors are right on this protocol: with one linear layer or none NC1_J falls as with two "
                      "(to 0.023-0.048 against 0.024-0.029, within a factor 1.8 on the same data), and the "
                      "reviewer's doubt, no collapse without a linear pair, is rejected. The fall is about one "
                      "order of magnitude at every head depth, not orders: lambda = 0.2 sets the floor."),
        Claim("b8", "One non-linear layer followed by many linear layers provably collapses.",
              (A,), "rev3 Q2", Status.CHECKED, Cost.MINUTES,
              checks=(Check("collapse-architectures", parameters={"nonlinear_layers": "1", "linear_layers": "3"}),),
              finding="Checked on runs, not proved: one non-linear layer of width 64 and a head of three linear "
                      "layers collapses as the two-layer network does (NC1_J down 0.76-1.15 orders, NC4 on every "
                      "point)."),
        Claim("b9", "NC4 (decisions by the nearest class centre) follows from NC1-NC3.",
              (A,), "rev2 Q3", Status.CHECKED, Cost.MINUTES,
              checks=(Check("collapse-architectures", "nc4"),
                      Check("collapse-architectures", mutant="nc4-at-initialization")),
              finding="At the end the nearest class mean of Z_(L-1) is argmax Z_L on every training point, on every "
                      "architecture run, from 0-47% at the start. Fresh points are not read."),
        Claim("b10", "Assumption 4.3 holds for LeCun initialization with n_1 = Omega(N); deep ReLU networks or "
              "non-pyramidal minimal widths also reach small loss.",
              (A,), "rev4 W2", Status.CHECKED, Cost.MINUTES,
              checks=(Check("collapse-training", "theorem-a"),
                      Check("collapse-architectures", parameters={"first_width": "20"}),
                      Check("collapse-architectures", parameters={"activation": "relu", "nonlinear_layers": "3"})),
              finding="On the runs, not Assumption 4.3's inequality itself: with a first layer of 20 (or 10) "
                      "neurons for N = 40 points the network fits as the wide one does (eps1 about 1 at lambda = 0.2) "
                      "and collapses (NC1_J down 0.55-0.92 orders, NC4 on every point), and a ReLU network with three "
                      "non-linear layers fits better (eps1 0.48-0.66) and collapses by 1.3-1.7 orders."),
        Claim("b11", "Non-linear layers become more linear as the non-linear part deepens (Figure 3), which the "
              "authors explain by the minimal total l2 norm.",
              (P, A), "rev5 Q", Status.OPEN, Cost.LONGER,
              gap="The non-linear depth is fixed and no linearity is read; Figure 3's scale is not stated.",
              proposal="A new theorem: 2, 3, 4 and 6 non-linear layers and a linear head of depth 2, with weight "
                       "decay; per layer, 1 - |sigma(H) - best linear fit of H| / |sigma(H)|; claim it rises with "
                       "depth."),
        Claim("b12", "A typo: kappa(W_L) is the (1/L2)-th root of kappa(W_(L:L1+1)), not the (1/L1)-th.",
              (R,), "rev3 W4-W5 (the authors agree)", Status.CHECKED, Cost.MINUTES,
              checks=(Check("head-conditioning", "exact-root"),
                      Check("head-conditioning", mutant="root-exponent-off"),
                      Check("collapse-training", "head-root"))),
        Claim("b13", "Balancedness after training is not a direct consequence of Du et al. (2018): this is gradient "
              "descent, not flow, and with weight decay.",
              (A,), "rev1 Q", Status.CHECKED, Cost.MINUTES,
              checks=(Check("balancedness-recurrence"), Check("balancedness-identity"),
                      Check("stationary-balanced"))),
    ),
    not_checkable=(
        NotCheckable("the readability of Theorems 3.1 and 4.4 and their big-O rewrite", "presentation"),
        NotCheckable("the missing conclusion and the abstract's accessibility", "presentation"),
        NotCheckable("citations (Du et al.; Frei et al. 2022; Chatterjee) and Assumption 4.2 against Frei et al.'s",
                     "a comparison of texts"),
        NotCheckable("the novelty of an NTK phase followed by weight decay", "a claim about the literature"),
        NotCheckable("score changes and future directions", "not claims"),
    ),
)
