"""Money-play cube theory: Janowski's general model.

All functions are vectorised (numpy broadcasting) and work in the *player's* terms:

- ``p``: the player's cubeless probability of winning the game;
- ``W``: the average cubeless value of the player's wins, ``L``: of the player's losses
  (so ``L`` is the opponent's ``W``); with gammon rate ``g`` and backgammon rate ``b`` as
  **disjoint fractions of that side's wins** (gammons that are not backgammons, and
  backgammons, as gnubg's ``show marketwindow`` takes them), ``W = 1 + g + 2 b``
  (:func:`win_value`);
- ``x``: the cube life (cube efficiency) from 0 (dead cube: the game is played to the end
  at the current stake) to 1 (fully live: the cube is turned exactly at the opponent's take
  point). Janowski's "typical" value is about 2/3; gnubg uses 0.68 in contact.

Every point is the player's winning chance ``p`` at which the action breaks even:

=================  ==============================================  =========  =========
point              formula (Janowski 1993)                         dead x=0   live x=1
=================  ==============================================  =========  =========
take               (L - 1/2) / (W + L + x/2)                       25 %       20 %
beaver             L / (W + L + x/2)                               50 %       40 %
raccoon            (L + x/2) / (W + L + x/2)                       50 %       60 %
initial double     [L + x(3 - x) / (2(2 - x))] / (W + L + x/2)     50 %       80 %
redouble           (L + x) / (W + L + x/2)                         50 %       80 %
cash               (L + 1/2 + x/2) / (W + L + x/2)                 75 %       80 %
too good           (L + 1) / (W + L + x/2)                         100 %      80 %
=================  ==============================================  =========  =========

(percentages for ``W = L = 1``). With the Jacoby rule the initial double point is the
plain one times Janowski's Jacoby factor ``k1`` (``k2`` with beavers), see
:func:`jacoby_factor`.

The model's cubeful equities per unit cube (valid inside the doubling window) are
``E_owned = p (W + L + x/2) - L``, ``E_unavailable = p (W + L + x/2) - L - x/2`` and, for a
centred cube without Jacoby, ``E_centred = 4 / (4 - x) [p (W + L + x/2) - L - x/4]``.
:func:`cubeful_equity` gives gnubg's version, valid for every ``p``: the blend
``(1 - x) E_dead + x E_live`` of the cubeless equity and a piecewise-linear fully-live
equity through the live take and cash points (gnubg eval.c ``Cl2CfMoney``, ``MoneyLive``).

References
----------
R. Janowski, "Take-Points in Money Games" (1993),
bkgm.com/articles/Janowski/cubeformulae.pdf. GNU Backgammon eval.c ``getMoneyPoints``
(whose dead and live columns are the x = 0 and x = 1 cases above).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._docstrings import shared_sections
from mathbg._output import FrameMixin
from mathbg.cube.decisions import CubeAction, CubeDecision
from mathbg.cube.inputs import (
    average_win_value,
    check_cube_life,
    check_owner,
    check_pair,
    check_rates,
)
from mathbg.cube.life import JANOWSKI_CUBE_LIFE
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CubeActionResult",
    "MoneyPoint",
    "MoneyPoints",
    "beaver_point",
    "cube_action",
    "cubeful_equity",
    "equity_centred",
    "equity_cubeless",
    "equity_owned",
    "equity_unavailable",
    "initial_double_point",
    "jacoby_factor",
    "money_cash_point",
    "money_points",
    "money_take_point",
    "money_too_good_point",
    "raccoon_point",
    "redouble_point",
    "win_value",
]


Float = float | NDArray[np.float64]


def _wl(W: ArrayLike, L: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    w = np.asarray(W, dtype=np.float64)
    l_ = np.asarray(L, dtype=np.float64)
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(l_))):
        raise InvalidParameterError("W and L must be finite numbers")
    if np.any(w < 1.0) or np.any(l_ < 1.0) or np.any(w > 3.0) or np.any(l_ > 3.0):
        raise InvalidParameterError(
            "W and L (average value of wins and of losses) must lie in [1, 3]; "
            f"got W={W!s}, L={L!s}"
        )
    return w, l_


def _out(a: NDArray[np.float64]) -> Float:
    return float(a) if np.ndim(a) == 0 else a


#: The Raises and References sections of every function of ``W``, ``L`` and the cube life.
_JANOWSKI_RAISES = """
Raises
------
InvalidParameterError
    For ``W`` or ``L`` outside [1, 3] or a cube life outside [0, 1].

References
----------
R. Janowski, "Take-Points in Money Games" (1993).
"""


def _point_sections(side: str, point: str) -> str:
    """The Parameters to References sections of Janowski's ``point``, a chance of ``side``."""
    return f"""
Parameters
----------
W, L : array_like
    The {side}'s average win and loss values (``1 + g + 2 b`` with disjoint gammon and
    backgammon rates, :func:`win_value`), each in [1, 3].
cube_life : array_like
    The cube life ``x`` (0 dead, 1 fully live).

Returns
-------
float or ndarray
    The {side}'s {point}.
{_JANOWSKI_RAISES}"""


#: The parameters of an equity with a live cube, after ``p``, ``W`` and ``L``.
_CUBE_PARAMETERS = """cube_life : array_like
    The cube life ``x``.
cube : int, optional
    The cube value ``C``.
"""


def _equity_sections(returns: str, *, live: bool = True) -> str:
    """The Parameters to References sections of a Janowski equity returning ``returns``: of
    ``p``, ``W``, ``L``, the cube life and the cube (``live``), else of ``p``, ``W``, ``L``."""
    cube, life = (_CUBE_PARAMETERS, " or a cube life outside [0, 1]") if live else ("", "")
    return f"""
Parameters
----------
p : array_like
    The player's cubeless winning chance.
W, L : array_like
    The player's average win and loss values (:func:`win_value`).
{cube}
Returns
-------
float or ndarray
    {returns}

Raises
------
InvalidParameterError
    For ``p`` outside [0, 1], ``W`` or ``L`` outside [1, 3]{life}.

References
----------
R. Janowski, "Take-Points in Money Games" (1993).
"""


def _point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, c: float, d: float) -> Float:
    """``(L + c + d x) / (W + L + x/2)``, the form of every Janowski point but the initial
    double point (``c``, ``d``: -1/2, 0 take; 0, 0 beaver; 0, 1/2 raccoon; 0, 1 redouble;
    1/2, 1/2 cash; 1, 0 too good)."""
    w, l_ = _wl(W, L)
    x = check_cube_life(cube_life)
    return _out((l_ + c + d * x) / (w + l_ + 0.5 * x))


def win_value(gammon_rate: ArrayLike, backgammon_rate: ArrayLike = 0.0) -> Float:
    """Average cubeless value of a side's wins, ``W = 1 + g + 2 b``.

    Parameters
    ----------
    gammon_rate, backgammon_rate : array_like
        Disjoint fractions of that side's wins: gammons that are not backgammons, and
        backgammons (gnubg's ``show marketwindow`` convention).

    Returns
    -------
    float or ndarray
        ``W = 1 + g + 2 b``.

    Raises
    ------
    InvalidParameterError
        For rates outside [0, 1] or summing above 1.

    Examples
    --------
    >>> win_value(0.2), win_value(0.2, 0.05)
    (1.2, 1.3)
    """
    return _out(average_win_value(gammon_rate, backgammon_rate))


@shared_sections(point_sections=_point_sections("taker", "take point"))
def money_take_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's take point ``(L - 1/2) / (W + L + x/2)``: the taker's winning chance.

    Gammonless: 25 % dead, 21.43 % at x = 2/3, 20 % live.

    {point_sections}

    Examples
    --------
    >>> money_take_point(1, 1, 0.0), money_take_point(1, 1, 1.0)
    (0.25, 0.2)
    >>> round(money_take_point(1, 1, 2 / 3), 4)
    0.2143
    """
    return _point(W, L, cube_life, -0.5, 0.0)


@shared_sections(point_sections=_point_sections("taker", "beaver point"))
def beaver_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's beaver point ``L / (W + L + x/2)`` (the taker's winning chance).

    Above it the taker's equity after taking is positive, so redoubling at once (beaver)
    gains.

    {point_sections}

    Examples
    --------
    >>> beaver_point(1, 1, 0.0), beaver_point(1, 1, 1.0)
    (0.5, 0.4)
    >>> p = beaver_point(1.2, 1.1, 0.7)
    >>> abs(float(equity_owned(p, 1.2, 1.1, 0.7))) < 1e-12  # taking breaks even
    True
    """
    return _point(W, L, cube_life, 0.0, 0.0)


@shared_sections(point_sections=_point_sections("doubler", "raccoon point"))
def raccoon_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's raccoon point ``(L + x/2) / (W + L + x/2)`` (the doubler's winning chance).

    Above it a beavered doubler still has positive equity and redoubles again (raccoon);
    equivalently the taker beavers when the doubler's chance is below it.

    {point_sections}

    Examples
    --------
    >>> raccoon_point(1, 1, 0.0), raccoon_point(1, 1, 1.0)
    (0.5, 0.6)
    >>> abs(float(equity_unavailable(raccoon_point(1.2, 1.1, 0.7), 1.2, 1.1, 0.7))) < 1e-12
    True
    """
    return _point(W, L, cube_life, 0.0, 0.5)


@shared_sections(janowski_raises=_JANOWSKI_RAISES)
def jacoby_factor(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, beavers: bool = False) -> Float:
    """Janowski's Jacoby factor: initial double point with Jacoby / without.

    ``k1 = (W + L)(L - (1 - x)/2) / (L (W + L - (1 - x)))`` without beavers and
    ``k2 = (W + L)(L - (1 - x)/4) / (L (W + L - (1 - x)/2))`` with beavers, ``k2`` not below
    ``k1`` (the beaver is the taker's option, so it cannot make the double more
    attractive). ``W = 2, L = 1``: ``k1`` = 0.750 dead, 0.938 at x = 2/3; ``k2`` = 0.900,
    0.971. Both are 1 for a live cube.

    Notes
    -----
    gnubg's dead-cube "initial double point with Jacoby and beavers",
    ``(L - 1/4) / (W + L - 1/2)``, is the raw ``k2`` formula at x = 0 without the floor, so
    it differs from ours when ``L > W``.

    Parameters
    ----------
    W, L : array_like
        The doubler's average win and loss values.
    cube_life : array_like
        The cube life ``x``.
    beavers : bool, optional
        Beavers allowed (``k2``).

    Returns
    -------
    float or ndarray
        ``k1`` (or ``k2`` with beavers).

    {janowski_raises}

    Examples
    --------
    >>> round(jacoby_factor(2, 1, 0.0), 3), round(jacoby_factor(2, 1, 0.0, beavers=True), 3)
    (0.75, 0.9)
    """
    w, l_ = _wl(W, L)
    x = check_cube_life(cube_life)
    d = 1.0 - x
    k1 = (w + l_) * (l_ - 0.5 * d) / (l_ * (w + l_ - d))
    if not beavers:
        return _out(k1)
    k2 = (w + l_) * (l_ - 0.25 * d) / (l_ * (w + l_ - 0.5 * d))
    return _out(np.maximum(k1, k2))


@shared_sections(janowski_raises=_JANOWSKI_RAISES)
def initial_double_point(
    W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, *, jacoby: bool = False, beavers: bool = False
) -> Float:
    """Janowski's initial (centred-cube) double point, in the doubler's winning chance.

    Without Jacoby: ``[L + x(3 - x) / (2(2 - x))] / (W + L + x/2)``, where the centred
    equity ``4/(4 - x) [p(W + L + x/2) - L - x/4]`` equals the double/take equity
    ``2 [p(W + L + x/2) - L - x/2]``; dead ``L / (W + L)``, live ``(L + 1) / (W + L + 1/2)``.
    With the Jacoby rule it is multiplied by :func:`jacoby_factor` (``beavers`` selects
    ``k2``). ``W``, ``L`` from disjoint gammon/backgammon rates (see :func:`win_value`).

    Parameters
    ----------
    W, L : array_like
        The doubler's average win and loss values (:func:`win_value`).
    cube_life : array_like
        The cube life ``x``.
    jacoby, beavers : bool, optional
        The Jacoby rule (and beavers under it).

    Returns
    -------
    float or ndarray
        The doubler's initial double point.

    {janowski_raises}

    Examples
    --------
    >>> initial_double_point(1, 1, 0.0), initial_double_point(1, 1, 1.0)
    (0.5, 0.8)
    """
    w, l_ = _wl(W, L)
    x = check_cube_life(cube_life)
    point = (l_ + x * (3.0 - x) / (2.0 * (2.0 - x))) / (w + l_ + 0.5 * x)
    if jacoby:
        point = point * np.asarray(jacoby_factor(w, l_, x, beavers=beavers))
    return _out(point)


@shared_sections(point_sections=_point_sections("doubler", "redouble point"))
def redouble_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's redouble point ``(L + x) / (W + L + x/2)`` (owned cube; doubler's chance).

    Where the owned-cube equity ``p(W + L + x/2) - L`` equals the double/take equity
    ``2 [p(W + L + x/2) - L - x/2]``.

    {point_sections}

    Examples
    --------
    >>> redouble_point(1, 1, 0.0), redouble_point(1, 1, 1.0)
    (0.5, 0.8)
    >>> p = redouble_point(1.2, 1.1, 0.7)  # holding the cube = double/take:
    >>> kept, doubled = equity_owned(p, 1.2, 1.1, 0.7), 2 * equity_unavailable(p, 1.2, 1.1, 0.7)
    >>> abs(float(kept - doubled)) < 1e-12
    True
    """
    return _point(W, L, cube_life, 0.0, 1.0)


@shared_sections(point_sections=_point_sections("doubler", "cash point"))
def money_cash_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's cash point ``(L + 1/2 + x/2) / (W + L + x/2)`` (doubler's chance).

    It is one minus the opponent's take point. Gammonless: 75 % dead, 80 % live.

    {point_sections}

    Examples
    --------
    >>> money_cash_point(1, 1, 0.0), money_cash_point(1, 1, 1.0)
    (0.75, 0.8)
    >>> round(money_cash_point(1.2, 1.1, 0.7) + money_take_point(1.1, 1.2, 0.7), 12)
    1.0
    """
    return _point(W, L, cube_life, 0.5, 0.5)


@shared_sections(point_sections=_point_sections("player", "too-good point"))
def money_too_good_point(W: ArrayLike, L: ArrayLike, cube_life: ArrayLike) -> Float:
    """Janowski's too-good point ``(L + 1) / (W + L + x/2)`` (the player's winning chance).

    Above it playing on (holding the cube, equity ``p(W + L + x/2) - L``) beats cashing 1
    point; dead ``(L + 1) / (W + L)``: where ``p W - (1 - p) L = 1``. Gammonless: 100 %
    dead, 80 % live.

    {point_sections}

    Examples
    --------
    >>> money_too_good_point(1, 1, 0.0), money_too_good_point(1, 1, 1.0)
    (1.0, 0.8)
    >>> round(float(equity_owned(money_too_good_point(1.2, 1.1, 0.7), 1.2, 1.1, 0.7)), 12)
    1.0
    """
    return _point(W, L, cube_life, 1.0, 0.0)


# ----------------------------------------------------------------------------- equities


@shared_sections(equity_sections=_equity_sections("The cubeless equity.", live=False))
def equity_cubeless(p: ArrayLike, W: ArrayLike, L: ArrayLike) -> Float:
    """Cubeless (dead-cube) equity per unit cube, ``E = p W - (1 - p) L = p (W + L) - L``.

    {equity_sections}

    Examples
    --------
    >>> round(float(equity_cubeless(0.6, 1.2, 1.0)), 12)
    0.32
    """
    w, l_ = _wl(W, L)
    p = _prob(p)
    return _out(p * (w + l_) - l_)


@shared_sections(equity_sections=_equity_sections("The equity holding the cube."))
def equity_owned(
    p: ArrayLike, W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, cube: int = 1
) -> Float:
    """Janowski's equity holding the cube, ``C [p (W + L + x/2) - L]``.

    Valid inside the doubling window (between the opponent's and the player's cash
    points), where it equals :func:`cubeful_equity` with ``owner="player"``.

    {equity_sections}

    Examples
    --------
    >>> round(float(equity_owned(0.8, 1.0, 1.0, 1.0)), 12)  # the live cash point: +1
    1.0
    """
    w, l_ = _wl(W, L)
    p, x = _prob(p), check_cube_life(cube_life)
    return _out(cube * (p * (w + l_ + 0.5 * x) - l_))


@shared_sections(equity_sections=_equity_sections("The equity with the cube on the other side."))
def equity_unavailable(
    p: ArrayLike, W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, cube: int = 1
) -> Float:
    """Janowski's equity when the opponent holds the cube, ``C [p (W + L + x/2) - L - x/2]``.

    Inside the doubling window this is gnubg's :func:`cubeful_equity` for
    ``owner="opponent"``, which holds for every ``p``.

    {equity_sections}

    Examples
    --------
    >>> round(float(equity_unavailable(0.2, 1.0, 1.0, 1.0)), 12)  # the live take point
    -1.0
    """
    w, l_ = _wl(W, L)
    p, x = _prob(p), check_cube_life(cube_life)
    return _out(cube * (p * (w + l_ + 0.5 * x) - l_ - 0.5 * x))


@shared_sections(equity_sections=_equity_sections("The centred-cube equity."))
def equity_centred(
    p: ArrayLike, W: ArrayLike, L: ArrayLike, cube_life: ArrayLike, cube: int = 1
) -> Float:
    """Janowski's centred-cube equity (no Jacoby), ``C 4/(4 - x) [p (W + L + x/2) - L - x/4]``.

    Valid inside the doubling window (between the opponent's and the player's cash
    points); see :func:`cubeful_equity` for gnubg's version valid everywhere.

    {equity_sections}

    Examples
    --------
    >>> round(float(equity_centred(0.5, 1.0, 1.0, 2 / 3)), 12)
    0.0
    """
    w, l_ = _wl(W, L)
    p, x = _prob(p), check_cube_life(cube_life)
    return _out(cube * 4.0 / (4.0 - x) * (p * (w + l_ + 0.5 * x) - l_ - 0.25 * x))


def _prob(p: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > 1.0):
        raise InvalidParameterError(f"winning probability must lie in [0, 1]; got {p!s}")
    return arr


def _interp(p: Any, x0: Any, y0: Any, x1: Any, y1: Any) -> Any:
    """The line through (x0, y0) and (x1, y1) evaluated at p (elementwise)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(x1 != x0, (p - x0) / (x1 - x0), 0.0)
    return y0 + (y1 - y0) * t


def _live_equity(
    p: NDArray[np.float64],
    w: NDArray[np.float64],
    l_: NDArray[np.float64],
    owner: str,
    jacoby: bool,
) -> NDArray[np.float64]:
    """Janowski's live-cube equity (piecewise linear in p) for ``owner``."""
    tp = (l_ - 0.5) / (w + l_ + 0.5)  # live take point (opponent's cash point is 1 - tp')
    cp = (l_ + 1.0) / (w + l_ + 0.5)  # live cash point
    if owner == "centre":
        low = -1.0 if jacoby else _interp(p, 0.0, -l_, tp, -1.0)
        mid = _interp(p, tp, -1.0, cp, 1.0)
        high = 1.0 if jacoby else _interp(p, cp, 1.0, 1.0, w)
        return np.where(p < tp, low, np.where(p < cp, mid, high))
    out: NDArray[np.float64]
    if owner == "player":
        out = np.where(p < cp, _interp(p, 0.0, -l_, cp, 1.0), _interp(p, cp, 1.0, 1.0, w))
    else:
        out = np.where(p < tp, _interp(p, 0.0, -l_, tp, -1.0), _interp(p, tp, -1.0, 1.0, w))
    return out


def cubeful_equity(
    p: ArrayLike,
    W: ArrayLike,
    L: ArrayLike,
    cube_life: ArrayLike,
    owner: str = "centre",
    *,
    jacoby: bool = False,
) -> Float:
    """gnubg's cubeless -> cubeful money equity per unit cube (``Cl2CfMoney``).

    ``E = (1 - x) E_dead + x E_live`` with ``E_dead = p (W + L) - L`` and ``E_live``
    piecewise linear in ``p`` through

    - centred: (0, -L), (TP, -1), (CP, +1), (1, W);
    - owned (``owner="player"``): (0, -L), (CP, +1), (1, W);
    - unavailable (``owner="opponent"``): (0, -L), (TP, -1), (1, W);

    with the live take point ``TP = (L - 1/2)/(W + L + 1/2)`` and cash point
    ``CP = (L + 1)/(W + L + 1/2)``. With the Jacoby rule and a centred cube gammons do not
    count: the live equity is flat at -1 below TP and +1 above CP, and the dead equity is
    ``2 p - 1``. ``W``, ``L`` are the
    player's average win and loss values (disjoint gammon/backgammon rates, see
    :func:`win_value`).

    For an owned or unavailable cube inside the window this equals Janowski's
    :func:`equity_owned` / :func:`equity_unavailable`; for a centred cube it equals
    :func:`equity_centred` at x = 0 and x = 1 only.

    Parameters
    ----------
    p : array_like
        The player's cubeless winning chance.
    W, L : array_like
        The player's average win and loss values.
    cube_life : array_like
        The cube life ``x``.
    owner : {"centre", "player", "opponent"}, optional
        Who holds the cube.
    jacoby : bool, optional
        The Jacoby rule.

    Returns
    -------
    float or ndarray
        The cubeful equity per unit cube.

    Raises
    ------
    InvalidParameterError
        For ``p`` outside [0, 1], ``W`` or ``L`` outside [1, 3], a cube life outside
        [0, 1] or an unknown ``owner``.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``Cl2CfMoney``; R. Janowski (1993).

    Examples
    --------
    >>> round(float(cubeful_equity(0.2, 1.0, 1.0, 1.0, "opponent")), 12)  # live take point
    -1.0
    >>> round(float(cubeful_equity(0.6, 1.0, 1.0, 0.0)), 12)  # dead: cubeless
    0.2
    """
    w, l_ = _wl(W, L)
    p, x = _prob(p), check_cube_life(cube_life)
    owner = check_owner(owner)
    if jacoby and owner == "centre":
        dead = 2.0 * p - 1.0  # gammons do not count with a centred cube under Jacoby
    else:
        dead = p * (w + l_) - l_
    live = _live_equity(p, w, l_, owner, jacoby)
    return _out((1.0 - x) * dead + x * live)


# ----------------------------------------------------------------------------- summaries


@dataclass(frozen=True)
class MoneyPoint(FrameMixin):
    """One money point for a dead cube, a fully live cube and at cube life ``x``."""

    dead: float
    live: float
    x: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class MoneyPoints:
    """Janowski's money points of the first-named player (as that player's winning chance).

    ``take`` and ``beaver`` are the player's points as the taker; the others as the doubler.
    ``initial_double`` honours the Jacoby/beaver settings the points were computed with.
    """

    W: float
    L: float
    cube_life: float
    jacoby: bool
    beavers: bool
    take: MoneyPoint
    beaver: MoneyPoint
    raccoon: MoneyPoint
    initial_double: MoneyPoint
    redouble: MoneyPoint
    cash: MoneyPoint
    too_good: MoneyPoint

    POINTS = ("take", "beaver", "raccoon", "initial_double", "redouble", "cash", "too_good")
    #: What the points were computed from (in :meth:`as_dict` and the frame's ``attrs``).
    SETTINGS = ("W", "L", "cube_life", "jacoby", "beavers")

    def _settings(self) -> dict[str, float | bool]:
        """The :attr:`SETTINGS` by name."""
        return {name: getattr(self, name) for name in self.SETTINGS}

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: each point as ``{"dead": .., "live": .., "x": ..}``."""
        out: dict[str, object] = {"state": "money", **self._settings()}
        for name in self.POINTS:
            out[name] = getattr(self, name).as_dict()
        return out

    def to_frame(self) -> pd.DataFrame:
        """The points as a DataFrame: index the point names, columns ``dead``, ``live`` and
        ``x`` (at the cube life ``attrs["cube_life"]``), the player's winning chances."""
        from mathbg._output import frame

        rows = [{"point": name, **getattr(self, name).as_dict()} for name in self.POINTS]
        name = "money points (Janowski) of the first-named player"
        return frame(rows, name=name, index="point", **self._settings())


def money_points(
    gammons: tuple[float, float] | float = (0.0, 0.0),
    backgammons: tuple[float, float] | float = (0.0, 0.0),
    cube_life: float = JANOWSKI_CUBE_LIFE,
    *,
    jacoby: bool = False,
    beavers: bool = False,
) -> MoneyPoints:
    """All of Janowski's money points of the first-named player.

    Parameters
    ----------
    gammons, backgammons : (float, float)
        ``(G0, G1)``, ``(B0, B1)``: the first-named player's and the opponent's gammon and
        backgammon rates, **disjoint fractions of that side's wins** (gammons that are not
        backgammons; backgammons), as gnubg's ``show marketwindow`` takes them. The player's
        ``W = 1 + G0 + 2 B0``, ``L = 1 + G1 + 2 B1``.
    cube_life : float
        Cube life for the ``x`` column (the dead and live columns are x = 0 and 1);
        default Janowski's "normal" 2/3 (:data:`mathbg.cube.life.JANOWSKI_CUBE_LIFE`).
    jacoby, beavers : bool
        Rules for the initial double point.

    Examples
    --------
    >>> pts = money_points((0.2, 0.2))
    >>> round(pts.take.dead, 5), round(pts.take.live, 5)
    (0.29167, 0.24138)

    Returns
    -------
    MoneyPoints
        Each point for a dead cube, a live cube and the given cube life.

    Raises
    ------
    InvalidParameterError
        For bad rates or a cube life outside [0, 1].
    """
    g0, g1 = check_pair(gammons, "gammons")
    b0, b1 = check_pair(backgammons, "backgammons")
    check_rates(g0, b0, "player")
    check_rates(g1, b1, "opponent")
    xv = float(check_cube_life(cube_life))
    w = 1.0 + g0 + 2.0 * b0
    l_ = 1.0 + g1 + 2.0 * b1

    def trio(fn: Callable[..., Any], **kw: Any) -> MoneyPoint:
        return MoneyPoint(*(float(fn(w, l_, xx, **kw)) for xx in (0.0, 1.0, xv)))

    return MoneyPoints(
        W=w,
        L=l_,
        cube_life=xv,
        jacoby=jacoby,
        beavers=beavers,
        take=trio(money_take_point),
        beaver=trio(beaver_point),
        raccoon=trio(raccoon_point),
        initial_double=trio(initial_double_point, jacoby=jacoby, beavers=beavers),
        redouble=trio(redouble_point),
        cash=trio(money_cash_point),
        too_good=trio(money_too_good_point),
    )


@dataclass(frozen=True, kw_only=True)
class CubeActionResult(CubeDecision):
    """A money cube action in Janowski's model: a
    :class:`~mathbg.cube.decisions.CubeDecision` (equities per unit cube from
    :func:`cubeful_equity`: ND for the owner, DT = 2 x the opponent-owned value, DP = +1)
    with the Janowski points the action was read from (doubler's chances)."""

    unit: str = "equity"
    p: float
    double_point: float
    cash_point: float
    too_good_point: float
    raccoon_point: float


def cube_action(
    p: float,
    W: float,
    L: float,
    cube_life: float,
    owner: str = "centre",
    *,
    jacoby: bool = False,
    beavers: bool = False,
) -> CubeActionResult:
    """The money cube action for the player on roll in Janowski's model.

    With ``DP`` the initial double point (centred cube, honouring ``jacoby``/``beavers``)
    or the redouble point (``owner="player"``), ``CP`` the cash point, ``TG`` the too-good
    point and ``RP`` the raccoon point:

    - ``p < DP``: no double (the taker would take, or beaver if ``beavers`` and ``p < RP``);
    - ``DP <= p <= CP``: double, take (double, beaver if ``beavers`` and ``p < RP``: the
      Kauder paradox under Jacoby);
    - ``CP < p < TG``: double, pass;
    - ``p >= TG``: too good (play on for the gammon), when a gammon is possible (``W > 1``).

    ``owner="opponent"``: the cube is not available.

    Parameters
    ----------
    p : float
        The player's cubeless winning chance.
    W, L : float
        The player's average win and loss values, from disjoint gammon and backgammon rates
        (:func:`win_value`).
    cube_life : float
        The cube life ``x``.
    owner : {"centre", "player", "opponent"}, optional
        Who holds the cube.
    jacoby, beavers : bool, optional
        The Jacoby rule and beavers.

    Returns
    -------
    CubeActionResult
        The action, the equities and the points it was read from.

    Raises
    ------
    InvalidParameterError
        For ``p``, ``W``, ``L`` or the cube life out of range, or an unknown ``owner``.

    References
    ----------
    R. Janowski, "Take-Points in Money Games" (1993).

    Examples
    --------
    >>> str(cube_action(0.7, 1.0, 1.0, 2 / 3).action)
    'double, take'
    >>> str(cube_action(0.5, 1.0, 1.0, 2 / 3).action)
    'no double, take'
    """
    owner = check_owner(owner)
    pv = float(_prob(p))
    x = cube_life
    if owner == "centre":
        dp = float(initial_double_point(W, L, x, jacoby=jacoby, beavers=beavers))
    else:
        dp = float(redouble_point(W, L, x))
    cp = float(money_cash_point(W, L, x))
    tg = float(money_too_good_point(W, L, x))
    rp = float(raccoon_point(W, L, x))
    beaver = beavers and pv < rp
    if owner == "opponent":
        action = CubeAction.NOT_AVAILABLE
    elif pv >= tg and W > 1.0:
        action = CubeAction.TOO_GOOD_PASS
    elif pv > cp:
        action = CubeAction.DOUBLE_PASS
    elif pv >= dp:
        action = CubeAction.DOUBLE_BEAVER if beaver else CubeAction.DOUBLE_TAKE
    else:
        action = CubeAction.NO_DOUBLE_BEAVER if beaver else CubeAction.NO_DOUBLE_TAKE
    nd = float(cubeful_equity(pv, W, L, x, owner, jacoby=jacoby))
    if action == CubeAction.NOT_AVAILABLE:
        dt_eq, dp_eq, optimal = None, None, nd
    else:
        dt_eq, dp_eq = 2.0 * float(cubeful_equity(pv, W, L, x, "opponent")), 1.0
        optimal = min(dt_eq, dp_eq) if action.doubles else nd
    return CubeActionResult(
        action=action,
        no_double=nd,
        double_take=dt_eq,
        double_pass=dp_eq,
        optimal=optimal,
        p=pv,
        double_point=dp,
        cash_point=cp,
        too_good_point=tg,
        raccoon_point=rp,
    )
