"""The Hypergammon kernels' constants and array layouts (internal), without numba: a
process whose kernels were compiled ahead of time (:mod:`mathbg._native`) never imports it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BLOCK",
    "BLOTBIT",
    "BLOTS",
    "CENTRE",
    "CUBELESS",
    "HIT_NEXT",
    "JACOBY",
    "LOSE_KIND",
    "MONEY_VALUES",
    "NBLOT",
    "OCC",
    "OPPONENT",
    "OPP_COLUMNS",
    "OWNED",
    "ROLL_DICE",
    "ROLL_WEIGHTS",
    "TIE",
]

#: Weight (out of 36) of each roll in gnubg's order ``(d0, d1)``, ``d0 = 1..6``, ``d1 <= d0``.
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a in range(1, 7) for b in range(1, a + 1)])
#: The dice of each roll number.
ROLL_DICE = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)

#: Plays whose values differ by less than this are ties for the probabilities (and gammon
#: rates) carried along the best play: the first of them in the generator's order is
#: followed, so round-off never flips the choice between plays of equal value.
TIE = 1e-11

#: Values per pair of a money solve (see the module docs).
MONEY_VALUES = 10
#: The cubeful money states' columns.
CUBELESS, OWNED, CENTRE, JACOBY, OPPONENT = 0, 1, 2, 3, 4

#: Columns of the opponent table ``opp[j, :]``.
BLOCK, BLOTS, NBLOT, BLOTBIT, HIT_NEXT, LOSE_KIND, OCC = 0, 1, 2, 3, 6, 14, 15
OPP_COLUMNS = 16
