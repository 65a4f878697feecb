"""Input checks and small conversions shared by the cube modules (numpy only).

Gammon and backgammon *rates* throughout :mod:`mathbg.cube` are **disjoint fractions of that
side's wins**, as gnubg's ``show marketwindow`` takes them: the gammon rate is the share of
wins that are gammons but not backgammons, the backgammon rate the share that are
backgammons. So a side with rates ``(g, b)`` wins a single game with probability
``1 - g - b`` of its wins, and the average value of its wins is ``W = 1 + g + 2 b``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._validate import MAX_CUBE as _MAX_CUBE
from mathbg._validate import MAX_SCORE
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.rules.cube import CubeOwner

__all__ = [
    "CUBE_LEVELS",
    "MAX_AWAY",
    "MAX_CUBE",
    "OWNERS",
    "average_win_value",
    "check_away",
    "check_cube",
    "check_owner",
    "check_pair",
    "check_rates",
    "is_power_of_two",
    "rates_from_probabilities",
]

#: Largest score (points away) the cube solvers accept; largest cube value (2**12).
MAX_AWAY, MAX_CUBE = MAX_SCORE, _MAX_CUBE

#: Cube values the score matrix covers by default (gnubg's ``MAXCUBELEVEL`` = 7 levels).
CUBE_LEVELS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)

#: Names of the cube owner (:class:`~mathbg.rules.cube.CubeOwner`).
OWNERS: tuple[str, ...] = tuple(CubeOwner)


def check_owner(owner: CubeOwner | str) -> CubeOwner:
    """Normalise a cube owner (:meth:`CubeOwner.parse <mathbg.rules.cube.CubeOwner.parse>`).

    Parameters
    ----------
    owner : CubeOwner or str
        ``"centre"``, ``"player"`` or ``"opponent"`` (or a :class:`CubeOwner`).

    Returns
    -------
    CubeOwner
        The owner.

    Raises
    ------
    InvalidParameterError
        For an unknown owner.

    Examples
    --------
    >>> str(check_owner("player"))
    'player'
    """
    return CubeOwner.parse(owner)


def is_power_of_two(value: ArrayLike) -> NDArray[np.bool_]:
    """Elementwise: is ``value`` a positive integer power of two (1, 2, 4, ...)?

    Parameters
    ----------
    value : array_like
        Numbers.

    Returns
    -------
    ndarray of bool
        True where the value is 1, 2, 4, ...

    Examples
    --------
    >>> is_power_of_two([1, 3, 8, 0]).tolist()
    [True, False, True, False]
    """
    v = np.asarray(value)
    if not np.issubdtype(v.dtype, np.integer):
        as_int = np.rint(v).astype(np.int64)
        ok = np.isfinite(v) & (as_int == v)
        v = np.where(ok, as_int, 0)
    else:
        ok = np.ones(v.shape, dtype=bool)
    v = v.astype(np.int64)
    out: NDArray[np.bool_] = ok & (v > 0) & ((v & (v - 1)) == 0)
    return out


def _numeric(
    value: ArrayLike, what: str, error: type[InvalidScoreError], most: int
) -> NDArray[Any]:
    """``np.asarray(value)``, refusing what is not numbers of a machine size (e.g. a
    22-digit integer, which numpy keeps as a Python object)."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise error(f"{what} must be numbers; got {str(value)[:60]}") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise error(f"{what} must be a number of at most {most} (got {str(value)[:60]})")
    return arr


def check_cube(cube: ArrayLike) -> NDArray[np.int64]:
    """Check that every cube value is a power of two 1, 2, 4, ..., :data:`MAX_CUBE`;
    return an int64 array.

    Parameters
    ----------
    cube : array_like
        Cube values.

    Returns
    -------
    ndarray of int64
        The cube values as integers (``2.0`` -> ``2``), in the input's shape.

    Raises
    ------
    InvalidScoreError
        For a value that is not a power of two up to ``MAX_CUBE``.

    Examples
    --------
    >>> check_cube([1, 2, 64]).tolist()
    [1, 2, 64]
    """
    arr = _numeric(cube, "cube value", InvalidScoreError, MAX_CUBE)
    if arr.dtype != bool and np.any(np.abs(arr.astype(np.float64)) > MAX_CUBE):
        raise InvalidScoreError(f"cube value must be at most {MAX_CUBE}; got {cube!r}")
    if arr.dtype == bool or not np.all(is_power_of_two(arr)):
        bad = arr if arr.ndim == 0 else arr[~is_power_of_two(arr)].ravel()[0]
        raise InvalidScoreError(f"cube value must be a power of two (1, 2, 4, ...); got {bad}")
    out: NDArray[np.int64] = np.rint(arr).astype(np.int64)
    return out


def check_away(away: ArrayLike, what: str = "away") -> NDArray[np.int64]:
    """Check points-away values: whole numbers in 1..:data:`MAX_AWAY`.

    Scores beyond a table's length are read from its extension (Montgomery's model for the
    pre-Crawford table, Zadeh's recurrence post-Crawford, as gnubg does).

    Parameters
    ----------
    away : array_like
        Points a side needs.
    what : str, optional
        The name used in the error message.

    Returns
    -------
    ndarray of int64
        The away scores as integers, in the input's shape.

    Raises
    ------
    InvalidScoreError
        For a value that is not a whole number in 1..``MAX_AWAY``.

    Examples
    --------
    >>> check_away([1, 7]).tolist()
    [1, 7]
    """
    arr = _numeric(away, what, InvalidScoreError, MAX_AWAY)
    if arr.dtype != bool and np.any(np.abs(arr.astype(np.float64)) > MAX_AWAY):
        shown = str(away) if len(str(away)) <= 60 else str(away)[:57] + "..."
        raise InvalidScoreError(f"{what} must lie in 1..{MAX_AWAY}; got {shown}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or not np.all(np.rint(arr) == arr):
            raise InvalidScoreError(f"{what} must be a whole number of points; got {away!s}")
    iarr = np.rint(arr).astype(np.int64)
    if np.any(iarr < 1):
        raise InvalidScoreError(
            f"{what} must be at least 1 (a side 0-away has already won the match); "
            f"got {int(iarr.min())}"
        )
    if np.any(iarr > MAX_AWAY):
        raise InvalidScoreError(f"{what} = {int(iarr.max())} is beyond {MAX_AWAY}-away")
    out: NDArray[np.int64] = iarr
    return out


def check_rates(
    gammon: ArrayLike, backgammon: ArrayLike, who: str = "player"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Check one side's gammon and backgammon rates (disjoint fractions of its wins).

    Each must lie in [0, 1], the backgammon rate may not exceed the gammon rate, and
    together they may not exceed 1 (they are shares of the same wins).

    Parameters
    ----------
    gammon, backgammon : array_like
        The side's disjoint gammon and backgammon rates.
    who : str, optional
        The side's name in the error message.

    Returns
    -------
    (ndarray, ndarray)
        The two rates as floats.

    Raises
    ------
    InvalidParameterError
        For rates outside [0, 1], a backgammon rate above the gammon rate or a sum above 1.

    Examples
    --------
    >>> [float(v) for v in check_rates(0.2, 0.01)]
    [0.2, 0.01]
    """
    g = np.asarray(gammon, dtype=np.float64)
    b = np.asarray(backgammon, dtype=np.float64)
    for name, r in (("gammon", g), ("backgammon", b)):
        if not np.all(np.isfinite(r)) or np.any(r < 0.0) or np.any(r > 1.0):
            raise InvalidParameterError(
                f"{who}'s {name} rate must be a fraction in [0, 1] of that side's wins; got {r}"
            )
    if np.any(b > g + 1e-12):
        raise InvalidParameterError(
            f"{who}'s backgammon rate ({b}) is above the gammon rate ({g}); the rates are "
            "disjoint shares of wins and backgammons cannot outnumber gammons"
        )
    if np.any(g + b > 1.0 + 1e-12):
        raise InvalidParameterError(
            f"{who}'s gammon + backgammon rates exceed 1 ({g} + {b}); they are disjoint "
            "shares of that side's wins"
        )
    return g, b


def check_pair(values: Any, name: str) -> tuple[float, float]:
    """A pair of numbers (first-named player, opponent), e.g. ``(0.25, 0.2)``.

    Parameters
    ----------
    values : sequence of 2 numbers
        The pair.
    name : str
        The name used in the error message.

    Returns
    -------
    (float, float)
        The pair as floats.

    Raises
    ------
    InvalidParameterError
        For anything but a pair.

    Examples
    --------
    >>> check_pair([0.25, 0.2], "gammons")
    (0.25, 0.2)
    """
    if isinstance(values, (int, float, np.floating, np.integer)):
        return float(values), float(values)
    if not isinstance(values, Sequence | np.ndarray) or len(values) != 2:
        raise InvalidParameterError(
            f"{name} must be a pair (first-named player, opponent); got {values!r}"
        )
    return float(values[0]), float(values[1])


def check_cube_life(cube_life: ArrayLike) -> NDArray[np.float64]:
    """Check a cube life (cube efficiency, the ``x`` of the formulas) in [0, 1].

    Parameters
    ----------
    cube_life : array_like
        0 a dead cube, 1 a fully live one.

    Returns
    -------
    ndarray
        The values as floats.

    Raises
    ------
    InvalidParameterError
        For a value outside [0, 1] or not finite.

    Examples
    --------
    >>> float(check_cube_life(0.68))
    0.68
    """
    arr = np.asarray(cube_life, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > 1.0):
        raise InvalidParameterError(
            f"cube life x must lie in [0, 1] (0 dead, 1 live); got {cube_life!s}"
        )
    return arr


def average_win_value(gammon: ArrayLike, backgammon: ArrayLike) -> NDArray[np.float64]:
    """Average cubeless value of a side's wins, ``W = 1 + g + 2 b``.

    ``g`` and ``b`` are disjoint fractions of that side's wins (gammons that are not
    backgammons, and backgammons). In Janowski's notation with cumulative counts this is
    ``1 + (wins_gammon + wins_backgammon) / wins``; gnubg ``getMoneyPoints`` uses the same.

    Parameters
    ----------
    gammon, backgammon : array_like
        Disjoint gammon and backgammon rates of the side (fractions of its wins).

    Returns
    -------
    ndarray
        ``1 + g + 2 b`` for each pair of rates (numpy, the rates broadcast together).

    Raises
    ------
    InvalidParameterError
        For rates outside [0, 1] or summing above 1 (:func:`check_rates`).

    Examples
    --------
    >>> float(average_win_value(0.2, 0.05))
    1.3
    """
    g, b = check_rates(gammon, backgammon)
    return 1.0 + g + 2.0 * b


def rates_from_probabilities(
    probs: ArrayLike,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Disjoint gammon/backgammon rates of both sides from cubeless probabilities.

    ``probs`` holds gnubg's five outputs on its last axis: ``(p_win, p_win_gammon,
    p_win_backgammon, p_lose_gammon, p_lose_backgammon)`` with *cumulative* gammons (a
    backgammon also counts as a gammon). Returns ``(g0, b0, g1, b1)``, each a fraction of that
    side's wins; a side that never wins gets rates 0 (as gnubg ``GetPoints``).

    Parameters
    ----------
    probs : array_like, shape (..., 5)
        gnubg's five outputs (cumulative gammons).

    Returns
    -------
    (g0, b0, g1, b1) : tuple of ndarray
        The player's and the opponent's disjoint gammon and backgammon rates.

    Raises
    ------
    InvalidParameterError
        For inconsistent probabilities.

    Examples
    --------
    >>> [round(float(v), 12) for v in rates_from_probabilities([0.5, 0.2, 0.05, 0.1, 0.0])]
    [0.3, 0.1, 0.2, 0.0]
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.shape[-1] != 5:
        raise InvalidParameterError(
            "probabilities must have 5 entries (win, win gammon, win backgammon, lose gammon, "
            f"lose backgammon); got shape {p.shape}"
        )
    w, wg, wb, lg, lb = (p[..., k] for k in range(5))
    if (
        not np.all(np.isfinite(p))
        or np.any(p < -1e-9)
        or np.any(w > 1 + 1e-9)
        or np.any(wb > wg + 1e-9)
        or np.any(wg > w + 1e-9)
        or np.any(lb > lg + 1e-9)
        or np.any(lg > 1 - w + 1e-9)
    ):
        raise InvalidParameterError(
            "inconsistent probabilities: need 0 <= win_bg <= win_gammon <= win <= 1 and "
            f"0 <= lose_bg <= lose_gammon <= 1 - win; got {p}"
        )
    lose = 1.0 - w
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(w > 0, (wg - wb) / w, 0.0)
        b0 = np.where(w > 0, wb / w, 0.0)
        g1 = np.where(lose > 0, (lg - lb) / lose, 0.0)
        b1 = np.where(lose > 0, lb / lose, 0.0)

    def clip(a: NDArray[np.float64]) -> NDArray[np.float64]:  # rounding in float32 inputs
        return np.clip(a, 0.0, 1.0)

    return clip(g0), clip(b0), clip(g1), clip(b1)
