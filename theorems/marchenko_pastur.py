"""The Marchenko-Pastur law's Stieltjes transform at negative arguments, and its derivative.

Convention: x has the Marchenko-Pastur law of ratio y and unit scale (mean 1), the limit spectrum of
(1/d) G G^T for G a p x d standard Gaussian matrix with p/d -> y; for y > 1 it has an atom of mass 1 - 1/y at 0.
For s > 0, G(s) = E 1/(x + s) is the positive root of y s G^2 + (s + 1 - y) G - 1 = 0, written here in the
rationalized form 2/((s + 1 - y) + sqrt((s + 1 - y)^2 + 4 y s)) that has no cancellation, and
G'(s) = E 1/(x + s)^2 = (y G^2 + G)/sqrt((s + 1 - y)^2 + 4 y s) (implicit differentiation). Every argument may be a
float or an mpmath number; the arithmetic follows it.
"""

from __future__ import annotations

import math

import mpmath


def stieltjes(s, ratio):
    """(E 1/(x + s), E 1/(x + s)^2) for x ~ Marchenko-Pastur(ratio), s > 0."""
    sqrt = mpmath.sqrt if isinstance(s, mpmath.mpf) or isinstance(ratio, mpmath.mpf) else math.sqrt
    shifted = s + 1 - ratio
    root = sqrt(shifted**2 + 4 * ratio * s)
    value = 2 / (shifted + root)
    return value, (ratio * value**2 + value) / root
