"""Where a trial may stop before the game ends: the exact bearoff solver, the race evaluator.

``exact``
    Both sides with all their checkers on their 6 home points, at least one borne off and
    at most ``checkers`` left (the space of :func:`mathbg.bearoff.exact.match.solve_score`,
    default 6 x 6): the trial ends with the exact cubeful value of the side on roll at the
    score and cube state (its optimal decision when it has access to the cube, else its
    no-double value), and the exact cubeless winning chance (no gammon is possible there).
    Money play reads the solver's money limit (:func:`mathbg.bearoff.exact.match.money_limit`).
``race``
    No contact left: the trial ends with the race evaluator's cubeless chances
    (:func:`mathbg.race.race_chances`) turned cubeful by the score's cube theory.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import Board
from mathbg.analysis.rollouts.values import MatchValues, MoneyValues, ScoreValues, table_digest

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.bearoff.exact.match import GameSolution

__all__ = ["ExactEnd", "RaceEnd", "has_contact", "in_bearoff"]

_OWNER_NAMES = ("centre", "player", "opponent")


def in_bearoff(board: Board, checkers: int) -> bool:
    """Both sides on their 6 home points with 1..``checkers`` checkers (one off at least).

    Parameters
    ----------
    board : Board
        gnubg's ``TanBoard``.
    checkers : int
        The most checkers a side may have left.

    Returns
    -------
    bool
        The board lies in the ``6 x checkers`` bearoff space.

    Examples
    --------
    >>> in_bearoff(((0, 2, 1) + (0,) * 22, (3,) + (0,) * 24), 6)
    True
    >>> in_bearoff(((0,) * 7 + (1,) + (0,) * 17, (3,) + (0,) * 24), 6)
    False
    """
    for row in board:
        if any(row[6:]):
            return False
        left = sum(row[:6])
        if not 1 <= left <= min(checkers, 14):
            return False
    return True


def has_contact(board: Board) -> bool:
    """Some checker of a side still has to pass one of the other's (gnubg's test: the two
    rearmost checkers, each in its side's numbering, add up to more than 22).

    Parameters
    ----------
    board : Board
        gnubg's ``TanBoard``.

    Returns
    -------
    bool
        Contact remains (False: a race).

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> has_contact(Position.initial().board), has_contact(((1,) + (0,) * 24, (0, 1) + (0,) * 23))
    (True, False)
    """
    back = [max((i for i, c in enumerate(row) if c), default=-1) for row in board]
    return back[0] + back[1] > 22


@lru_cache(maxsize=4)
def _money(checkers: int, levels: int) -> NDArray[np.float64]:
    from mathbg.bearoff.exact.match import money_limit

    return money_limit(6, checkers, levels=levels)


def _levels(limit: int | None, cap: int) -> int | None:
    """The solver's cube levels for a cube limit (None: the score's own cap)."""
    if limit is None or limit >= cap:
        return None
    return int(limit).bit_length()


#: Solutions with a cube limit (solve_score keeps the others), the last few.
_LIMITED: dict[tuple[object, ...], GameSolution] = {}


class ExactEnd:
    """The exact bearoff solver's values at the rollout's score (see the module docs).

    Parameters
    ----------
    values : ScoreValues
        The rollout's score (its cube limit caps the solver's cube levels).
    checkers : int
        The space's checkers a side (6 x ``checkers`` points x checkers).
    disk_cache : bool
        Keep each score's solution on disk and reuse it (a process then reads it in about
        0.25 s instead of solving it in about 0.8 s, 6 x 6 at 3-away/5-away).
    """

    def __init__(self, values: ScoreValues, checkers: int = 6, *,
                 disk_cache: bool = False) -> None:  # fmt: skip
        self.values, self.checkers, self.disk_cache = values, int(checkers), bool(disk_cache)
        self._solutions: dict[int, GameSolution] = {}

    def covers(self, board: Board) -> bool:
        """The board is in the solver's space."""
        return in_bearoff(board, self.checkers)

    def _solution(self, side: int) -> GameSolution:
        if side not in self._solutions:
            from mathbg.bearoff.exact.match import cube_cap, met_mwc, solve_game, solve_score

            v = self.values
            assert isinstance(v, MatchValues)
            away = v.away if side == 0 else (v.away[1], v.away[0])
            levels = _levels(v.cube_limit, cube_cap(*away))
            if levels is None:
                sol = solve_score(away, crawford=v.crawford, met=v.met, points=6,
                                  checkers=self.checkers, disk_cache=self.disk_cache)  # fmt: skip
            else:
                key = (away, v.kind, table_digest(v.met), self.checkers, levels)
                if key not in _LIMITED:
                    while len(_LIMITED) >= 4:
                        _LIMITED.pop(next(iter(_LIMITED)))
                    _LIMITED[key] = solve_game(6, self.checkers, away, v.kind, met_mwc(v.met),
                                               levels=levels, met_name=v.met.name)  # fmt: skip
                sol = _LIMITED[key]
            self._solutions[side] = sol
        return self._solutions[side]

    def value(
        self, board: Board, side: int, cube: int, owner: int, may: bool
    ) -> tuple[float, float]:
        """The side on roll's exact value (its optimal decision when ``may``, else no
        double) and its cubeless winning chance."""
        from mathbg.bearoff.index import rank

        i = int(rank(np.asarray(board[1][:6]), 6))
        j = int(rank(np.asarray(board[0][:6]), 6))
        rel = 0 if owner < 0 else 1 if owner == side else 2
        v = self.values
        if isinstance(v, MoneyValues):
            # the money limit's cube levels count from the cube in play
            left = 10 if v.cube_limit is None else min(10, (v.cube_limit // cube).bit_length())
            table = _money(self.checkers, left)[i, j]
            nd = float(table[{0: 2, 1: 1, 2: 3}[rel]])
            if may:
                nd = max(nd, min(2.0 * float(table[3]), 1.0))
            return nd * cube / v.cube0, (float(table[0]) + 1.0) / 2.0
        sol = self._solution(side)
        arrays = sol.decision_arrays(cube, _OWNER_NAMES[rel])
        best = arrays["optimal"] if may else arrays["no_double"]
        return float(best[i, j]), float(sol.p_win()[i, j])


class RaceEnd:
    """The race evaluator at the first position without contact (see the module docs).

    Parameters
    ----------
    values : ScoreValues
        The rollout's score.
    """

    def __init__(self, values: ScoreValues) -> None:
        self.values = values

    def covers(self, board: Board) -> bool:
        """The board has no contact left."""
        return not has_contact(board)

    def cube_life(self, board: Board) -> float:
        """gnubg 1.07's cube life of the race's class (race by the pips of the side on
        roll, else bearoff)."""
        from mathbg.analysis.base import evaluation_class
        from mathbg.cube.life import cube_life
        from mathbg.rules.position import Position

        pos = Position.from_board(np.asarray(board))
        return float(cube_life(evaluation_class(pos), pos.pips()[0]))

    def chances(self, board: Board) -> tuple[float, float, float, float, float]:
        """The side on roll's cubeless race chances."""
        from mathbg.analysis.base import check_probabilities
        from mathbg.race import race_chances
        from mathbg.rules.position import Position

        ch = race_chances(Position.from_board(np.asarray(board)))
        return check_probabilities(ch.probabilities)
