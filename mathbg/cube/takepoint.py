"""Take points in gnubg's 0-ply cubeful model: where double/take meets double/pass.

The taker's take point of a position is the taker's cubeless winning chance at which the
doubler's double/take value (the doubled cube owned by the taker, :func:`cubeful_mwc`
blending dead and live with the cube life ``x``) equals the double/pass value, holding
the position's gammon and backgammon rates (fractions of each side's wins) and the cube
life fixed. The double/take value is increasing and piecewise linear in the doubler's
winning chance, so the root is bracketed on a grid of 21 chances and refined by a few
regula falsi steps (exact on a linear piece). Where the model has no break-even in [0, 1]
the take point is 0 (always a take) or 1 (never).

Money play uses the same rule with ``DT = 2 x`` the cubeful equity with the opponent
owning the cube and ``DP = +1`` (gnubg ``Cl2CfMoney``).

References
----------
GNU Backgammon 1.07.001 eval.c (``Cl2CfMatch``, ``Cl2CfMoney``, ``FindBestCubeDecision``);
R. Janowski, "Take-Points in Money Games" (1993) for the money model's cube life.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._validate import away_pair, away_score
from mathbg.cube.cubeful import cubeful_equity, cubeful_mwc, cubeless_mwc
from mathbg.cube.inputs import rates_from_probabilities
from mathbg.errors import InvalidParameterError
from mathbg.met.catalogue import as_met
from mathbg.met.table import MET
from mathbg.rules.cube import CubeOwner

__all__ = [
    "GRID",
    "STEPS",
    "break_even",
    "match_take_point",
    "match_take_points",
    "money_take_point",
    "probabilities_at",
]

#: Grid of win chances bracketing the break-even ...
GRID = np.linspace(0.0, 1.0, 21)
#: ... and the regula falsi steps after it.
STEPS = 6

Arr = NDArray[np.float64]
#: ``value_at(p_win, rows)``: the value at the win chances ``p_win`` (shape (k, m)) of the
#: problems ``rows`` (shape (k,)).
ValueAt = Callable[[Arr, NDArray[np.int64]], Arr]


def probabilities_at(probs: ArrayLike, p_win: ArrayLike) -> Arr:
    """``probs`` with the win chance replaced by ``p_win``, each side's rates kept.

    Parameters
    ----------
    probs : array_like, shape (n, 5)
        gnubg's five outputs (cumulative gammons) of ``n`` positions.
    p_win : array_like, shape (n, m)
        ``m`` win chances for each position.

    Returns
    -------
    ndarray, shape (n, m, 5)
        The five outputs at each win chance, with each side's gammon and backgammon rates
        (fractions of its wins, :func:`mathbg.cube.inputs.rates_from_probabilities`) fixed.

    Examples
    --------
    >>> probabilities_at([[0.5, 0.1, 0.0, 0.25, 0.0]], [[0.8]]).round(3).tolist()
    [[[0.8, 0.16, 0.0, 0.1, 0.0]]]
    """
    g0, b0, g1, b1 = rates_from_probabilities(np.asarray(probs, dtype=np.float64))
    w = np.asarray(p_win, dtype=np.float64)
    lose = 1.0 - w
    return np.stack([w, w * (g0 + b0)[:, None], w * b0[:, None], lose * (g1 + b1)[:, None],
                     lose * b1[:, None]], axis=-1)  # fmt: skip


def _grid(n: int) -> Arr:
    return np.broadcast_to(GRID, (n, GRID.size))


def break_even(
    value_at: ValueAt,
    target: float | ArrayLike,
    n: int,
    on_grid: Arr | None = None,
) -> Arr:
    """Per problem, the win chance where an increasing piecewise-linear value meets a target.

    Parameters
    ----------
    value_at : callable
        ``value_at(p_win, rows)`` -> values, shape of ``p_win`` (``(k, m)``), for the
        problems ``rows``; increasing and piecewise linear in the win chance.
    target : float or array_like, shape (n,)
        The value to meet (the double/pass value).
    n : int
        The number of problems.
    on_grid : ndarray, shape (n, 21), optional
        ``value_at`` already evaluated on :data:`GRID`.

    Returns
    -------
    ndarray, shape (n,)
        The win chances; 0 where the value is at or above the target everywhere, 1 where
        it stays below it.

    Examples
    --------
    >>> line = lambda p, rows: 2.0 * p - 1.0
    >>> break_even(line, 0.5, 1).round(12).tolist()
    [0.75]
    >>> break_even(line, 2.0, 1).tolist()
    [1.0]
    """
    k = np.arange(n)
    dpv = np.broadcast_to(np.asarray(target, dtype=np.float64), (n,))
    values = value_at(_grid(n), k) if on_grid is None else on_grid
    h = values - dpv[:, None]
    above = h >= 0.0
    first = np.where(above.any(axis=1), above.argmax(axis=1), GRID.size)
    out = np.where(first == 0, 0.0, 1.0)
    inner = (first > 0) & (first < GRID.size)
    idx = np.nonzero(inner)[0]
    if idx.size == 0:
        return out
    j = first[idx]
    lo, hi = GRID[j - 1].copy(), GRID[j].copy()
    h_lo, h_hi = h[idx, j - 1].copy(), h[idx, j].copy()
    for _ in range(STEPS):
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = np.where(h_hi > h_lo, lo - h_lo * (hi - lo) / (h_hi - h_lo), 0.5 * (lo + hi))
        mid = np.clip(mid, lo, hi)
        h_mid = value_at(mid[:, None], idx)[:, 0] - dpv[idx]
        up = h_mid >= 0.0
        hi, h_hi = np.where(up, mid, hi), np.where(up, h_mid, h_hi)
        lo, h_lo = np.where(up, lo, mid), np.where(up, h_lo, h_mid)
        if np.all(np.abs(h_mid) < 1e-13):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(h_hi > h_lo, lo - h_lo * (hi - lo) / (h_hi - h_lo), hi)
    out[idx] = np.clip(root, lo, hi)
    return out


def money_take_point(probs: ArrayLike, cube_life: float) -> float:
    """The taker's money take point of a position in gnubg's 0-ply model.

    Parameters
    ----------
    probs : array_like, shape (5,)
        The doubler's five outputs (cumulative gammons).
    cube_life : float
        The cube life ``x``.

    Returns
    -------
    float
        The taker's cubeless winning chance at which ``2 x`` the cubeful equity with the
        taker owning the cube equals +1 (double/pass), the gammon rates held fixed.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMoney``; gammonless it is Janowski's
    ``(L - 1/2) / (W + L + x/2)``.

    Examples
    --------
    >>> round(money_take_point([0.8, 0.0, 0.0, 0.0, 0.0], 1.0), 12)  # Janowski live: 20 %
    0.2
    >>> round(money_take_point([0.8, 0.0, 0.0, 0.0, 0.0], 0.0), 12)  # dead: 25 %
    0.25
    """
    p1 = np.asarray(probs, dtype=np.float64)[None, :]

    def dt_at(pw: Arr, k: NDArray[np.int64]) -> Arr:
        eq = cubeful_equity(probabilities_at(p1[k], pw), owner=CubeOwner.OPPONENT,
                            cube_life=cube_life)  # fmt: skip
        return 2.0 * np.asarray(eq, dtype=np.float64)

    return float(1.0 - break_even(dt_at, 1.0, 1)[0])


def match_take_point(
    probs: ArrayLike,
    met: MET | str,
    away: tuple[int, int],
    *,
    cube: int = 1,
    crawford: bool = False,
    cube_life: float,
    double_pass: float | None = None,
) -> float:
    """The taker's take point of a position at a match score in gnubg's 0-ply model.

    Parameters
    ----------
    probs : array_like, shape (5,)
        The doubler's five outputs (cumulative gammons).
    met : MET or str
        The match equity table (or a shipped table's name).
    away : (int, int)
        The score ``(doubler_away, taker_away)``: points the doubler and the taker need.
    cube : int, optional
        The cube before the double (the take gives the taker ``2 cube``).
    crawford : bool, optional
        A side 1-away: the Crawford game.
    cube_life : float
        The cube life ``x`` of the double/take value.
    double_pass : float, optional
        The doubler's MWC after a pass; default the MWC of winning ``cube`` points.

    Returns
    -------
    float
        The taker's cubeless winning chance at which double/take equals double/pass.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMatch``.

    Examples
    --------
    The dead cube at 3-away/3-away is risk / (risk + gain) from the table
    (:func:`mathbg.cube.match.take_point_dead`):

    >>> from mathbg.cube.match import take_point_dead
    >>> tp = match_take_point([0.7, 0.0, 0.0, 0.0, 0.0], "kazaross-xg2", (3, 3), cube_life=0.0)
    >>> abs(tp - take_point_dead("kazaross-xg2", (3, 3))) < 1e-12
    True
    """
    table = as_met(met)
    score = away_score(away)
    if double_pass is None:
        double_pass = float(cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], table, score, cube,
                                         crawford=crawford))  # fmt: skip
    p1 = np.asarray(probs, dtype=np.float64)[None, :]

    def dt_at(pw: Arr, k: NDArray[np.int64]) -> Arr:
        return np.asarray(cubeful_mwc(probabilities_at(p1[k], pw), table, score,
                                      cube=2 * cube, owner=CubeOwner.OPPONENT,
                                      cube_life=cube_life, crawford=crawford))  # fmt: skip

    return float(1.0 - break_even(dt_at, double_pass, 1)[0])


def match_take_points(
    probs: ArrayLike,
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike,
    crawford: ArrayLike,
    cube_life: ArrayLike,
    double_pass: ArrayLike,
    *,
    paired: bool = False,
) -> tuple[Arr, Arr]:
    """Double/take values and take points of many positions at many scores at once.

    Parameters
    ----------
    probs : array_like, shape (n, 5)
        The doublers' five outputs (cumulative gammons).
    met : MET or str
        The match equity table.
    away : (array_like, array_like), each shape (s,)
        The ``s`` scores ``(doubler_away, taker_away)``.
    cube, crawford : array_like, shape (s,)
        The cubes (before the double) and Crawford flags at those scores.
    cube_life : array_like, shape (n,)
        Each position's cube life.
    double_pass : array_like, shape (s,)
        The doubler's MWC after a pass at each score.
    paired : bool, optional
        Each position at its own score only (``s == n``, score ``i`` with position ``i``)
        instead of every position at every score.

    Returns
    -------
    double_take : ndarray, shape (s, n), or (n,) when paired
        The doubler's double/take MWC of each position at each score.
    take_point : ndarray, shape (s, n), or (n,) when paired
        The taker's take point (as :func:`match_take_point`).

    Examples
    --------
    >>> from mathbg.cube.cubeful import cubeless_mwc
    >>> probs = [[0.7, 0.0, 0.0, 0.0, 0.0], [0.6, 0.1, 0.0, 0.1, 0.0]]
    >>> dp = [cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], "kazaross-xg2", (a, a), 1) for a in (3, 5)]
    >>> dt, tp = match_take_points(probs, "kazaross-xg2", ([3, 5], [3, 5]), [1, 1],
    ...                            [False, False], [0.68, 0.68], dp)
    >>> dt.shape, tp.shape
    ((2, 2), (2, 2))
    >>> one = match_take_point(probs[1], "kazaross-xg2", (5, 5), cube_life=0.68)
    >>> bool(abs(tp[1, 1] - one) < 1e-12)
    True
    >>> dt_own, tp_own = match_take_points(probs, "kazaross-xg2", ([3, 5], [3, 5]), [1, 1],
    ...                                    [False, False], [0.68, 0.68], dp, paired=True)
    >>> bool((tp_own == tp.diagonal()).all() and (dt_own == dt.diagonal()).all())
    True
    """
    table = as_met(met)
    p = np.asarray(probs, dtype=np.float64)
    aj, bj, cj = (np.asarray(v, dtype=np.int64) for v in (*away_pair(away), cube))
    crj = np.asarray(crawford, dtype=bool)
    xs = np.asarray(cube_life, dtype=np.float64)
    n, s = p.shape[0], aj.size
    if paired:
        return _own_take_points(p, table, (aj, bj, cj, crj), xs,
                                np.asarray(double_pass, dtype=np.float64))  # fmt: skip
    # the positions' own double/take values and the take-point grid in one call
    grid = np.concatenate([p[:, None, :], probabilities_at(p, _grid(n))], axis=1)
    both = np.asarray(cubeful_mwc(grid[None], table, (aj[:, None, None], bj[:, None, None]),
                                  cube=2 * cj[:, None, None], owner=CubeOwner.OPPONENT,
                                  cube_life=xs[None, :, None],
                                  crawford=crj[:, None, None]))  # fmt: skip
    flat_s = np.repeat(np.arange(s), n)
    flat_p = np.tile(np.arange(n), s)

    def dt_at(pw: Arr, k: NDArray[np.int64]) -> Arr:
        s_, p_ = flat_s[k], flat_p[k]
        return np.asarray(cubeful_mwc(probabilities_at(p[p_], pw), table,
                                      (aj[s_, None], bj[s_, None]), cube=2 * cj[s_, None],
                                      owner=CubeOwner.OPPONENT, cube_life=xs[p_, None],
                                      crawford=crj[s_, None]), dtype=np.float64)  # fmt: skip

    dp_flat = np.asarray(double_pass, dtype=np.float64)[flat_s]
    tp = 1.0 - break_even(dt_at, dp_flat, s * n, both[:, :, 1:].reshape(s * n, -1))
    return both[:, :, 0], tp.reshape(s, n)


def _own_take_points(
    p: Arr, table: MET, scores: tuple[NDArray[np.int64], ...], xs: Arr, dp: Arr
) -> tuple[Arr, Arr]:
    """:func:`match_take_points` with ``paired``: position ``i`` at score ``i`` only (a
    score per row: the work of ``n`` cells, not ``s x n``)."""
    a, b, c, cr = scores
    if not a.size == c.size == cr.size == dp.size == xs.size == p.shape[0]:
        raise InvalidParameterError("paired take points need one score per position")

    def dt_of(probs: Arr, k: NDArray[np.int64]) -> Arr:  # rows k's chances, shape (k, m, 5)
        return np.asarray(cubeful_mwc(probs, table, (a[k, None], b[k, None]), cube=2 * c[k, None],
                                      owner=CubeOwner.OPPONENT, cube_life=xs[k, None],
                                      crawford=cr[k, None]), dtype=np.float64)  # fmt: skip

    n = p.shape[0]
    grid = np.concatenate([p[:, None, :], probabilities_at(p, _grid(n))], axis=1)
    both = dt_of(grid, np.arange(n))
    tp = break_even(lambda pw, k: dt_of(probabilities_at(p[k], pw), k), dp, n, both[:, 1:])
    return both[:, 0], 1.0 - tp
