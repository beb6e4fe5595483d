"""The claims ledger of the ALE submission's discussion (alignment and local elasticity after one step).

The discussion holds only the authors' replies, with the reviews quoted in them; `where` numbers the replies r1-r6 in
order, with the items and sections each reply uses. thmcheck's elasticity family runs Ba et al.'s regression setting,
not the paper's two-class classification: a claim about classification is open until a classification data mode
exists.
"""

from theorems.ledger import Check, Claim, Cost, Ledger, NotCheckable, Status, Who

P, A, R = Who.PAPER, Who.AUTHORS, Who.REVIEWER

LEDGER = Ledger(
    paper="ale2025",
    document="the authors' six replies r1-r6, each quoting its review (items and sections as the replies number "
             "them)",
    scale="two-layer metrics averaged over 30 seeds (r5 item 7); multi-layer runs of 20 epochs on CARS196, "
          "CUB200 and ResNets; second layer N(0, I/N); learning rate n^alpha in Moniri et al.'s intervals. No n, d, "
          "N, mean or learning-rate value is given. thmcheck uses n = d = N = 250-1000 (120 for "
          "elasticity-reference), alpha = 0.2-0.3, tanh student and teacher, in the regression setting.",
    claims=(
        Claim("a1", "After one step, the Elasticity on an unseen class depends on the class mean through beta^T mu "
              "and grows with it, as a polynomial in |beta^T mu| with coefficients c_k c_k'.",
              (P,), "r1 W3; r3 on classification", Status.CHECKED, Cost.MINUTES,
              checks=(Check("elasticity-reference", "similarity-dependence"),
                      Check("elasticity-leading-coefficient", "leading-coefficient"),
                      Check("elasticity-polynomial", "leading-coefficient")),
              finding="The dependence holds, but its leading coefficient is E sigma'(Z)^2, not c_1^2 (27% apart "
                      "for tanh): elasticity-polynomial fails as expected, elasticity-leading-coefficient passes."),
        Claim("a2", "Alignment (the similarity of features within a class) rises with the same beta^T mu: both "
              "phenomena appear after one step.",
              (P,), "r2", Status.OPEN, Cost.MINUTES,
              gap="No Alignment score is simulated; the nearest check is cohesion-separability's class-mean "
                  "Cohesion, which is a different quantity.",
              proposal="A new prediction on the elasticity draws: the Alignment score of two points of the unseen "
                       "class, exact given the weights (its class-mean part by Stein's lemma), read at similarity "
                       "0.5, 1 and 2."),
        Claim("a3", "Both metrics increase monotonically with beta^T mu.",
              (A,), "r1 W3", Status.CHECKED, Cost.MINUTES,
              checks=(Check("elasticity-monotone"), Check("elasticity-monotone", mutant="increasing-in-m"),
                      Check("elasticity-monotone", mutant="flat-in-similarity"),
                      Check("elasticity-reference", "similarity-dependence")),
              finding="For the Elasticity, as an expectation over the network: every step of 0, 0.5, 1, 2, 4 in "
                      "|beta^T mu| rises on average, on both sides (the first by 0.07 of E(0), standard error 0.005, "
                      "at n = 120), so the reading in the signed similarity is rejected. One network need not "
                      "follow: 2 of 64 draws fall from 0 to 0.5. The Alignment half is a2's, not yet encoded."),
        Claim("a4", "beta^T mu is the only way beta and mu enter, once the expectation over the parameters is taken.",
              (A,), "r5 item 8", Status.CHECKED, Cost.MINUTES,
              checks=(Check("elasticity-projection"), Check("elasticity-projection", mutant="mean-norm")),
              finding="Holds for an orthogonal part of fixed size: at |mu_perp| = 1 the expected Elasticity moves by "
                      "-0.3% +- 0.2% at n = 120, shrinking with d, against -75% if the Elasticity followed ||mu||. "
                      "At |mu_perp| of order sqrt(d) it moves by a few percent (about -0.1 |mu_perp|^2/d) whatever "
                      "d, as the derivation expects."),
        Claim("a5", "The theory covers non-centred sub-Gaussian training data (for example element-wise truncated "
              "Gaussian), not only N(0, I).",
              (A,), "r1 W2; r5 items 2 and 9; r6", Status.OPEN, Cost.MINUTES,
              gap="The one-step data are N(0, I) or a Gaussian mixture.",
              proposal="A parameter train_data = gaussian | truncated | rademacher with a mean shift, under which "
                       "spike-decomposition, spike-strength and elasticity-leading-coefficient are read again."),
        Claim("a6", "With binary class labels and no Lipschitz teacher, the rank-one spike bound still holds (by an "
              "SVD argument): Proposition 3.1 holds for classification.",
              (A,), "r1 W2; r6", Status.PARTLY, Cost.MINUTES,
              checks=(Check("spike-decomposition", parameters={"teacher": "min(max(1000*z,-1),1)"}),
                      Check("spike-strength", parameters={"teacher": "min(max(1000*z,-1),1)"})),
              gap="Binary labels are checked in the regression data, through a clipped teacher of slope 1000 (labels "
                  "+-1 outside |beta^T x| < 1e-3, still Lipschitz, so inside Ba et al.'s assumptions with a large "
                  "constant). Two Gaussian classes with labels +-1, the paper's classification data, are not "
                  "simulated.",
              proposal="A data mode of two Gaussian classes +-mu_tr with labels +-1 and two heads, read by "
                       "spike-decomposition and spike-strength."),
        Claim("a7", "The same conclusions hold for regression (second layer N(0, I/N), square loss): Proposition 3.1 "
              "and Lemma 3.2 carry over.",
              (A,), "r3 on classification tasks", Status.CHECKED, Cost.MINUTES,
              checks=(Check("spike-decomposition"), Check("elasticity-leading-coefficient"),
                      Check("elasticity-reference")),
              finding="Regression is thmcheck's own setting for this family; the findings are a1's."),
        Claim("a8", "Separability of the training classes is not needed.",
              (A,), "r5 item 10", Status.OPEN, Cost.MINUTES,
              gap="Classification is not simulated.",
              proposal="In a6's data mode, class-mean distances 0.5, 1, 2 and 4; claim the laws of a1 and a2 are "
                       "unchanged."),
        Claim("a9", "A larger learning rate (a larger ell) raises the polynomial's degree and clusters the features "
              "more.",
              (A,), "r6 on the learning-rate scaling", Status.PARTLY, Cost.MINUTES,
              checks=(Check("elasticity-reference", parameters={"alpha": "0.3"}),),
              gap="alpha is a parameter, but no prediction reads terms above second order. The derivation finds "
                  "them vanishing relative to the second-order term as n grows for every alpha < 1/2, against the "
                  "authors' reading.",
              proposal="Fit the Elasticity's change in m^2 and m^4 over m in [0, 3] at alpha = 0.2 and 0.3, "
                       "n = 250-1000: the authors expect the m^4/m^2 ratio to stay, the derivation that it falls "
                       "like n^(2 alpha - 1)."),
        Claim("a10", "A reviewer: the dependence on beta^T mu may hold in a linear model as well (the authors concede "
              "that two layers are not essential).",
              (R, A), "r4 item 4", Status.CHECKED, Cost.MINUTES,
              checks=(Check("elasticity-leading-coefficient", parameters={"activation": "z"}),
                      Check("elasticity-reference", "similarity-dependence", parameters={"activation": "z"})),
              finding="The reviewer is right in the regression setting: at the identity activation the Elasticity "
                      "still grows with the similarity, with leading coefficient exactly 1 = E sigma'^2 = c_1^2 at "
                      "every n. The paper's c_1^2 and this project's E sigma'^2 coincide there, so the linear model "
                      "cannot tell them apart."),
        Claim("a11", "Theorems 5.3 and 5.4 are deterministic statements (expectations over the parameters), not "
              "high-probability ones.",
              (A,), "r4 item 2; r5 item 8", Status.OPEN, Cost.MINUTES,
              gap="The spread of one network's Elasticity around the expectation is not reported.",
              proposal="A prediction on the spread of the Elasticity over draws against n: does one network follow "
                       "the expectation?"),
        Claim("a12", "After training, recall@1 on unseen classes rises with |beta^T mu| while that of the initial "
              "features does not, and recall@1 tracks Alignment (a reviewer doubted it from the plots).",
              (A,), "r1 W1; r4 item 12", Status.OPEN, Cost.MINUTES,
              gap="Needs a6's classification data mode.",
              proposal="One step in that mode, unseen classes at similarity m; recall@1 over 30 seeds at "
                       "n = d = N = 500; Kendall's tau of recall@1 against |m|, trained against initial features."),
    ),
    not_checkable=(
        NotCheckable("ResNet18/50, CARS196/CUB200 and Kendall's W", "real data sets and deep networks, not here"),
        NotCheckable("novelty: the first sub-Gaussian assumption in classification, new steps in the proofs",
                     "a claim about the literature, not a number"),
        NotCheckable("the motivation of the two-layer and one-step settings by prior work", "an argument from "
                     "citations"),
        NotCheckable("the relation to arXiv 2410.03006 and to neural collapse", "a comparison of texts"),
        NotCheckable("writing: the appendix, Figure 1, the CK naming, Lemma 5.1 as a case of Theorem 5.2",
                     "presentation"),
        NotCheckable("the values of psi_1 and psi_2", "left unspecified by the authors"),
        NotCheckable("the multi-step staircase", "future work, with no statement to check"),
    ),
)
