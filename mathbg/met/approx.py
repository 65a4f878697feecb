"""Over-the-board MET approximations: Janowski, Turner and Neil's numbers.

Each formula gives the leader's MWC from the two away scores; here every function takes
the score ``away = (player_away, opponent_away)`` (scalars or arrays, broadcast) and
returns the MWC of the player (the complement when he trails), clipped to [0, 1]. With L
the leader's and T the trailer's away score and D = T - L:

- Janowski: ``50 + 85 D / (T + 6)`` percent (quoted by Stephen Turner, rec.games.backgammon
  1994, bkgm.com/rgb/rgb.cgi?view+803).
- Turner: ``50 + (24 / T + 3) D`` percent (same post).
- Neil's numbers (Neil Kazaross, via Kit Woolsey 1994, bkgm.com/rgb/rgb.cgi?view+171): each
  point of lead is worth N percent, N = 10, 9, 8, 7 at T = 3, 4, 5, 6, 6 at T = 8, 5 at
  T = 11, 4 at T = 15, linear in between (10 below T = 3, 4 beyond T = 15).

They are rules of thumb for leaders 3-away or more; against Kazaross-XG2 (leader 3..10-away,
trailer to 11) their mean error is about 0.3 % (Janowski), 0.35 % (Neil) and 0.5 % (Turner).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathbg._docstrings import shared_sections
from mathbg._validate import away_pair
from mathbg.errors import InvalidParameterError, InvalidScoreError

__all__ = ["METHODS", "approx_table", "janowski", "neil", "turner"]

_NEIL_T = np.array([3.0, 4.0, 5.0, 6.0, 8.0, 11.0, 15.0])
_NEIL_N = np.array([10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0])


#: The Parameters, Returns and Raises sections of every approximation.
_AWAY_TO_MWC = """
Parameters
----------
away : (int, int) or (array_like, array_like)
    Points the player and the opponent need (pre-Crawford).

Returns
-------
float or ndarray
    The player's match winning chance (as a fraction), from the leader's formula and
    its complement for the trailer.

Raises
------
InvalidScoreError
    For away scores that are not whole numbers >= 1.
"""


def _scores(away: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    first, second = away_pair(away)
    a = np.asarray(first)
    b = np.asarray(second)
    for arr, what in ((a, "away[0]"), (b, "away[1]")):
        if arr.dtype.kind not in "iuf" or np.any(arr < 1) or np.any(arr != np.floor(arr)):
            raise InvalidScoreError(f"{what} must hold integer away scores >= 1")
    a, b = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    lead = np.minimum(a, b)
    trail = np.maximum(a, b)
    return a, b, lead, trail


def _finish(leader_pct: np.ndarray, a: np.ndarray, b: np.ndarray) -> Any:
    leader = np.clip(leader_pct / 100.0, 0.0, 1.0)
    out = np.where(a <= b, leader, 1.0 - leader)
    return float(out) if out.ndim == 0 else out


@shared_sections(away_to_mwc=_AWAY_TO_MWC)
def janowski(away: Any) -> Any:
    """Janowski's formula: leader's MWC = 50 + 85 D / (T + 6) percent.

    {away_to_mwc}

    References
    ----------
    R. Janowski's formula, quoted by S. Turner (bkgm.com/rgb/rgb.cgi?view+803).

    Examples
    --------
    >>> round(janowski((2, 4)), 4), round(janowski((4, 2)), 4)  # 50 + 85 * 2 / 10 = 67 %
    (0.67, 0.33)
    """
    a, b, lead, trail = _scores(away)
    return _finish(50.0 + 85.0 * (trail - lead) / (trail + 6.0), a, b)


@shared_sections(away_to_mwc=_AWAY_TO_MWC)
def turner(away: Any) -> Any:
    """Turner's formula: leader's MWC = 50 + (24 / T + 3) D percent.

    {away_to_mwc}

    References
    ----------
    S. Turner's formula (bkgm.com/rgb/rgb.cgi?view+803).

    Examples
    --------
    >>> round(turner((2, 4)), 4)  # 50 + (24 / 4 + 3) * 2 = 68 %
    0.68
    """
    a, b, lead, trail = _scores(away)
    return _finish(50.0 + (24.0 / trail + 3.0) * (trail - lead), a, b)


@shared_sections(away_to_mwc=_AWAY_TO_MWC)
def neil(away: Any) -> Any:
    """Neil's numbers: leader's MWC = 50 + N(T) D percent, N interpolated in the trailer's T.

    {away_to_mwc}

    References
    ----------
    N. Kazaross' numbers as quoted on rec.games.backgammon (bkgm.com/rgb/rgb.cgi?view+171).

    Examples
    --------
    >>> round(neil((2, 4)) + neil((4, 2)), 12)
    1.0
    """
    a, b, lead, trail = _scores(away)
    per_point = np.interp(trail, _NEIL_T, _NEIL_N)
    return _finish(50.0 + per_point * (trail - lead), a, b)


#: The approximations by name.
METHODS = {"janowski": janowski, "turner": turner, "neil": neil}


def approx_table(method: str = "janowski", length: int = 15) -> np.ndarray:
    """The (length x length) pre-Crawford matrix of an approximation (row = player's away).

    Parameters
    ----------
    method : {"janowski", "neil", "turner"}, optional
        The approximation.
    length : int, optional
        The table's size.

    Returns
    -------
    ndarray, shape (length, length)
        ``[a - 1, b - 1]`` = the MWC needing ``a`` against ``b``.

    Raises
    ------
    InvalidParameterError
        For an unknown method or a bad length.

    References
    ----------
    Janowski, Neil and Turner's formulas as quoted by S. Turner, rec.games.backgammon.

    Examples
    --------
    >>> t = approx_table("janowski", 3)
    >>> float(t[0, 0]), round(float(t[1, 0] + t[0, 1]), 12)
    (0.5, 1.0)
    """
    func = METHODS.get(str(method).lower())
    if func is None:
        raise InvalidParameterError(
            f"unknown approximation {method!r}; choose one of {', '.join(METHODS)}"
        )
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise InvalidScoreError(f"length must be a positive integer, got {length!r}")
    aways = np.arange(1, length + 1)
    return np.asarray(func((aways[:, None], aways[None, :])), dtype=np.float64)
