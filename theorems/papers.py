"""The source papers: who wrote each, where it appeared, and which statement of it each theorem here encodes.

A paper's `key` is its first author(s) and year (`ba2022`, `demir-dogan2025`); `thmcheck papers` lists them.
`encodes` maps a theorem id to the part of the paper it encodes (a theorem, lemma, equation or figure); a theorem's
own `provenance` says how directly (as the paper states it, derived here, known from secondary sources, from the
authors' code). A theorem derived here in a paper's setting is listed under that paper. The checkable claims of a
paper's peer discussion are its ledger, `theorems.ledger`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from theorems.errors import UnknownName


@dataclass(frozen=True)
class Paper:
    """One source paper. `arxiv` is empty where the paper has no arXiv version (`openreview` names its forum
    instead); `discussion` says which peer discussion of it this project began from, empty where none."""

    key: str
    authors: str
    title: str
    venue: str
    arxiv: str = ""
    openreview: str = ""
    discussion: str = ""
    encodes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "encodes", MappingProxyType(dict(self.encodes)))

    @property
    def citation(self) -> str:
        where = f"arXiv {self.arxiv}" if self.arxiv else (f"OpenReview {self.openreview}" if self.openreview else "")
        return f"{self.authors}, '{self.title}', {self.venue}" + (f" ({where})" if where else "")


PAPERS: tuple[Paper, ...] = (
    Paper("ba2022", "Ba, Erdogdu, Suzuki, Wang, Wu and Yang",
          "High-dimensional asymptotics of feature learning: how one gradient step improves the representation",
          "NeurIPS 2022", arxiv="2205.01445",
          encodes={"spike-decomposition": "Proposition 2",
                   "spike-strength": "Proposition 2 (the spike's strength, derived here)",
                   "spike-alignment": "Proposition 2 (the spike's direction, derived here)",
                   "spike-outlier": "Proposition 2 with the BBP transition (derived here)",
                   "gaussian-equivalence": "Theorem 3",
                   "large-step-beats-linear": "Lemma 6, Theorem 7 and Corollary 8"}),
    Paper("moniri2024", "Moniri, Lee, Hassani and Dobriban",
          "A theory of non-linear feature learning with one gradient step in two-layer neural networks",
          "ICML 2024", arxiv="2310.07891",
          encodes={"spike-count": "the spike count in the feature spectrum (as reviews report it)",
                   "hermite-equivalence": "the polynomial (Hermite) equivalent of the trained features"}),
    Paper("cui2024", "Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova and Loureiro",
          "Asymptotics of feature learning in two-layer networks after one gradient step",
          "ICML 2024", arxiv="2402.04980",
          encodes={"giant-step-risk": "Result 3.3 (the authors' theory notebook)",
                   "srf-constants": "the spiked random features' constants (the authors' code)"}),
    Paper("demir-dogan2025", "Demir and Dogan",
          "Asymptotic analysis of two-layer neural networks after one gradient step under Gaussian mixtures data "
          "with structure", "ICLR 2025", arxiv="2503.00856", discussion="c",
          encodes={"mixture-spike": "Lemma 1", "mixture-equivalence": "Theorems 3 and 4",
                   "mixture-means": "the authors' replies on component means (review 2 Q2, review 1 Q2)",
                   "mixture-coefficient-class": "the authors' equivalence class of activations (review 1, part 2)"}),
    Paper("ale2025", "anonymous authors",
          "Emergence of alignment and local elasticity in two-layer neural networks",
          "ICLR 2025 submission", openreview="oeLB25A9oO", discussion="a",
          encodes={"elasticity-polynomial": "Theorems 1.4 and 5.4 (as its reviews report them)",
                   "elasticity-leading-coefficient": "Theorems 1.4 and 5.4, leading coefficient (derived here)",
                   "elasticity-reference": "the Elasticity score of Section 5 (derived here)",
                   "cohesion-separability": "Proposition 4.5 of the revised version",
                   "elasticity-monotone": "the authors' monotonicity in beta^T mu (their reply to r1 W3)",
                   "elasticity-projection": "the authors' 'only through beta^T mu' (their reply to r5)"}),
    Paper("jacot2025", "Jacot, Sukenik, Wang and Mondelli",
          "Wide neural networks trained with weight decay provably exhibit neural collapse",
          "ICLR 2025", arxiv="2410.04887", discussion="b",
          encodes={"nc1-bound": "Theorem 3.1 (2), explicit form", "balanced-collapse": "Theorem 3.1 (2)",
                   "head-conditioning": "Theorem 3.1 (3), explicit form", "nc2-bracket": "Theorem 3.1 (4)",
                   "nc3-bound": "Theorem 3.1 (5)", "pseudo-inverse-features": "a step of Theorem 3.1's proof",
                   "collapse-training": "Theorem 4.4 (its phases)",
                   "balancedness-identity": "the balancing phase of Theorem 4.4 (derived here)",
                   "balancedness-recurrence": "the balancing phase of Theorem 4.4 (derived here)",
                   "stationary-balanced": "Lemma F (derived here)",
                   "collapse-architectures": "the authors' replies on other architectures, NC4 and feature learning"}),
    Paper("du2018", "Du, Hu and Lee",
          "Algorithmic regularization in learning deep homogeneous models: layers are automatically balanced",
          "NeurIPS 2018", arxiv="1806.00900",
          encodes={"balancedness-identity": "the conserved balance of gradient flow",
                   "balancedness-recurrence": "the unregularized flow's balance (the recurrence's limit)"}),
    Paper("min2024", "Min, Mallada and Vidal",
          "Early neuron alignment in two-layer ReLU networks with small initialization",
          "ICLR 2024", arxiv="2307.12851", discussion="d",
          encodes={"early-alignment": "Theorem 1 with the constants of Appendices C and D",
                   "directional-dynamics": "eq. (4), Lemmas 1, 3 and 4",
                   "activation-monotonicity": "eqs. (7)/(8) and Lemma 12",
                   "alignment-geometry": "Lemmas 5 and 11", "conservation-law": "Section 2",
                   "alignment-time-flat": "Theorem 1's t1 in epsilon (derived here)",
                   "escape-time": "the escape from the small-norm phase (derived here)",
                   "peak-alignment": "the alignment phase's peak (derived here)",
                   "unbalanced-imbalance": "the imbalance of an unbalanced start, against the authors' reply to r1 "
                                           "(derived here)",
                   "dead-class": "a class with no live neuron, for the reviewer the authors cite in r3 (derived "
                                 "here)"}),
    Paper("boursier2022", "Boursier, Pillaud-Vivien and Flammarion",
          "Gradient flow dynamics of shallow ReLU networks for square loss and orthogonal inputs",
          "NeurIPS 2022", arxiv="2206.00939",
          encodes={"orthogonal-frozen": "the orthogonal-inputs setting (derived here)"}),
    Paper("zhou-ge2024", "Zhou and Ge",
          "How does gradient descent learn features - a local analysis for regularized two-layer neural networks",
          "NeurIPS 2024", arxiv="2406.01766", discussion="e",
          encodes={"local-recovery": "the local phase (Theorem 2), in this project's model",
                   "random-features-floor": "the reviewers' contrast with random features (rev1, rev2)",
                   "plain-recovery": "the reviewer's question on the algorithm's phases (rev3 item 6), answered in "
                                     "this project's model",
                   "subspace-spike": "the reviewer's doubt that early phases do random features inside the target "
                                     "subspace (rev3 item 7), answered for one step"}),
    Paper("cho-saul2009", "Cho and Saul", "Kernel methods for deep learning", "NeurIPS 2009",
          encodes={"dual-kernel": "the arc-cosine kernels (with Mehler's formula for any activation)",
                   "population-loss": "the arc-cosine kernel of degree one, halved"}),
)

_BY_KEY = {paper.key: paper for paper in PAPERS}


def paper(key: str) -> Paper:
    """The paper with this key; an unknown key is the user's, named with the known ones."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise UnknownName(f"unknown paper {key!r}; known: {', '.join(_BY_KEY)}") from None


def papers_of(theorem_id: str) -> list[Paper]:
    """The papers a theorem encodes a statement of, in the registry's order."""
    return [p for p in PAPERS if theorem_id in p.encodes]


def is_paper(key: str) -> bool:
    return key in _BY_KEY
