"""The Hypergammon position space: every pair of one-side positions, with bar and off.

A *side* is the checkers of one player on the 25 cells of a gnubg ``TanBoard`` row (its
points 1..24 in its own numbering, then its bar) with at most ``C`` (1, 2 or 3) checkers
on them; the others are borne off. Sides are ranked by gnubg's ``PositionBearoff`` over
25 "points" (``positionid.c``, the combinatorial number system of
:mod:`mathbg.bearoff.index` with P = 25), as ``makehyper`` does, so there are
``C(25 + C, C)`` sides (26, 351, 3,276) and ``n**2`` pairs (676; 123,201; 10,732,176),
indexed ``(roller, opponent)``. Index 0 is the side with every checker off; moving a
checker forward lowers the index and sending one to the bar raises it.

:class:`HyperSpace` holds the sides and, for the solver's kernels
(:mod:`mathbg.hyper._kernels`), the tables of the game on them: each side's plays by roll
as *candidates* that ignore the opponent (the landing points they touch and the side
they reach, grouped by the dice they use), and for each side as the opponent the points it
blocks, its blots, where a hit sends it and how it loses. A candidate is legal against an
opponent when it touches no point the opponent holds; of the legal ones, those that use
the most dice (and, when only one die of a non-double can be played, the larger if
possible) are the plays, exactly backgammon's rules (checked against
:meth:`mathbg.rules.position.Position.legal_plays` on every position of the 1- and
2-checker spaces in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.index import binomial_table
from mathbg.errors import InvalidParameterError, InvalidPositionError
from mathbg.rules.position import Position
from mathbg.rules.variations import HYPERGAMMON_CHECKERS, hypergammon_position

__all__ = ["CELLS", "HyperSpace", "check_checkers", "space"]

#: Cells of a side: points 1..24 and the bar.
CELLS = 25


def check_checkers(checkers: Any) -> int:
    """A checker count of 1, 2 or 3.

    Parameters
    ----------
    checkers : int

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        For anything else (naming the value).

    Examples
    --------
    >>> check_checkers(2)
    2
    """
    if isinstance(checkers, bool) or not isinstance(checkers, int | np.integer):
        raise InvalidParameterError(
            f"Hypergammon is played with 1, 2 or 3 checkers a side, got {checkers!r}"
        )
    if int(checkers) not in HYPERGAMMON_CHECKERS:
        raise InvalidParameterError(
            f"Hypergammon is played with 1, 2 or 3 checkers a side, got {checkers}"
        )
    return int(checkers)


def _rank(rows: NDArray[np.int64]) -> NDArray[np.int64]:
    binom = binomial_table()
    tails = np.cumsum(rows[:, ::-1], axis=1)[:, ::-1]
    k = np.arange(CELLS)
    ranked: NDArray[np.int64] = binom[(CELLS - 1 - k) + tails, CELLS - k].sum(axis=1)
    return ranked


@dataclass(frozen=True, eq=False)
class HyperSpace:
    """Every side of ``checkers``-checker Hypergammon, and the tables of its plays.

    Attributes
    ----------
    checkers : int
        Checkers a side (1, 2 or 3).
    """

    checkers: int

    @property
    def n(self) -> int:
        """Number of sides, ``C(25 + C, C)``."""
        return int(binomial_table()[CELLS + self.checkers, self.checkers])

    @property
    def pairs(self) -> int:
        """Number of (roller, opponent) pairs, ``n**2``."""
        return self.n * self.n

    @cached_property
    def sides(self) -> NDArray[np.uint8]:
        """``uint8[n, 25]``: the checkers of each side on its cells, in index order."""
        rows = []
        for total in range(self.checkers + 1):
            for cells in combinations_with_replacement(range(CELLS), total):
                row = np.zeros(CELLS, dtype=np.int64)
                for c in cells:
                    row[c] += 1
                rows.append(row)
        arr = np.array(rows, dtype=np.int64)
        order = np.argsort(_rank(arr))
        out = arr[order].astype(np.uint8)
        if not np.array_equal(np.sort(_rank(arr)), np.arange(self.n)):
            raise AssertionError("the side index is not a bijection")  # pragma: no cover
        out.setflags(write=False)
        return out

    @cached_property
    def pips(self) -> NDArray[np.int64]:
        """Pip count of each side (a checker on the bar counts 25)."""
        out: NDArray[np.int64] = self.sides.astype(np.int64) @ np.arange(1, CELLS + 1)
        return out

    def rank(self, row: Any) -> int:
        """Index of a side given as 25 cell counts (points 1..24, bar).

        Raises
        ------
        InvalidPositionError
            If the side has more than :attr:`checkers` checkers.
        """
        arr = np.asarray(row, dtype=np.int64).reshape(1, CELLS)
        if arr.min() < 0 or arr.sum() > self.checkers:
            raise InvalidPositionError(
                f"a side of {self.checkers}-checker Hypergammon has at most {self.checkers} "
                f"checkers, got {int(arr.sum())}"
            )
        return int(_rank(arr)[0])

    def pair(self, position: Position | str) -> tuple[int, int]:
        """``(roller, opponent)`` indices of a position (side on roll first).

        Raises
        ------
        InvalidPositionError
            When it is not a position of this game (too many checkers, a point held by
            both sides, ...) or the game is over (a side has no checker left).
        """
        pos = hypergammon_position(position, self.checkers)
        if pos.is_game_over():
            raise InvalidPositionError(
                f"position {pos.id}: a side has no checker left, the game is over"
            )
        return self.rank(pos.player), self.rank(pos.opponent)

    def position(self, roller: int, opponent: int) -> Position:
        """The position of a pair (side on roll's view)."""
        s = self.sides
        return hypergammon_position(Position(bytes(s[opponent]) + bytes(s[roller])), self.checkers)

    @cached_property
    def tables(self) -> dict[str, NDArray[Any]]:
        """The kernels' tables (see the module docs): candidates and opponent tables."""
        from mathbg.hyper._compiled import kernel

        # exactly the kernels' types (the kernels compiled ahead of time do not check them)
        sides = np.ascontiguousarray(self.sides, dtype=np.int64)
        binom = np.ascontiguousarray(binomial_table(), dtype=np.int64)
        ptr, cand = kernel("build_candidates")(sides, binom)
        out = {"ptr": ptr, "cand": cand, "opp": kernel("opponent_table")(sides, binom)}
        for arr in out.values():
            arr.setflags(write=False)
        return out

    @cached_property
    def legal(self) -> NDArray[np.bool_]:
        """``bool[n, n]``: pairs that are positions of a game in progress (both sides on
        the board, no point held by both)."""
        from mathbg.hyper import _layout as k

        opp = self.tables["opp"]
        occ = opp[:, k.OCC]
        held = opp[:, k.BLOCK] | opp[:, k.BLOTS]
        ok: NDArray[np.bool_] = (occ[:, None] & held[None, :]) == 0
        ok[0, :] = False
        ok[:, 0] = False
        return ok


@cache
def space(checkers: int) -> HyperSpace:
    """The (cached) space of ``checkers``-checker Hypergammon."""
    return HyperSpace(check_checkers(checkers))
