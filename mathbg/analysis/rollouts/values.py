"""What a game is worth at the rollout's score: the values the trials play for.

Side 0 is the player on roll at the rolled-out position, side 1 the opponent. A match
rollout counts in match winning chances (MWC) at the score, through the match equity
table: a game won by ``k`` points is worth the table's value at the score it leads to
(:func:`mathbg.bearoff.exact.match.after_game`), and the cube decisions are mathbg's
0-ply cubeless -> cubeful step (:func:`mathbg.cube.cubeful.cubeful_mwc`, gnubg's
``Cl2CfMatch``). A money rollout counts in points per unit of the position's cube
(gnubg's normalised equity), its cube decisions through
:func:`mathbg.cube.cubeful.cubeful_equity` (Janowski, gnubg's ``Cl2CfMoney``), under
gnubg's money rules when asked: the Jacoby rule (a gammon or backgammon counts one point
while the cube is centred, and the centred cube's value knows it) and beavers (gnubg's
``FindBestCubeDecision``: a double the taker would beaver, double/take between -2 and 0
with twice it below no double, is not made; one made anyway is taken, as gnubg's
rollouts play it). Every
function takes arrays (one entry per game) so that a turn of a whole batch of trials is a
few vectorised calls.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.exact.match import after_game, met_mwc, next_kind
from mathbg.met.table import MET
from mathbg.rules.match import ScoreState

__all__ = ["MatchValues", "MoneyValues", "ScoreValues", "table_digest"]

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
_OWNERS = ("centre", "player", "opponent")


def table_digest(met: MET) -> str:
    """SHA-256 of a table's values (pre- and post-Crawford, with their shapes): what makes
    two tables the same to a rollout.

    Parameters
    ----------
    met : MET
        The match equity table whose entries are hashed (its name is not).

    Returns
    -------
    str
        The hex digest.

    Examples
    --------
    >>> from mathbg.met import load
    >>> table_digest(load("kazaross-xg2")) == table_digest(load("kazaross-xg2"))
    True
    """
    import hashlib

    h = hashlib.sha256()
    for arr in (met.pre, met.post):
        a = np.ascontiguousarray(np.asarray(arr, dtype=np.float64))
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _relative(side: Ints, owner: Ints) -> Ints:
    """The cube owner as the side sees it: 0 centre, 1 the side, 2 the other side
    (:data:`mathbg.cube.cubeful.OWNER_CODES`)."""
    return np.where(owner < 0, 0, np.where(owner == side, 1, 2))


class ScoreValues:
    """The values of one rollout's score (base of :class:`MatchValues` and
    :class:`MoneyValues`): cube access, cube decisions, game results, checker-play weights.

    Attributes
    ----------
    cube0 : int
        The cube of the rolled-out position (the unit of a money rollout).
    cube_limit : int or None
        The largest cube value.
    unit : str
        ``"mwc"`` (match winning chances) or ``"equity"`` (money, per unit of ``cube0``).
    jacoby, beavers : bool
        Money play's rules in force (False at a match score).
    """

    cube0: int
    cube_limit: int | None
    unit: str = "mwc"
    jacoby: bool = False
    beavers: bool = False

    def may_double(self, side: Ints, cube: Ints, owner: Ints) -> NDArray[np.bool_]:
        """May the side on roll double (``owner`` -1 centre, else the side holding it)?"""
        limit = self.cube_limit or 1 << 40
        may: NDArray[np.bool_] = ((owner < 0) | (owner == side)) & (2 * cube <= limit)
        return may

    def cubeful(self, probs: Floats, x: Floats, side: Ints, cube: Ints, owner: Ints) -> Floats:
        """The side on roll's cubeful value from its cubeless chances, before its cube
        decision (``no double``)."""
        raise NotImplementedError  # pragma: no cover

    def win(self, side: int, points: int) -> float:
        """Side ``side``'s value when it wins ``points`` points."""
        raise NotImplementedError  # pragma: no cover

    def lose(self, side: int, points: int) -> float:
        """Side ``side``'s value when the other side wins ``points`` points."""
        raise NotImplementedError  # pragma: no cover

    def other(self, value: Floats) -> Floats:
        """The other side's value of the same game (a constant-sum game)."""
        raise NotImplementedError  # pragma: no cover

    def of_player(self, value: Floats, side: Ints) -> Floats:
        """Side 0's value from side ``side``'s."""
        return np.where(side == 0, value, self.other(value))

    def points(self, result: int, cube: int, owner: int) -> int:
        """The points a game won with ``result`` (1 single, 2 gammon, 3 backgammon) is
        worth at ``cube`` held by ``owner`` (-1 centre, else the side holding it)."""
        return int(result) * int(cube)

    def doubles(self, nd: Floats, dt: Floats, dp: Floats) -> NDArray[np.bool_]:
        """Does the doubler double (gnubg ``FindBestCubeDecision``: double/take and
        double/pass both at least no double)?"""
        out: NDArray[np.bool_] = (dt >= nd) & (dp >= nd)
        return out

    def optimal(self, nd: Floats, dt: Floats, dp: Floats) -> Floats:
        """The doubler's value after the cube decision :meth:`doubles` makes (a double
        taken when double/take is below double/pass)."""
        return np.where(self.doubles(nd, dt, dp), np.minimum(dt, dp), nd)

    def decisions(
        self, probs: Floats, x: Floats, side: Ints, cube: Ints, owner: Ints
    ) -> tuple[Floats, Floats, Floats]:
        """No double, double/take and double/pass, the doubler's values."""
        nd = self.cubeful(probs, x, side, cube, owner)
        dt = self.cubeful(probs, x, side, 2 * cube, 1 - side)
        dp = np.array([self.win(int(s), int(c)) for s, c in zip(side, cube, strict=True)])
        return nd, dt, dp

    def play_weights(self, side: int, cube: int, owner: int = 0) -> Floats:
        """Weights ``w`` with ``chances @ w`` the mover's cubeless value after a play, up to
        a constant, from the next side's chances (the score's gammon values; ``owner``
        -1 centre, else the side holding the cube): a rollout plays the play with the
        largest."""
        return _weights(self, side, cube, owner)

    def emg(self, value: float, cube: int) -> tuple[float, float]:
        """The EMG of side 0's value and the factor that turns its standard error into
        the EMG's (money: the value itself, factor 1)."""
        raise NotImplementedError  # pragma: no cover


def _weights(values: ScoreValues, side: int, cube: int, owner: int) -> Floats:
    ws, wg, wb = (values.win(side, values.points(k, cube, owner)) for k in (1, 2, 3))
    ls, lg, lb = (values.lose(side, values.points(k, cube, owner)) for k in (1, 2, 3))
    return np.array([ls - ws, lg - ls, lb - lg, wg - ws, wb - wg])


class MatchValues(ScoreValues):
    """The values of a match score: MWC through the table ``met``.

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        The score, side 0's points to go first.
    crawford : bool
        The game rolled out is the Crawford game (a side 1-away, no cube).
    cube0 : int
        The position's cube.
    cube_limit : int or None
        The largest cube value.

    Examples
    --------
    >>> from mathbg.met import load
    >>> v = MatchValues(load("kazaross-xg2"), (3, 5), False, 1, None)
    >>> v.win(0, 1) == float(load("kazaross-xg2").mwc((2, 5)))
    True
    """

    def __init__(self, met: MET, away: tuple[int, int], crawford: bool, cube0: int,
                 cube_limit: int | None) -> None:  # fmt: skip
        self.met, self.away, self.crawford = met, (int(away[0]), int(away[1])), bool(crawford)
        self.cube0, self.cube_limit = int(cube0), cube_limit
        state = ScoreState.of(self.away, crawford=self.crawford)
        self.kind = ScoreState.POST_CRAWFORD if state is ScoreState.DMP else state
        self._wins: dict[tuple[int, int], float] = {}

    def may_double(self, side: Ints, cube: Ints, owner: Ints) -> NDArray[np.bool_]:
        """gnubg's access rules (:func:`mathbg.rules.match.may_double`), vectorised: never
        in the Crawford game, never with a dead cube (the side needs no more than the
        cube), only from the centre or one's own side, within the cube limit."""
        if self.kind is ScoreState.CRAWFORD:
            return np.zeros(len(side), dtype=bool)
        mine = np.where(side == 0, self.away[0], self.away[1])
        return (mine > cube) & super().may_double(side, cube, owner)

    def aways(self, side: Ints) -> tuple[Ints, Ints]:
        """The side's and the other side's points to go."""
        a, b = self.away
        return np.where(side == 0, a, b), np.where(side == 0, b, a)

    def cubeful(self, probs: Floats, x: Floats, side: Ints, cube: Ints, owner: Ints) -> Floats:
        from mathbg.cube.cubeful import cubeful_mwc_rows

        # every row at its own score, cube and owner in one compiled call (the owner codes
        # of _relative are cubeful_mwc_rows' own)
        return cubeful_mwc_rows(probs, self.met, self.aways(side), cube, _relative(side, owner),
                                x, crawford=self.kind is ScoreState.CRAWFORD)  # fmt: skip

    def win(self, side: int, points: int) -> float:
        key = (int(side), int(points))
        if key not in self._wins:
            a, b = self.away
            a2, b2 = (a - key[1], b) if key[0] == 0 else (a, b - key[1])
            mwc0 = after_game(met_mwc(self.met), a2, b2, next_kind(self.kind, a2, b2))
            self._wins[key] = float(mwc0 if key[0] == 0 else 1.0 - mwc0)
        return self._wins[key]

    def lose(self, side: int, points: int) -> float:
        return 1.0 - self.win(1 - side, points)

    def other(self, value: Floats) -> Floats:
        return 1.0 - value

    def emg(self, value: float, cube: int) -> tuple[float, float]:
        lose, win = self.lose(0, cube), self.win(0, cube)
        if win == lose:
            return float("nan"), float("nan")
        return 2.0 * (value - lose) / (win - lose) - 1.0, 2.0 / (win - lose)


class MoneyValues(ScoreValues):
    """The values of money play: points per unit of the position's cube.

    Parameters
    ----------
    cube0 : int
        The cube of the rolled-out position (the values are per unit of it).
    cube_limit : int or None
        No cube above this value (None: no limit).
    jacoby : bool
        The Jacoby rule: while the cube is centred a gammon or backgammon counts one point.
    beavers : bool
        The taker may beaver (see the module notes).

    Examples
    --------
    >>> MoneyValues(2, None).win(1, 4)
    2.0
    >>> MoneyValues(1, None, jacoby=True).points(2, 1, -1)  # a gammon, the cube centred
    1
    """

    unit = "equity"

    def __init__(self, cube0: int, cube_limit: int | None, *, jacoby: bool = False,
                 beavers: bool = False) -> None:  # fmt: skip
        self.cube0, self.cube_limit = int(cube0), cube_limit
        self.jacoby, self.beavers = bool(jacoby), bool(beavers)

    def points(self, result: int, cube: int, owner: int) -> int:
        if self.jacoby and owner < 0:
            return int(cube)
        return int(result) * int(cube)

    def doubles(self, nd: Floats, dt: Floats, dp: Floats) -> NDArray[np.bool_]:
        out = super().doubles(nd, dt, dp)
        if self.beavers:  # a double the taker would beaver is not made
            out = out & ~((dp > dt) & (dt >= -2.0 * dp) & (dt <= 0.0) & (2.0 * dt < nd))
        return out

    def cubeful(self, probs: Floats, x: Floats, side: Ints, cube: Ints, owner: Ints) -> Floats:
        from mathbg.cube.cubeful import cubeful_equity

        out = np.empty(len(side))
        rel = _relative(side, owner)
        for k in np.unique(rel):
            g = rel == k
            per_cube = cubeful_equity(probs[g], None, owner=_OWNERS[int(k)], cube_life=x[g],
                                      jacoby=self.jacoby and k == 0)  # fmt: skip
            out[g] = np.asarray(per_cube) * cube[g] / self.cube0
        return out

    def win(self, side: int, points: int) -> float:
        return float(points) / self.cube0

    def lose(self, side: int, points: int) -> float:
        return -float(points) / self.cube0

    def other(self, value: Floats) -> Floats:
        return -value

    def emg(self, value: float, cube: int) -> tuple[float, float]:
        return value, 1.0
