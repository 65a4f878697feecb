"""Cubeless probabilities -> cubeful match winning chances and equities (gnubg's blend).

Probabilities are gnubg's five outputs for the player on roll, on the last axis of
``probs``: ``(p_win, p_win_gammon, p_win_backgammon, p_lose_gammon, p_lose_backgammon)``
with *cumulative* gammons (a backgammon also counts as a gammon). From them each side's
gammon and backgammon rates, **disjoint fractions of that side's wins**, feed the cube
points of :mod:`mathbg.cube.match` (gnubg ``GetPoints``).

The cubeful value is gnubg's 0-ply transformation (eval.c ``Cl2CfMatch``/``Cl2CfMoney``)::

    value = (1 - x) dead + x live

- ``dead``: the cubeless MWC ``sum_outcome P(outcome) MWC(outcome)`` at the current cube
  (money: the cubeless equity);
- ``live``: piecewise linear in ``p_win`` through the live cash points. For a centred cube
  (match): from (0, gammon-weighted loss) to (opponent's too-good point ``1 - CP_opp``,
  MWC of losing the cube) to (player's cash point ``CP``, MWC of winning the cube) to
  (1, gammon-weighted win); an owned cube drops the opponent's corner, an unavailable one
  the player's.

gnubg treats the score as cubeless (no cube value) in the Crawford game, when both sides
need no more than the cube, and at 2-away/2-away; so does :func:`cubeful_mwc`.

References
----------
GNU Backgammon eval.c (``Cl2CfMatchCentered``, ``Cl2CfMatchOwned``,
``Cl2CfMatchUnavailable``, ``Cl2CfMoney``, ``fDoCubeful``, ``FindBestCubeDecision``),
matchequity.c (``GetPoints``, ``mwc2eq``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._docstrings import shared_sections
from mathbg._validate import away_pair, away_score, cube_state
from mathbg.cube._solver import MetView, live_cash_points, mwc_grids, view_mwc
from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.cube.inputs import (
    check_away,
    check_cube,
    check_cube_life,
    check_owner,
    rates_from_probabilities,
)
from mathbg.cube.life import CONTACT_CUBE_LIFE
from mathbg.cube.money import cubeful_equity as _money_cubeful
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met.catalogue import as_met
from mathbg.met.table import MET
from mathbg.rules.match import ScoreState, may_double

__all__ = [
    "CubeDecision",
    "cube_decision",
    "cubeful_equity",
    "cubeful_mwc",
    "cubeful_mwc_rows",
    "cubeless_mwc",
    "emg",
]

Float = float | NDArray[np.float64]

# what cubeful_mwc and cubeful_equity raise
_CUBEFUL_RAISES = """
Raises
------
InvalidParameterError
    For inconsistent probabilities or a cube life outside [0, 1].
InvalidScoreError
    For a bad score or cube.
"""


def _out(a: NDArray[np.float64]) -> Float:
    return float(a) if np.ndim(a) == 0 else a


def _score(
    met: MET | str, away: tuple[int, int], cube: int, crawford: bool
) -> tuple[MET, int, int, int, ScoreState]:
    m = as_met(met)
    a, b = away_score(away)
    c = int(check_cube(cube))
    state = ScoreState.of((a, b), crawford=crawford)
    return m, a, b, c, state


def _need_score(away: tuple[int, int] | None) -> tuple[int, int]:
    if away is None:
        raise InvalidScoreError("match play needs the score, away=(player_away, opponent_away)")
    return away_score(away)


def _outcomes(m: MET, a: Any, b: Any, c: Any, post: Any) -> tuple[NDArray[np.float64], ...]:
    """MWC of the player after winning / losing 1, 2, 3 times the cube (last axis).

    ``a``, ``b``, ``c``, ``post`` are scalars or arrays of one shape S; the results have
    shape S + (3,).
    """
    k = np.array([1, 2, 3], dtype=np.int64)
    a, b, c, pa = (np.asarray(v)[..., None] for v in (a, b, c, post))
    view = MetView(m, 0)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, pa.shape, k.shape)
    wins = view_mwc(view, np.broadcast_to(a - k * c, shape), np.broadcast_to(b, shape),
                    np.broadcast_to(pa, shape))  # fmt: skip
    loses = view_mwc(view, np.broadcast_to(a, shape), np.broadcast_to(b - k * c, shape),
                     np.broadcast_to(pa, shape))  # fmt: skip
    return wins, loses


@dataclass(frozen=True)
class _Scores:
    """Scores and cube values checked and broadcast to one shape (scalars: shape ())."""

    met: MET
    a: NDArray[np.int64]
    b: NDArray[np.int64]
    c: NDArray[np.int64]
    post: NDArray[np.bool_]  #: the game is not "normal" (Crawford, post-Crawford, DMP)
    cubeful: NDArray[np.bool_]  #: gnubg applies the cube (see the module notes)


def _scores(met: MET | str, away: Any, cube: Any, crawford: Any) -> _Scores:
    """:func:`_score` for arrays: every element checked as :meth:`ScoreState.of` checks it."""
    m = as_met(met)
    first, second = away_pair(away)
    a, b, c, cr = np.broadcast_arrays(
        check_away(first, "away[0]"),
        check_away(second, "away[1]"),
        check_cube(cube),
        np.asarray(crawford, dtype=bool),
    )
    dmp = (a == 1) & (b == 1)
    one = (a == 1) ^ (b == 1)
    bad = cr & ~one
    if np.any(bad):  # raises the scalar check's message for the first bad element
        i = tuple(np.argwhere(bad)[0]) if bad.ndim else ()
        ScoreState.of((int(a[i]), int(b[i])), crawford=True)
    no_cube = (cr & one) | dmp | ((a <= c) & (b <= c)) | ((a == 2) & (b == 2))
    return _Scores(m, a, b, c, one | dmp, ~no_cube)


def cubeless_mwc(
    probs: ArrayLike,
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    *,
    crawford: ArrayLike = False,
) -> Float:
    """Cubeless MWC of the player on roll (cube life x = 0: no cube action at all):
    ``sum P(outcome) MWC(outcome)``.

    ``probs`` are gnubg's five outputs with cumulative gammons (see the module docs); the
    outcomes are single, gammon and backgammon wins and losses at the current cube.
    The two elements of ``away``, ``cube`` and ``crawford`` may be arrays (many scores at
    once): they broadcast against the leading shape of ``probs``.

    Parameters
    ----------
    probs : array_like, shape (..., 5)
        The player on roll's five outputs (cumulative gammons).
    met : MET or str
        The match equity table.
    away : (int, int) or (array_like, array_like)
        The score ``(player_away, opponent_away)``: points the player on roll and the
        opponent need.
    cube : int or array_like, optional
        The cube value.
    crawford : bool or array_like, optional
        A side 1-away: the Crawford game.

    Returns
    -------
    float or ndarray
        The cubeless match winning chance.

    Raises
    ------
    InvalidParameterError
        For inconsistent probabilities.
    InvalidScoreError
        For a bad score or cube.

    Examples
    --------
    A certain single win at 1-away/1-away wins the match:

    >>> cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], "kazaross-xg2", (1, 1))
    1.0
    """
    p = np.asarray(probs, dtype=np.float64)
    rates_from_probabilities(p)  # validates
    sc = _scores(met, away, cube, crawford)
    wins, loses = _outcomes(sc.met, sc.a, sc.b, sc.c, sc.post)
    w, wg, wb, lg, lb = (p[..., i] for i in range(5))
    lose = 1.0 - w
    value = (
        (w - wg) * wins[..., 0]
        + (wg - wb) * wins[..., 1]
        + wb * wins[..., 2]
        + (lose - lg) * loses[..., 0]
        + (lg - lb) * loses[..., 1]
        + lb * loses[..., 2]
    )
    return _out(value)


def _lin(p: Any, x0: Any, y0: Any, x1: Any, y1: Any) -> Any:
    """The line through (x0, y0) and (x1, y1) at p (elementwise), y1 where x1 <= x0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x1 > x0, y0 + (y1 - y0) * (p - x0) / np.where(x1 > x0, x1 - x0, 1.0), y1)


@shared_sections(cubeful_raises=_CUBEFUL_RAISES)
def cubeful_mwc(
    probs: ArrayLike,
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    *,
    cube: ArrayLike = 1,
    owner: str = "centre",
    cube_life: ArrayLike = CONTACT_CUBE_LIFE,
    crawford: ArrayLike = False,
) -> Float:
    """Cubeful MWC of the player on roll from cubeless probabilities (gnubg ``Cl2CfMatch``).

    Parameters
    ----------
    probs : array_like, shape (..., 5)
        ``(p_win, p_win_gammon, p_win_backgammon, p_lose_gammon, p_lose_backgammon)`` of the
        player on roll, cumulative gammons. The rates the cube points use are derived from
        them as disjoint fractions of each side's wins.
    met : mathbg.met.MET or str
        The match equity table.
    away : (int, int) or (array_like, array_like)
        The score ``(player_away, opponent_away)``: points the player on roll and the
        opponent need. A pair of arrays (with ``cube`` and ``crawford``) gives many scores
        in one call: they broadcast against the leading shape of ``probs``.
    cube : int or array_like
        Cube value.
    owner : {"centre", "player", "opponent"}
        Who holds the cube (``"player"`` = the player on roll).
    cube_life : float or array_like
        The cube life ``x`` (default :func:`mathbg.cube.life.cube_life` of a contact
        position, 0.68); broadcasts like ``away``.
    crawford : bool or array_like
        A side 1-away: the Crawford game (cubeless) rather than post-Crawford.

    Returns
    -------
    float or ndarray
        ``(1 - x) MWC_dead + x MWC_live`` (see the module docs).

    {cubeful_raises}

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMatch``.

    Examples
    --------
    A dead cube (``cube_life=0``) gives the cubeless MWC:

    >>> p = [0.6, 0.0, 0.0, 0.0, 0.0]
    >>> bool(cubeful_mwc(p, "kazaross-xg2", (5, 5), cube_life=0.0)
    ...      == cubeless_mwc(p, "kazaross-xg2", (5, 5)))
    True
    """
    p = np.asarray(probs, dtype=np.float64)
    g0, b0, g1, b1 = rates_from_probabilities(p)
    sc = _scores(met, away, cube, crawford)
    owner = check_owner(owner)
    xv = check_cube_life(cube_life)
    dead = np.asarray(cubeless_mwc(p, sc.met, (sc.a, sc.b), sc.c, crawford=crawford))
    if not np.any(sc.cubeful):
        return _out(dead)
    wins, loses = _outcomes(sc.met, sc.a, sc.b, sc.c, sc.post)
    shape = np.broadcast_shapes(np.shape(g0), sc.a.shape)
    g0, b0, g1, b1 = (np.broadcast_to(r, shape) for r in (g0, b0, g1, b1))
    # one score for every row (the usual call): the solver reads the table once per level
    # on shape (1, ...) and broadcasts, instead of once per row
    score_shape = (1,) * len(shape) if sc.a.ndim == 0 else shape
    a, b, c = (np.broadcast_to(v, score_shape) for v in (sc.a, sc.b, sc.c))
    tg, opp_cash_point = live_cash_points(MetView(sc.met, 0), a, b, c, (g0, b0, g1, b1),
                                          np.broadcast_to(sc.post, score_shape))  # fmt: skip
    opp_tg = 1.0 - opp_cash_point
    pw = np.broadcast_to(p[..., 0], shape)
    cash, opp_cash = wins[..., 0], loses[..., 0]
    win_g = (1.0 - g0 - b0) * wins[..., 0] + g0 * wins[..., 1] + b0 * wins[..., 2]
    lose_g = (1.0 - g1 - b1) * loses[..., 0] + g1 * loses[..., 1] + b1 * loses[..., 2]
    low = _lin(pw, 0.0, lose_g, opp_tg, opp_cash)
    if owner == "centre":
        mid = _lin(pw, opp_tg, opp_cash, tg, cash)
        high = _lin(pw, tg, cash, 1.0, win_g)
        live = np.where(pw <= opp_tg, low, np.where(pw < tg, mid, high))
    elif owner == "player":
        live = np.where(pw <= tg, _lin(pw, 0.0, lose_g, tg, cash), _lin(pw, tg, cash, 1.0, win_g))
    else:
        live = np.where(pw <= opp_tg, low, _lin(pw, opp_tg, opp_cash, 1.0, win_g))
    return _out(np.where(sc.cubeful, (1.0 - xv) * dead + xv * live, dead))


#: :func:`cubeful_mwc_rows`' owner codes.
OWNER_CODES = {"centre": 0, "player": 1, "opponent": 2}


def cubeful_mwc_rows(
    probs: ArrayLike,
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike,
    owner: ArrayLike,
    cube_life: ArrayLike,
    *,
    crawford: bool = False,
) -> NDArray[np.float64]:
    """:func:`cubeful_mwc` of many positions, each row at its own score, cube and owner, in
    one compiled loop: the same numbers, bit for bit.

    A rollout values thousands of positions a turn at a handful of cube states; grouped by
    owner, :func:`cubeful_mwc`'s vectorised steps cost a few milliseconds a call whatever
    the rows. Here the table is read row by row in compiled code (the kernel compiled ahead
    of time with the engine's, :mod:`mathbg._native`, else by numba).

    Parameters
    ----------
    probs : array_like, shape (n, 5)
        The player on roll's five outputs, cumulative gammons (as :func:`cubeful_mwc`).
    met : mathbg.met.MET or str
        The match equity table.
    away : (array_like, array_like)
        Points the player on roll and the opponent need, shape (n,) or scalars.
    cube : array_like
        Cube values, shape (n,) or a scalar.
    owner : array_like of int
        Who holds each cube: :data:`OWNER_CODES` (0 centre, 1 the player on roll, 2 the
        opponent), shape (n,) or a scalar.
    cube_life : array_like
        The cube life ``x`` of each row, shape (n,) or a scalar.
    crawford : bool, optional
        The game is the Crawford game (every row's score has a side 1-away).

    Returns
    -------
    ndarray, shape (n,)
        The cubeful MWCs.

    Raises
    ------
    InvalidParameterError
        For inconsistent probabilities, a cube life outside [0, 1] or an unknown owner code.
    InvalidScoreError
        For a bad score or cube.

    Examples
    --------
    >>> p = np.array([[0.6, 0.1, 0.0, 0.05, 0.0], [0.7, 0.2, 0.01, 0.1, 0.0]])
    >>> rows = cubeful_mwc_rows(p, "kazaross-xg2", ([3, 5], [5, 3]), [1, 2], [0, 2], 0.68)
    >>> one = cubeful_mwc(p[1], "kazaross-xg2", (5, 3), cube=2, owner="opponent")
    >>> bool(rows[1] == one)
    True
    """
    p = np.ascontiguousarray(probs, dtype=np.float64)
    if p.ndim != 2:
        raise InvalidParameterError(f"probabilities must have shape (n, 5); got {p.shape}")
    rates_from_probabilities(p)  # validates
    n = p.shape[0]
    first, second = away_pair(away)

    def rows(v: Any, dtype: Any, name: str) -> Any:
        if np.ndim(v) > 1 or np.size(v) not in (1, n):
            raise InvalidParameterError(
                f"{name} must be one value or one per row ({n}); got shape {np.shape(v)}")
        return np.ascontiguousarray(np.broadcast_to(np.reshape(v, -1), (n,)), dtype=dtype)

    a = rows(check_away(first, "away[0]"), np.int64, "away[0]")
    b = rows(check_away(second, "away[1]"), np.int64, "away[1]")
    c = rows(check_cube(cube), np.int64, "cube")
    x = rows(check_cube_life(cube_life), np.float64, "cube_life")
    o = rows(np.asarray(owner), np.int64, "owner")
    if n and (o.min() < 0 or o.max() > 2):
        raise InvalidParameterError(f"owner codes are 0, 1 and 2 (OWNER_CODES); got {owner!r}")
    if crawford and n and not np.all((a == 1) ^ (b == 1)):
        i = int(np.flatnonzero((a == 1) == (b == 1))[0])
        ScoreState.of((int(a[i]), int(b[i])), crawford=True)  # raises its message
    m = as_met(met)
    size = int(max(a.max(initial=1), b.max(initial=1)))
    grid0, size0 = mwc_grids(m, 0, size)
    grid1, size1 = mwc_grids(m, 1, size)
    out = np.empty(n)
    levels = np.empty((size.bit_length() + 3, 2, 6))
    _rows_kernel()(p, x, a, b, c, o, bool(crawford), grid0, np.int64(size0), grid1,
                   np.int64(size1), levels, out)  # fmt: skip
    return out


def _rows_kernel() -> Any:
    """:func:`mathbg.cube._kernels.cubeful_rows`: compiled ahead of time, else numba's."""
    from mathbg._native import compiled

    kernel = compiled("cube_cubeful_rows")
    if kernel is None:
        from mathbg.cube._kernels import cubeful_rows as kernel
    return kernel


def emg(
    mwc: ArrayLike,
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    *,
    crawford: ArrayLike = False,
    undefined: str = "raise",
) -> Float:
    """Equivalent-to-money-game equity (EMG) of a MWC at the score.

    ``EMG = 2 (MWC - MWC_lose) / (MWC_win - MWC_lose) - 1`` with win/lose = the player
    winning/losing ``cube`` points (single) from this score: gnubg's ``mwc2eq``
    (:meth:`mathbg.met.MET.mwc2eq`). The scores may be arrays (broadcast against ``mwc``).
    Where winning and losing give the same MWC (a lopsided long-match score) the EMG is
    undefined: an error, or NaN with ``undefined="nan"``.

    Parameters
    ----------
    mwc : array_like
        Match winning chances of the player.
    met : MET or str
        The match equity table.
    away : (int, int) or (array_like, array_like)
        The score ``(player_away, opponent_away)``.
    cube : int or array_like, optional
        The cube value.
    crawford : bool or array_like, optional
        A side 1-away: the Crawford game.
    undefined : {"raise", "nan"}, optional
        What an undefined EMG gives (winning and losing the same MWC): an error or NaN.

    Returns
    -------
    float or ndarray
        The EMG equity: -1 at the MWC of losing ``cube`` points, +1 at winning them.

    Raises
    ------
    InvalidScoreError
        For a bad score or cube, or an undefined EMG with ``undefined="raise"``.

    References
    ----------
    GNU Backgammon 1.07.001 matchequity.c ``mwc2eq``.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> emg(t.mwc((2, 3)), t, (3, 3)), emg(t.mwc((3, 2)), t, (3, 3))
    (1.0, -1.0)
    """
    sc = _scores(met, away, cube, crawford)
    wins, loses = _outcomes(sc.met, sc.a, sc.b, sc.c, sc.post)
    win, lose = wins[..., 0], loses[..., 0]
    same = win == lose
    if undefined == "nan":
        with np.errstate(all="ignore"):
            value = 2.0 * (np.asarray(mwc, dtype=np.float64) - lose) / (win - lose) - 1.0
        return _out(np.where(same, np.nan, value))
    if np.any(same):
        i = tuple(np.argwhere(same)[0]) if same.ndim else ()
        raise InvalidScoreError(
            f"EMG is undefined at {int(sc.a[i])}-away/{int(sc.b[i])}-away on a "
            f"{int(sc.c[i])}-cube: winning and losing the cube give the same MWC"
        )
    return _out(2.0 * (np.asarray(mwc, dtype=np.float64) - lose) / (win - lose) - 1.0)


def _money_equity(
    probs: ArrayLike,
    *,
    owner: str = "centre",
    x: ArrayLike = CONTACT_CUBE_LIFE,
    jacoby: bool = False,
) -> Float:
    """Money cubeful equity per unit cube from cubeless probabilities (gnubg ``Cl2CfMoney``).

    ``W = 1 + (p_wg + p_wb) / p_win`` and ``L`` likewise (cumulative gammons, i.e.
    ``1 + g + 2 b`` with disjoint rates), then :func:`mathbg.cube.money.cubeful_equity`.
    With (almost) certain wins or losses the cubeless equity is returned, as gnubg does.
    """
    p = np.asarray(probs, dtype=np.float64)
    g0, b0, g1, b1 = rates_from_probabilities(p)
    w = 1.0 + g0 + 2.0 * b0
    l_ = 1.0 + g1 + 2.0 * b1
    pw = p[..., 0]
    cubeless = 2.0 * pw - 1.0
    if not (jacoby and check_owner(owner) == "centre"):
        cubeless = cubeless + (p[..., 1] - p[..., 3]) + (p[..., 2] - p[..., 4])
    value = np.asarray(_money_cubeful(pw, w, l_, x, owner, jacoby=jacoby))
    extreme = (pw <= 1e-7) | (pw >= 1.0 - 1e-7)
    return _out(np.where(extreme, cubeless, value))


@shared_sections(cubeful_raises=_CUBEFUL_RAISES)
def cubeful_equity(
    probs: ArrayLike,
    met: MET | str | None = None,
    away: tuple[int, int] | None = None,
    *,
    cube: int = 1,
    owner: str = "centre",
    cube_life: ArrayLike = CONTACT_CUBE_LIFE,
    crawford: bool = False,
    jacoby: bool = False,
) -> Float:
    """Cubeful equity: money (``met=None``: per unit cube) or EMG at a match score.

    Money play (gnubg ``Cl2CfMoney``): ``W = 1 + (p_wg + p_wb) / p_win`` and ``L`` likewise
    (cumulative gammons, i.e. ``1 + g + 2 b`` with disjoint rates), then
    :func:`mathbg.cube.money.cubeful_equity`; with (almost) certain wins or losses the
    cubeless equity is returned, as gnubg does.

    Parameters
    ----------
    probs : array_like, shape (..., 5)
        The player on roll's five outputs (cumulative gammons).
    met : MET or str, optional
        The match equity table; None for money play.
    away : (int, int), optional
        The score ``(player_away, opponent_away)`` (match play).
    cube : int, optional
        The cube value.
    owner : {"centre", "player", "opponent"}, optional
        Who holds the cube.
    cube_life : float or array_like, optional
        The cube life ``x`` (default 0.68).
    crawford : bool, optional
        A side 1-away: the Crawford game.
    jacoby : bool, optional
        Money play's Jacoby rule.

    Returns
    -------
    float or ndarray
        Money: the cubeful equity per unit cube; match: the EMG equity of the cubeful MWC.

    {cubeful_raises}

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMoney``; matchequity.c ``mwc2eq``.

    Examples
    --------
    Gammonless and fully live, an owned cube is worth the line from (0, -1) to the cash
    point 80 % (+1), an unavailable one the line from the take point 20 % (-1) to (1, +1):

    >>> round(float(cubeful_equity([0.2, 0, 0, 0, 0], owner="player", cube_life=1.0)), 12)
    -0.5
    >>> round(float(cubeful_equity([0.8, 0, 0, 0, 0], owner="opponent", cube_life=1.0)), 12)
    0.5
    """
    if met is None:
        return _money_equity(probs, owner=owner, x=cube_life, jacoby=jacoby)
    score = _need_score(away)
    value = cubeful_mwc(probs, met, score, cube=cube, owner=owner, cube_life=cube_life,
                        crawford=crawford)  # fmt: skip
    return emg(value, met, score, cube, crawford=crawford)


# cube_decision repeats cubeful_equity's parameters on purpose: the public functions of
# mathbg.cube take one vocabulary (met, away, cube, owner, cube_life, crawford, jacoby).
def cube_decision(
    probs: ArrayLike,
    met: MET | str | None = None,
    away: tuple[int, int] | None = None,
    *,
    cube: int = 1,
    owner: str = "centre",
    cube_life: float = CONTACT_CUBE_LIFE,
    crawford: bool = False,
    jacoby: bool = False,
    beavers: bool = False,
) -> CubeDecision:
    """The cube decision for one set of cubeless probabilities (gnubg's 0-ply logic).

    Money (``met=None``): ND = cubeful equity with the cube where it is, DT = 2 x the
    equity with the opponent holding the cube, DP = +1. Match: ND, DT (cube ``2 cube``
    held by the opponent) as :func:`cubeful_mwc`, DP = MWC of winning ``cube`` points.
    Named by :func:`mathbg.cube.decisions.classify`.

    Parameters
    ----------
    probs : array_like, shape (5,)
        The player on roll's five outputs (cumulative gammons).
    met : MET or str, optional
        The match equity table (or a name, :func:`mathbg.met.as_met`); None for money play.
    away : (int, int), optional
        The score ``(player_away, opponent_away)``: points the player on roll and the
        opponent need (match play).
    cube : int, optional
        The cube value.
    owner : {"centre", "player", "opponent"}, optional
        Who holds the cube.
    cube_life : float, optional
        The cube life ``x`` (default gnubg's contact value,
        :func:`mathbg.cube.life.cube_life`).
    crawford : bool, optional
        A side 1-away: the Crawford game.
    jacoby, beavers : bool, optional
        Money play's Jacoby rule and beavers.

    Returns
    -------
    CubeDecision
        The action and the ND, DT, DP and optimal values (money: equities per unit cube;
        match: MWC, with the EMG equities).

    Raises
    ------
    InvalidParameterError
        For inconsistent probabilities or a cube life outside [0, 1].
    InvalidScoreError
        For a bad score or cube, or a match without both scores.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMoney``, ``Cl2CfMatch``, ``FindBestCubeDecision``.

    Examples
    --------
    >>> str(cube_decision([0.5, 0.0, 0.0, 0.0, 0.0]).action)
    'no double, take'
    >>> dec = cube_decision([0.7, 0.0, 0.0, 0.0, 0.0], cube_life=0.0)  # dead: DT = 2 ND
    >>> str(dec.action), round(dec.no_double, 12), round(dec.double_take, 12)
    ('double, take', 0.4, 0.8)
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.shape != (5,):
        raise InvalidParameterError(
            f"cube_decision takes one set of 5 probabilities; got {p.shape}"
        )
    owner = check_owner(owner)
    x = life = float(cube_life)
    can_gammon = bool(p[1] > 0.0)
    if met is None:
        check_cube(cube)  # money equities are per unit cube, but the cube must be real
        nd = float(_money_equity(p, owner=owner, x=x, jacoby=jacoby))
        if owner == "opponent":
            return CubeDecision(CubeAction.NOT_AVAILABLE, nd, None, None, nd, "equity", None, life)
        dt = 2.0 * float(_money_equity(p, owner="opponent", x=x))
        dp = 1.0
        action = classify(nd, dt, dp, can_gammon=can_gammon, beavers=beavers, money=True)
        optimal = min(dt, dp) if action.doubles else nd
        return CubeDecision(action, nd, dt, dp, optimal, "equity", None, life)
    m, a, b, c, state = _score(met, _need_score(away), cube, crawford)
    cube_state(c, owner == "centre", state == "crawford")
    nd = float(cubeful_mwc(p, m, (a, b), cube=c, owner=owner, cube_life=x, crawford=crawford))
    nd_emg = float(emg(nd, m, (a, b), c, crawford=crawford))
    if not may_double((a, b), c, owner, crawford=crawford):
        return CubeDecision(
            CubeAction.NOT_AVAILABLE, nd, None, None, nd, "mwc", (nd_emg, None, None), life
        )
    dt = float(
        cubeful_mwc(p, m, (a, b), cube=2 * c, owner="opponent", cube_life=x, crawford=crawford)
    )
    dp = float(_outcomes(m, a, b, c, state != "normal")[0][0])
    action = classify(nd, dt, dp, can_gammon=can_gammon, money=False)
    optimal = min(dt, dp) if action.doubles else nd
    emgs = tuple(float(emg(v, m, (a, b), c, crawford=crawford)) for v in (nd, dt, dp))
    return CubeDecision(action, nd, dt, dp, optimal, "mwc", emgs, life)  # type: ignore[arg-type]
