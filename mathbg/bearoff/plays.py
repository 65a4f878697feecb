"""Bearoff plays and successor tables (documented internal API for the race and match solvers).

Every bearoff computation needs, for each position and each of the 21 rolls, the set
of positions the side can reach with a legal play. :func:`successors` builds that table
once per (points, checkers), with numpy for small spaces and a numba kernel for big ones,
and keeps it in CSR form:

``table.succ[table.ptr[i*21 + r] : table.ptr[i*21 + r + 1]]``

are the indices (gnubg bearoff order, :mod:`mathbg.bearoff.index`) of the distinct
results of roll number ``r`` (:data:`mathbg.rules.dice.ROLLS`, gnubg's order ``(1,1), (2,1),
(2,2), (3,1), ...``) from position ``i``, listed in gnubg's
move-generation order. The rules are backgammon's restricted to one side's checkers on
points 1..P with no opponent in the way (see :func:`play_results`).

Examples
--------
>>> from mathbg.bearoff import successors
>>> t = successors(6, 2)
>>> t.of([0, 0, 0, 0, 0, 1], (5, 3))    # one checker on the 6-point, roll 5-3: all off
array([0], dtype=int32)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.index import (
    all_positions,
    binomial_table,
    check_size,
    n_positions,
    rank,
    unrank,
    validate_counts,
)
from mathbg.errors import InvalidRollError
from mathbg.rules.dice import ROLL_INDEX, ROLLS, WEIGHTS, parse_roll

__all__ = [
    "ROLLS",
    "ROLL_WEIGHTS",
    "SuccessorTable",
    "move_table",
    "play_results",
    "roll_index",
    "successors",
]

#: Weight of each roll of :data:`ROLLS` out of 36 (1 for doubles, 2 otherwise), as floats.
ROLL_WEIGHTS: NDArray[np.float64] = np.array(WEIGHTS, dtype=np.float64)
ROLL_WEIGHTS.setflags(write=False)


def roll_index(roll: Any) -> int:
    """Number (0..20) in :data:`ROLLS` of a roll ``(d0, d1)`` in either order (or ``"64"``),
    or of a roll number given as an int 0..20."""
    if isinstance(roll, int | np.integer) and not isinstance(roll, bool):
        if 0 <= roll < 21:
            return int(roll)
        raise InvalidRollError(f"roll number must be in 0..20, got {roll}")
    return ROLL_INDEX[parse_roll(roll)]


@dataclass(frozen=True)
class SuccessorTable:
    """CSR table of the successors of every (position, roll) of a P x C bearoff space.

    Attributes
    ----------
    points, checkers : int
        The space: at most ``checkers`` checkers on points 1..``points``.
    ptr : numpy.ndarray of int64, shape (N*21 + 1,)
        Row pointers; row ``i*21 + r`` is position ``i`` with roll number ``r``.
    succ : numpy.ndarray of int32
        Successor indices, each row in gnubg's move-generation order. Position 0 (all
        off) has no successors.
    """

    points: int
    checkers: int
    ptr: NDArray[np.int64]
    succ: NDArray[np.int32]

    @property
    def n_positions(self) -> int:
        """Number of positions N = C(P + C, P)."""
        return (len(self.ptr) - 1) // 21

    def of(self, position: Any, roll: Any) -> NDArray[np.int32]:
        """Successor indices of ``position`` (index or checker counts) for ``roll``."""
        if isinstance(position, int | np.integer):
            index = int(position)
        else:
            index = rank(validate_counts(position, self.points, self.checkers), self.points)
        row = index * 21 + roll_index(roll)
        return self.succ[self.ptr[row] : self.ptr[row + 1]]


def play_results(counts: Sequence[int], roll: Any) -> list[tuple[int, ...]]:
    """Distinct positions reachable from ``counts`` with a legal play of ``roll``.

    The rules (standard backgammon, one side, no opponent checkers): a checker moves a
    die's pips toward the ace point; it may bear off only when all checkers are on points
    1..6, exactly or, with a die larger than needed, from the highest occupied point; as
    many dice as possible must be used (four for doubles) and, when only one die of a
    non-double can be used, the larger one if possible.

    Parameters
    ----------
    counts : sequence of int
        Checkers on points 1..P.
    roll : (int, int)
        The dice.

    Returns
    -------
    list of tuple of int
        The resulting positions (length P), in gnubg's move-generation order. A position
        with no checker left returns ``[]`` (nothing to play).
    """
    from mathbg.bearoff._play_kernels import roll_successors

    board = validate_counts(counts, len(counts))
    points = board.shape[-1]
    d0, d1 = ROLLS[roll_index(roll)]
    if not board.any():
        return []
    from mathbg.bearoff._play_kernels import MAX_SUCC

    out = np.empty(MAX_SUCC, np.int64)
    tails = np.empty(points + 1, np.int64)
    m = roll_successors(board, points, d0, d1, binomial_table(), out, tails)
    return [tuple(int(x) for x in row) for row in unrank(out[:m], points)]


#: Largest one-checker move table (bytes) :func:`move_table` builds; bigger spaces
#: (e.g. 13 points x 15 checkers) generate plays by moving checkers instead.
MOVE_TABLE_MAX_BYTES = 1 << 30


def move_table(points: int, checkers: int) -> tuple[NDArray[np.int32], NDArray[np.bool_]]:
    """One-checker move table of the space, ``S[i, d-1, s]`` (see
    :func:`mathbg.bearoff._play_kernels.single_moves`), and the "two checkers outside home"
    flags; a 1-row dummy when the table would exceed :data:`MOVE_TABLE_MAX_BYTES`.

    The table makes play generation a walk over indices (about 3-4 times faster than
    moving checkers, with the same results in the same order).
    """
    from mathbg.bearoff._play_kernels import single_moves

    n = n_positions(points, checkers)
    if n * 6 * points * 4 > MOVE_TABLE_MAX_BYTES:
        return np.full((1, 6, points), -1, np.int32), np.zeros(1, np.bool_)
    table = np.empty((n, 6, points), np.int32)
    outside2 = np.empty(n, np.bool_)
    single_moves(all_positions(points, checkers), binomial_table(), table, outside2)
    return table, outside2


@lru_cache(maxsize=8)
def _successors_cached(points: int, checkers: int) -> SuccessorTable:
    from mathbg.bearoff import _plays_vector

    if _plays_vector.fits(points, checkers):  # small: numpy, nothing to compile
        ptr, succ = _plays_vector.successor_table(points, checkers)
        ptr.setflags(write=False)
        succ.setflags(write=False)
        return SuccessorTable(points, checkers, ptr, succ)
    return _successors_compiled(points, checkers)


def _successors_compiled(points: int, checkers: int) -> SuccessorTable:
    """The successor table from the numba kernels (spaces too big for numpy's way)."""
    from mathbg.bearoff._play_kernels import csr_counts, csr_fill

    boards = all_positions(points, checkers)
    table, outside2 = move_table(points, checkers)
    # None: follow the move table (the checker-moving path is then not even compiled)
    binom = binomial_table() if table.shape[0] == 1 else None
    counts = np.empty(n_positions(points, checkers) * 21, np.int64)
    csr_counts(boards, binom, table, outside2, counts)
    ptr = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    succ = np.empty(int(ptr[-1]), np.int32)
    csr_fill(boards, binom, table, outside2, ptr, succ)
    ptr.setflags(write=False)
    succ.setflags(write=False)
    return SuccessorTable(points, checkers, ptr, succ)


def successors(points: int, checkers: int) -> SuccessorTable:
    """The successor table of the ``points`` x ``checkers`` space, built once per process.

    Building takes well under a second for 6x15 (1.1 M position-rolls) on two cores; the
    result is kept in memory (read-only arrays) for later calls. Spaces up to
    :data:`mathbg.bearoff._plays_vector.MAX_POSITIONS` positions are enumerated with
    numpy (no kernel to compile on first use), bigger ones with numba kernels; both give
    the same table.
    """
    check_size(points, checkers)
    return _successors_cached(int(points), int(checkers))
