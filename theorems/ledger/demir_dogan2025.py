"""The claims ledger of the discussion of Demir and Dogan (one step under Gaussian mixtures).

`where` names the abstract, review 1 and its two-part reply, review 2 (rEU8) Q1-Q4, review 3 (SJBV) W1-W3 with the
follow-ups "additional" and "detailed clarification", review 4, the revision summary and the meta-review.
"""

from theorems.ledger import Check, Claim, Cost, Ledger, NotCheckable, Status, Who

P, A, R, M = Who.PAPER, Who.AUTHORS, Who.REVIEWER, Who.META

LEDGER = Ledger(
    paper="demir-dogan2025",
    document="the abstract, four reviews with the authors' replies, the revision summary and the meta-review",
    scale="the discussion gives |Sigma| of order n, a strength beta in [0, 1] shared by the learning rate and the "
          "spread, and a proportional limit of n, m and k. The authors' code uses n = m = k, lambda = 1e-4, 5m "
          "test samples, two components of weight 1/2 with rank-one spikes, beta = 3/4 - 0.01 in most figures. "
          "thmcheck: n = m = k = 125, 250, 500, lambda = 1e-3, tanh, beta = 0.6, alpha = 1/2 (the paper's lambda "
          "with --param penalty=1e-4 --fidelity high).",
    claims=(
        Claim("c1", "After one step under a zero-mean mixture with spiked covariances, a Hermite polynomial model "
              "(degree set by beta, plus a Gaussian rest) has the network's training and test errors.",
              (P, M), "abstract; review 2's summary; meta-review", Status.CHECKED, Cost.MINUTES,
              checks=(Check("mixture-equivalence"),),
              finding="Holds in the port; the degree rule is sufficient, not shown to be tight."),
        Claim("c2", "Lemma 1: the gradient is a rank-one spike plus a smaller remainder, at rates in beta and alpha.",
              (P,), "review 2's summary", Status.CHECKED, Cost.MINUTES, checks=(Check("mixture-spike"),)),
        Claim("c3", "Theorem 3 (conditional Gaussian equivalence): given the component, the gradient's spike and "
              "the covariance spikes, the features are equivalent to a conditionally Gaussian map.",
              (P,), "review 2 Q3's reply; the detailed clarification", Status.OPEN, Cost.MINUTES,
              gap="mixture-equivalence uses the theorem as a route, but claims nothing of it on its own.",
              proposal="At n = m = k = 500, ridge errors with Gaussian features of the network features' "
                       "per-component mean and covariance, against the network's; or the moments directly."),
        Claim("c4", "The surrogate activation replaces sigma only after the first-layer step, which uses sigma; a "
              "reviewer asks whether the surrogate could be used in the step as well.",
              (A, R), "review 1's question on eq. (17) and its reply; the revision summary", Status.PARTLY,
              Cost.MINUTES, checks=(Check("mixture-equivalence"),),
              gap="The authors' reading is what mixture-equivalence runs; the reviewer's variant is not run.",
              proposal="A parameter surrogate_in_step: the step with the surrogate as well, then the same gaps "
                       "(an open question, with no claimed answer)."),
        Claim("c5", "The number of spikes in the feature spectrum is set by beta, the learning rate and the spread "
              "jointly, not by the learning rate alone as in Moniri et al.",
              (A,), "review 1's reply, part 1", Status.OPEN, Cost.MINUTES,
              gap="spike-count runs isotropic data only.",
              proposal="n = m = k in {500, 1000, 2000} at fixed beta and alpha in {0, 0.5, 1}: count the outliers "
                       "of the centred features beyond the bulk edge, net of those at zero step (covariance spikes "
                       "alone make outliers); claim the count depends on beta only."),
        Claim("c6", "Lemmas 1-3 hold in every regime; Theorem 4 only in the intermediate one.",
              (R, A), "review 2 Q4", Status.CHECKED, Cost.MINUTES,
              checks=(Check("mixture-spike"), Check("mixture-spike", parameters={"beta": "0.9"}),
                      Check("mixture-spike", parameters={"beta": "1"}), Check("mixture-equivalence")),
              finding="Lemma 1's rank-one decomposition holds at beta = 0.9 and 1, the large-step end, with its "
                      "rates read as upper bounds (at beta = 0.9 the spike's fitted exponent -0.049 +- 0.012 sits at "
                      "its bound -0.05; at beta = 1 it is 0.005 +- 0.012 against 0); Theorem 4 is stated only for "
                      "beta < 4/5, where mixture-equivalence reads it. Lemma 1 stands for the three lemmas here, as "
                      "the spec proposes: the exact statements of Lemmas 2 and 3 are not in the sources. The near "
                      "mutant spike-at-remainder-rate survives at beta = 0.9: the check's resolution, 0.25, is "
                      "mixture-spike's (#64)."),
        Claim("c7", "A small step is equivalent to a linear model, so a larger one is needed to beat it; the "
              "reviewer says the maximal step is sufficient.",
              (A, R), "review 2 Q1", Status.CHECKED, Cost.MINUTES,
              checks=(Check("gaussian-equivalence"), Check("large-step-beats-linear")),
              finding="Both readings hold in the isotropic setting, which is where they are checked; mixtures are "
                      "not."),
        Claim("c8", "With non-zero component means the results remain valid (Appendix F, numerical evidence).",
              (A, M), "review 1 Q2's reply; SJBV's reply; the revision summary; meta-review", Status.PARTLY,
              Cost.LONGER,
              checks=(Check("mixture-means"), Check("mixture-means", parameters={"mean_norm": "3"})),
              gap="mixture-means reports, beside its claim, how far the means move the Hermite model's gaps at "
                  "n = 250, but claims nothing of them; mixture-equivalence, the statement as n grows, has no means.",
              proposal="A parameter mean_norm on mixture-equivalence (means +-mu along a random unit vector, drawn "
                       "after everything else so that mean_norm = 0 keeps the paper's draws), the same statement at "
                       "||mu|| = 3 and 10. Landing it reruns mixture-equivalence's six calibration rows, about two "
                       "hours on two cores.",
              finding="Valid as n grows at a fixed ||mu||, on a trial of that parameter (2026-12-06, seed 0, "
                      "default fidelity): at ||mu|| = 3 both limits and both gaps at n = 500 pass (train gap "
                      "-1.2%, -0.6%, -0.43% at n = 125, 250, 500; 3 calibration seeds passed and rejected every "
                      "mutant); at ||mu|| = 10 the train gap shifts by -11.4%, -5.1% and -2.4%, about -0.12 "
                      "||mu||^2/n, with a limit of 0.006 +- 0.023 (inconclusive at default fidelity). So at a "
                      "finite n the means matter once ||mu||^2 is a sizeable share of n (-12.8% at ||mu|| = 16, "
                      "n = 250, mixture-means' report); the generalization gap moves by at most 2%. Counting "
                      "||mu||^2 in the scale b does not mend it."),
        Claim("c9", "A zero-mean mixture is not one Gaussian, and its error is no weighted sum of per-component "
              "errors, since the features and the readout are learned on the whole mixture (the reviewer: the "
              "analysis reduces to Gaussian pieces).",
              (A, R), "SJBV W1's reply and both clarifications", Status.OPEN, Cost.MINUTES,
              gap="No comparison with a single Gaussian or with per-component networks is run.",
              proposal="Paired draws at n = 500: the network's error on the mixture against one Gaussian of the "
                       "mixture's covariance and against the weighted errors of networks trained per component."),
        Claim("c10", "A larger beta generalizes better, and at fixed beta the data's spread helps more than the "
              "learning rate.",
              (A, M), "the detailed clarification (insights); meta-review", Status.OPEN, Cost.MINUTES,
              gap="Not read; in the port the network's error is 0.88 of the null error at alpha = 0, 1/4 and 1/2.",
              proposal="Test error over null error across alpha at beta = 0.6 and across beta at alpha = 1/2, "
                       "n = 250-1000, 20 draws, for random and spike-aligned labels; claim monotone."),
        Claim("c11", "Activations with equal Hermite coefficients (to degree D, at scale b) give equal errors: an "
              "equivalence class.",
              (A,), "review 1's reply, part 2", Status.CHECKED, Cost.MINUTES,
              checks=(Check("mixture-equivalence"), Check("mixture-coefficient-class"),
                      Check("mixture-coefficient-class", mutant="coefficients-alone")),
              finding="Holds once the second moment is part of the class: flipping tanh's c_3(b), which keeps c_0..c_2 "
                      "and E sigma(bZ)^2, leaves the errors equal to 0.005 in log at n = 250, while zeroing it, "
                      "which keeps only the coefficients, moves them by 2% (5 to 8 standard errors on paired "
                      "draws)."),
        Claim("c12", "The alignment of the components' spikes and the cluster weights change the test error.",
              (P,), "review 1's summary and strengths", Status.OPEN, Cost.MINUTES,
              gap="Weights are 1/2 and the spikes independent.",
              proposal="Parameters spike_overlap in [0, 1] and the weights (pi, 1 - pi); measure the network's "
                       "error (the expected direction, error falling as the spikes align, is from the paper's "
                       "Figure 2, not from the discussion)."),
        Claim("c13", "Component means act like covariance spikes: does multi-modality add anything the spikes do "
              "not?",
              (R, A), "review 2 Q2 and its reply", Status.CHECKED, Cost.MINUTES,
              checks=(Check("mixture-means"), Check("mixture-means", mutant="means-ignored"),
                      Check("mixture-means", parameters={"mean_norm": "3"})),
              finding="The authors' answer holds for the network: with means +-mu its train error is that with a "
                      "spike ||mu||^2 u u^T of the same second moment, to 0.003 +- 0.017 in log at ||mu|| = 16 (and "
                      "within 2% up to 20), while against zero means the means move it by 0.6 in log. At "
                      "||mu|| = 3 the means hardly move the error at all, so there the check shows the claim "
                      "holding but is not sharp (the reading that means change nothing is rejected in 3 of 10 "
                      "default runs). For the Hermite model the means are not a spike: see c8."),
    ),
    not_checkable=(
        NotCheckable("novelty against Hu and Lu and Dandi et al. (what Theorem 3 conditions on)", "a comparison of "
                     "texts"),
        NotCheckable("the title and the comparisons with the literature", "presentation"),
        NotCheckable("the motivation of the data model by evidence that real data are low-dimensional mixtures",
                     "an argument from citations"),
        NotCheckable("the Fashion-MNIST (through a CGAN) and ImageNet experiments", "real data sets, not here"),
        NotCheckable("tight asymptotic errors by replica or random-matrix methods", "future work, with no formula"),
        NotCheckable("optimal activations, and clarity items (Appendix A, line 724)", "future work and "
                     "presentation"),
    ),
)
