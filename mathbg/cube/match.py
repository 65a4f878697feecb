"""Match-play cube points from a match equity table (MET).

Every function is vectorised over the score (``away``, a pair of arrays) and the cube value
(numpy broadcasting) and reads any :class:`mathbg.met.MET` (or any object with its
``pre``/``post`` arrays). Conventions:

- ``away = (player_away, opponent_away)``: the *first-named player's* points to go, then
  the opponent's (the one spelling of a score, as ``--away 3,5`` on the command line); the
  cube value ``cube`` is the current one (a double turns it to ``2 cube``).
- ``gammons = (G0, G1)`` and ``backgammons = (B0, B1)`` are the first-named player's and the
  opponent's rates, **disjoint fractions of that side's wins** (gammons that are not
  backgammons, and backgammons), as gnubg's ``show marketwindow`` takes them. Each may be
  an array (broadcast with the score).
- Every point is a winning chance of the player it belongs to: the *take point* is the
  taker's chance at which take and pass break even, the *double*, *cash* and *too-good*
  points are the doubler's chances.
- A side 1-away is post-Crawford unless ``crawford=True`` (then that game is the Crawford
  game: no cube, so cube points are NaN). Results of a Crawford or post-Crawford game are
  read from the post-Crawford table; results of other games that leave a side 1-away from
  the Crawford-game entries.

The maths (MWC from the player's point of view; the doubler D doubles from ``c`` to
``2c``; each "win"/"lose" MWC is weighted by the winner's single/gammon/backgammon rates
at 1, 2, 3 times the stake)::

    DP  = MWC(D wins c)                       double, pass
    NDW = MWC(D wins at c),  NDL = MWC(D loses at c)        (gammon-weighted)
    DTW = MWC(D wins at v),  DTL = MWC(D loses at v)        v = 2c, or 4c when the
          taker redoubles at once (D needs <= 2c and the taker > 2c: the recube is free)

    dead take point (taker)  TP = (DTW - DP) / (DTW - DTL)     risk / (risk + gain)
    dead cash point (D)      CP = 1 - TP = (DP - DTL) / (DTW - DTL)
    double point (D)         (NDL - DTL) / ((NDL - DTL) + (DTW - NDW))
    too-good point (D)       TG = (DP - NDL) / (NDW - NDL)
                             (solves p NDW + (1 - p) NDL = DP; money: (L + 1) / (W + L))

Live cube (gnubg ``GetPoints``): at cube level ``c`` with both sides more than ``2c``
away, the taker owns the ``2c`` cube and cashes at its own live cash point
``CP_T(2c)``, so D's MWC after the take runs linearly from DTW (taker's chance 0) to
``RDP = MWC(D loses 2c)`` (taker's chance ``CP_T(2c)``)::

    CP_D(c) = 1 - CP_T(2c) (DTW - DP) / (DTW - RDP)        (single-rate DTW at 2c)

from the top level down; at a level where either side needs ``<= 2c`` the doubled cube is
dead and ``CP`` is the dead cash point (with the automatic redouble). For a cube life
``x`` between 0 and 1 the taker's MWC after taking is blended, ``(1 - x)`` dead +
``x`` live (as gnubg's ``Cl2CfMatch`` blends MWCs), which gives::

    TP(x) = (DTW - DP) / [(1 - x)(DTW - DTL) + x (DTW - RDP) / CP_T(2c)]

the match analogue of Janowski's ``(L - 1/2) / (W + L + x/2)``. As gnubg prints no live
double point, the double point does not depend on the cube life.

Words (one meaning each, :data:`TERMS`; the same in every output):

- **dead**: after the take the cube is never turned again *except the taker's free
  redouble* (the doubler needs ``<= 2c``, the taker more: the taker redoubles at once, as
  it risks nothing). This is gnubg's "Dead cube" line, and its "Dead cube (opponent
  redoubles)" line where the redouble is free. E.g. 4-away taker vs 2-away doubler:
  ``TP = MET(4, 1 Crawford) = 18.56 %`` (Kazaross-XG2).
- **no recube**: the cube is never turned again at all (gnubg's "Dead cube (opponent
  doesn't redouble)"); differs from *dead* only where the taker's redouble is free. At
  4-away/2-away: ``TP = MET(4, 1 Crawford) / MET(2, 2) = 37.1 %``.
- **live**: the cube stays in play (cube life ``x``; 1 = fully live, gnubg's "Live cube").

A doubler who needs ``<= c`` wins the match with any win at the current cube and has
nothing to double for. The vectorised functions below return the limits there (its double,
cash and too-good points 1, the opponent's take point 0, as gnubg's market window prints
them); :func:`points` (and so ``mathbg takepoint``) and :func:`mathbg.cube.matrix.score_matrix`
report them as not applicable (None / NaN). The doubled cube is dead (live = dead) when
either side needs ``<= 2c``.

Gammon values (XG's convention, gnubg ``show gammonvalues``)::

    gammon value     = (MWC(win 2c) - MWC(win c)) / (MWC(win c) - MWC(lose c))
    backgammon value = (MWC(win 3c) - MWC(win c)) / (MWC(win c) - MWC(lose c))

0.5 and 1.0 in money play. gnubg's internal "gammon price" (matchequity.c
``getGammonPrice``) is twice the gammon value; this module never uses it.

References
----------
GNU Backgammon matchequity.c (``GetPoints``, ``getGammonPrice``, ``getMEMultiple``), show.c
(``CommandShowMarketWindow``, ``CommandShowGammonValues``), eval.c (``getMatchPoints``,
whose too-good point ``(NDW - NDL) / ((NDW - NDL) + (NDW - DP))`` is a different expression:
it agrees with ours only where gammons are worthless, both then being 1).
R. Janowski, "Take-Points in Money Games" (1993).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from mathbg._docstrings import shared_sections
from mathbg._output import FrameMixin
from mathbg._validate import away_score, cube_state
from mathbg.cube._solver import (
    Arr,
    MetView,
    cash_at_x,
    gammon_values,
    nan_crawford,
    pair,
    prepare,
    run,
    scalar,
    solve,
)
from mathbg.cube.inputs import (
    check_cube,
    check_cube_life,
    check_owner,
    check_rates,
)
from mathbg.cube.life import LIVE_CUBE_LIFE
from mathbg.errors import InvalidScoreError
from mathbg.met.catalogue import as_met
from mathbg.rules.match import ScoreState, may_double

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.met.table import MET

__all__ = [
    "POINT_FIELDS",
    "TERMS",
    "MarketWindow",
    "MarketWindows",
    "PlayerPoints",
    "ScorePoints",
    "backgammon_value",
    "cash_point",
    "cash_point_dead",
    "cash_point_live",
    "double_point",
    "gammon_value",
    "market_window",
    "points",
    "take_point",
    "take_point_dead",
    "take_point_live",
    "too_good_point",
]

# ----------------------------------------------------------------------------- public API

#: The parameters of :func:`take_point_dead` and the other vectorised points.
_POINT_PARAMETERS = """
Parameters
----------
met : mathbg.met.MET or str
    The match equity table (or the name of a shipped table or MET model).
away : (array_like of int, array_like of int)
    The score ``(player_away, opponent_away)``: points the first-named player and the
    opponent still need (>= 1; scores past the table's length read its Montgomery /
    Zadeh extension, as gnubg does).
cube : array_like of int
    Current cube value (a power of two); a double turns it to ``2 cube``.
gammons, backgammons : (G0, G1), (B0, B1)
    The first-named player's and the opponent's gammon and backgammon rates, disjoint
    fractions of that side's wins (gammons that are not backgammons; backgammons).
crawford : bool
    Where a side is 1-away: the Crawford game (no cube: NaN) instead of post-Crawford.
"""
#: The further parameter of :func:`take_point`, :func:`cash_point` and :func:`double_point`.
_TAKE_LIFE = """cube_life : array_like
    The cube life ``x``: 0 dead (default), 1 fully live.
"""
_CASH_LIFE = """cube_life : array_like
    The cube life ``x`` of the opponent's take point: 0 dead (default), 1 fully live.
"""
_AUTO_REDOUBLE = """auto_redouble : bool
    Count the opponent's immediate free redouble (default True).
"""


def _point_sections(point: str, more: str = "") -> str:
    """The Parameters, Returns and Raises sections of a vectorised point, ``point`` of the
    first-named player, with the parameters ``more`` after the common ones."""
    return f"""{_POINT_PARAMETERS}{more}
Returns
-------
float or ndarray
    The player's {point};
    a float for scalar inputs, else an array of the broadcast shape.

Raises
------
InvalidScoreError
    For an away score, cube or Crawford flag that is out of range.
InvalidParameterError
    For gammon or backgammon rates outside [0, 1].
"""


@shared_sections(point_sections=_point_sections("dead-cube take point"))
def take_point_dead(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> float | Arr:
    """Dead-cube take point of the first-named player when the opponent doubles.

    ``TP = (DTW - DP) / (DTW - DTL)`` in the opponent's MWCs, i.e. risk / (risk + gain) for
    the taker, with gammon-weighted MWCs and the taker's immediate redouble when the
    doubler needs <= 2 cube and the taker more. Returned as the taker's winning chance.
    E.g. Kazaross-XG2 3-away/3-away, gammonless: 30.17 %; a 4-away taker against a 2-away
    doubler: 18.56 %.

    {point_sections}

    Examples
    --------
    >>> round(take_point_dead("kazaross-xg2", (3, 3)), 4)
    0.3017
    >>> round(take_point_dead("kazaross-xg2", (4, 2)), 4)
    0.1856
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    return scalar(nan_crawford(sol, 1.0 - sol.cash_dead[1][0]))


@shared_sections(point_sections=_point_sections("live take point"))
def take_point_live(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> float | Arr:
    """Fully-live take point of the first-named player (gnubg ``GetPoints`` recursion).

    One minus the opponent's live cash point. Equal to the dead take point when the
    doubled cube is dead (either side needs <= 2 cube). E.g. Kazaross-XG2 3-away/3-away
    gammonless: 30.17 % x 75.08 % = 22.65 %.

    {point_sections}

    Examples
    --------
    >>> round(take_point_live("kazaross-xg2", (3, 3)), 4)
    0.2265
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    return scalar(nan_crawford(sol, 1.0 - sol.cash_live[1][0]))


@shared_sections(point_sections=_point_sections("take point (its winning chance)", _TAKE_LIFE))
def take_point(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    cube_life: ArrayLike = 0.0,
    crawford: bool = False,
) -> float | Arr:
    """Take point of the first-named player at cube life ``x`` (0 dead, 1 fully live).

    ``TP(x) = (DTW - DP) / [(1 - x)(DTW - DTL) + x (DTW - RDP) / CP_T(2 cube)]`` (the
    taker's MWC after taking blended ``(1 - x)`` dead + ``x`` live).

    {point_sections}

    Examples
    --------
    >>> round(take_point("kazaross-xg2", (3, 3)), 4)  # dead
    0.3017
    >>> round(take_point("kazaross-xg2", (3, 3), cube_life=1.0), 4)  # fully live
    0.2265
    """
    sol, xv = run(met, away, cube, gammons, backgammons, crawford, cube_life)
    return scalar(nan_crawford(sol, 1.0 - cash_at_x(sol, 1, xv)[0]))


@shared_sections(point_sections=_point_sections("dead-cube cash point"))
def cash_point_dead(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> float | Arr:
    """Dead-cube cash point of the first-named player: ``(DP - DTL) / (DTW - DTL)``.

    One minus the opponent's dead take point; 1 when the player needs <= cube.

    {point_sections}

    Examples
    --------
    >>> round(cash_point_dead("kazaross-xg2", (3, 3)), 4)
    0.6983
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    return scalar(nan_crawford(sol, sol.cash_dead[0][0]))


@shared_sections(point_sections=_point_sections("live cash point"))
def cash_point_live(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> float | Arr:
    """Fully-live cash point of the first-named player (gnubg ``GetPoints``).

    {point_sections}

    Examples
    --------
    >>> round(cash_point_live("kazaross-xg2", (3, 3)), 4)  # 1 - 22.65 %
    0.7735
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    return scalar(nan_crawford(sol, sol.cash_live[0][0]))


@shared_sections(point_sections=_point_sections("cash point (its winning chance)", _CASH_LIFE))
def cash_point(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    cube_life: ArrayLike = 0.0,
    crawford: bool = False,
) -> float | Arr:
    """Cash point of the first-named player at cube life ``x``: 1 - the opponent's TP(x).

    {point_sections}

    Examples
    --------
    >>> round(cash_point("kazaross-xg2", (3, 3)), 4)  # dead: 1 - 30.17 %
    0.6983
    """
    sol, xv = run(met, away, cube, gammons, backgammons, crawford, cube_life)
    return scalar(nan_crawford(sol, cash_at_x(sol, 0, xv)[0]))


@shared_sections(point_sections=_point_sections("dead-cube double point", _AUTO_REDOUBLE))
def double_point(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
    auto_redouble: bool = True,
) -> float | Arr:
    """Dead-cube (last-roll) double point of the first-named player.

    ``risk / (risk + gain)`` with ``risk = NDL - DTL`` and ``gain = DTW - NDW``
    (gammon-weighted MWCs); with the opponent's immediate redouble when it is free, unless
    ``auto_redouble=False``. 1 when the player needs <= cube (nothing to double for); 0
    when doubling risks nothing (e.g. the post-Crawford trailer).

    {point_sections}

    Examples
    --------
    >>> round(double_point("kazaross-xg2", (3, 3)), 4)  # symmetric score, gammonless
    0.5
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    arr = sol.double_point[0][0] if auto_redouble else sol.double_point_no_redouble[0][0]
    return scalar(nan_crawford(sol, arr))


@shared_sections(point_sections=_point_sections("too-good point"))
def too_good_point(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> float | Arr:
    """Too-good point of the first-named player: ``TG = (DP - NDL) / (NDW - NDL)``.

    The winning chance ``p`` at which playing on for gammons with the cube where it is,
    ``p NDW + (1 - p) NDL``, equals cashing ``DP``; both sides' gammons weighted. In money
    play it reduces to Janowski's ``(L + 1) / (W + L)``. 1 without gammon chances.

    gnubg's ``getMatchPoints`` uses ``(NDW - NDL) / ((NDW - NDL) + (NDW - DP))`` instead;
    the two agree only where ``NDW = DP`` (gammons worthless), both being 1.

    {point_sections}

    Examples
    --------
    >>> too_good_point("kazaross-xg2", (3, 3))  # no gammons: never too good
    1.0
    """
    sol, _ = run(met, away, cube, gammons, backgammons, crawford)
    return scalar(nan_crawford(sol, sol.too_good[0][0]))



def _value_sections(value: str) -> str:
    """The Parameters, Returns and Raises sections of the first-named player's ``value``."""
    return f"""
Parameters
----------
met : MET or str
    The match equity table.
away : (array_like of int, array_like of int)
    The score ``(player_away, opponent_away)``.
cube : array_like of int, optional
    The cube value.
crawford : bool, optional
    The Crawford game.

Returns
-------
float or ndarray
    The {value};
    a float for scalar inputs, else an array of the broadcast shape.

Raises
------
InvalidScoreError
    For an away score, cube or Crawford flag that is out of range.
"""


@shared_sections(value_sections=_value_sections("gammon value"))
def gammon_value(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    *,
    crawford: bool = False,
) -> float | Arr:
    """Gammon value of the first-named player at the score (XG convention).

    ``(MWC(win 2c) - MWC(win c)) / (MWC(win c) - MWC(lose c))``: 0.5 in money play;
    Kazaross-XG2 3-away/3-away 0.76048. gnubg's internal gammon price is twice this.
    (``crawford`` only matters at 1-away scores, whose results are post-Crawford either
    way.)

    {value_sections}

    Examples
    --------
    >>> round(gammon_value("kazaross-xg2", (3, 3)), 5)
    0.76048
    """
    t, a, b, c, _, one_away, _, _ = prepare(met, away, cube, 0.0, 0.0, crawford)
    return scalar(gammon_values(t, a, b, c, one_away)[0])


@shared_sections(value_sections=_value_sections("backgammon value"))
def backgammon_value(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike = 1,
    *,
    crawford: bool = False,
) -> float | Arr:
    """Backgammon value of the first-named player (XG convention, as gnubg prints it).

    ``(MWC(win 3c) - MWC(win c)) / (MWC(win c) - MWC(lose c))``: 1.0 in money play;
    Kazaross-XG2 3-away/3-away 2.01332.

    {value_sections}

    Examples
    --------
    >>> round(backgammon_value("kazaross-xg2", (3, 3)), 5)
    2.01332
    """
    t, a, b, c, _, one_away, _, _ = prepare(met, away, cube, 0.0, 0.0, crawford)
    return scalar(gammon_values(t, a, b, c, one_away)[1])


# ----------------------------------------------------------------------------- windows


@dataclass(frozen=True)
class MarketWindow(FrameMixin):
    """A doubler's market window at a score, as gnubg's ``show marketwindow`` prints it.

    All values are the doubler's winning chances. ``auto_redouble``: the taker redoubles
    at once (the doubler needs <= 2 cube, the taker more), in which case gnubg prints the
    window without (``*_no_recube``, the spelling of every no-recube value) and with the
    redouble. ``dead``: the taker needs
    <= 2 cube, so gnubg prints no live window. Otherwise ``cash_point_live`` is the upper
    end of the live window.
    """

    double_point: float
    cash_point_dead: float
    double_point_no_recube: float
    cash_point_no_recube: float
    cash_point_live: float
    auto_redouble: bool
    dead: bool


def market_window(
    met: MET | str,
    away: tuple[int, int],
    cube: int = 1,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    *,
    crawford: bool = False,
) -> MarketWindows:
    """Both players' market windows (first-named player's first), gnubg-style.

    Rates as in the other functions (disjoint fractions of wins). In the Crawford game all
    values are NaN (no cube). The result unpacks as ``player, opponent`` and has
    ``to_frame()`` (one row per player).

    Parameters
    ----------
    met : MET or str
        The match equity table.
    away : (int, int)
        The score ``(player_away, opponent_away)``: points the first-named player and the
        opponent need.
    cube : int, optional
        The cube value.
    gammons, backgammons : (G0, G1), (B0, B1), optional
        Disjoint gammon and backgammon rates of both players.
    crawford : bool, optional
        The Crawford game.

    Returns
    -------
    MarketWindows
        The first-named player's and the opponent's windows (a pair with ``to_frame()``).

    Raises
    ------
    InvalidScoreError
        For a bad score or cube.
    InvalidParameterError
        For bad rates.

    Examples
    --------
    >>> mine, theirs = market_window("kazaross-xg2", (3, 3))
    >>> round(mine.cash_point_dead, 4), round(mine.cash_point_live, 4)
    (0.6983, 0.7735)
    """
    score = away_score(away)
    sol, _ = run(met, score, cube, gammons, backgammons, crawford)
    res = []
    for i in range(2):
        vals = [
            sol.double_point[i][0],
            sol.cash_dead[i][0],
            sol.double_point_no_redouble[i][0],
            sol.cash_dead_no_redouble[i][0],
            sol.cash_live[i][0],
        ]
        vals = [float(nan_crawford(sol, v)) for v in vals]
        other_away = score[1 - i]
        res.append(
            MarketWindow(
                vals[0],
                vals[1],
                vals[2],
                vals[3],
                vals[4],
                auto_redouble=bool(sol.auto[i][0]),
                dead=bool(other_away <= 2 * cube),
            )
        )
    return MarketWindows(res[0], res[1])


@dataclass(frozen=True)
class MarketWindows:
    """Both players' :class:`MarketWindow` at a score (:func:`market_window`); unpacks as
    ``player, opponent``."""

    player: MarketWindow
    opponent: MarketWindow

    def __iter__(self) -> Iterator[MarketWindow]:
        return iter((self.player, self.opponent))

    def __getitem__(self, i: int) -> MarketWindow:
        return (self.player, self.opponent)[i]

    def to_frame(self) -> pd.DataFrame:
        """One row per player (index ``player``: "player", "opponent"), the window's fields
        as columns (fractions, the doubler's winning chances)."""
        import pandas as pd

        rows = [dict(self.player.__dict__), dict(self.opponent.__dict__)]
        df = pd.DataFrame(rows, index=pd.Index(["player", "opponent"], name="player"))
        df.attrs["name"] = "market windows"
        return df


# ----------------------------------------------------------------------------- summary


#: The words of every cube-point output, defined once (text, JSON ``terms`` and docs).
TERMS: dict[str, str] = {
    "dead": (
        "after the take the cube is never turned again, except the taker's free redouble: "
        "when the doubler needs no more than twice the cube and the taker more, the taker "
        "redoubles at once (it risks nothing); gnubg's 'Dead cube' / 'Dead cube (opponent "
        "redoubles)' line"
    ),
    "no_recube": (
        "after the take the cube is never turned again, not even by the taker's free "
        "redouble; gnubg's 'Dead cube (opponent doesn't redouble)' line; differs from dead "
        "only where that redouble is free"
    ),
    "live": (
        "the cube stays in play at the given cube life x (1: fully live, gnubg's 'Live cube' "
        "line; the taker's free redouble included)"
    ),
}


@dataclass(frozen=True)
class PlayerPoints(FrameMixin):
    """One player's cube points at a score (winning chances of that player).

    ``*_dead`` count the taker's free redouble, ``*_no_recube`` do not (see :data:`TERMS`);
    they differ only where that redouble is free. ``None`` where a value does not apply:
    the Crawford game has no cube points; post-Crawford and DMP games have no live points;
    a doubler who needs no more points than the cube holds has nothing to double for, so
    it has no double, cash or too-good point and its opponent no take point.
    """

    take_point_dead: float | None
    take_point_live: float | None
    double_point_dead: float | None
    double_point_live: float | None
    cash_point_dead: float | None
    cash_point_live: float | None
    too_good_point: float | None
    gammon_value: float
    backgammon_value: float
    may_double: bool
    take_point_no_recube: float | None = None
    double_point_no_recube: float | None = None
    cash_point_no_recube: float | None = None

    def as_dict(self) -> dict[str, float | bool | None]:
        """JSON-ready dict; a value that does not apply is ``None`` (JSON ``null``)."""
        return dict(self.__dict__)


#: Point columns of :meth:`ScorePoints.to_frame`, in display order.
POINT_FIELDS: tuple[str, ...] = (
    "take_point_dead",
    "take_point_no_recube",
    "take_point_live",
    "double_point_dead",
    "double_point_no_recube",
    "double_point_live",
    "cash_point_dead",
    "cash_point_no_recube",
    "cash_point_live",
    "too_good_point",
    "gammon_value",
    "backgammon_value",
    "may_double",
)


@dataclass(frozen=True)
class ScorePoints:
    """Both players' cube points at one score (see :func:`points`).

    ``cube_life`` is the x of the ``*_live`` points (None where there are none).
    """

    away: tuple[int, int]
    cube: int
    owner: str
    state: ScoreState
    gammons: tuple[float, float]
    backgammons: tuple[float, float]
    cube_life: float | None
    met: str
    players: tuple[PlayerPoints, PlayerPoints]
    free_drop: bool = False

    #: The fields :meth:`to_frame` records in ``df.attrs``: the score and what the points
    #: were computed with.
    FRAME_ATTRS: ClassVar[tuple[str, ...]] = (
        "met", "away", "cube", "owner", "state", "gammons", "backgammons", "cube_life",
    )  # fmt: skip

    @property
    def free_recube(self) -> bool:
        """Somebody's double here is met by the taker's free redouble (dead != no recube)."""
        return any(
            p.take_point_dead is not None
            and p.take_point_no_recube is not None
            and abs(p.take_point_no_recube - p.take_point_dead) > 1e-12
            for p in self.players
        )

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of ``mathbg takepoint --json`` (fractions; ``null`` = n/a)."""
        return {
            "away": list(self.away),
            "cube": self.cube,
            "owner": self.owner,
            "state": self.state,
            "met": self.met,
            "gammons": list(self.gammons),
            "backgammons": list(self.backgammons),
            "cube_life": self.cube_life,
            "free_drop": self.free_drop,
            "terms": dict(TERMS),
            "players": [p.as_dict() for p in self.players],
        }

    def to_frame(self) -> pd.DataFrame:
        """Both players' points as a DataFrame: index ``player`` ("player", "opponent"),
        one column per :data:`POINT_FIELDS` (fractions, NaN where a point does not apply),
        plus ``away``; the score, cube, MET and cube life are in ``df.attrs``."""
        from mathbg._output import frame

        rows = []
        for name, away, p in zip(("player", "opponent"), self.away, self.players, strict=True):
            d = p.as_dict()
            rows.append({"player": name, "away": away, **{k: d[k] for k in POINT_FIELDS}})
        name = f"cube points at {self.away[0]}-away/{self.away[1]}-away, cube {self.cube}"
        attrs = {field: getattr(self, field) for field in self.FRAME_ATTRS}
        return frame(rows, name=name, index="player", **attrs)


def points(
    met: MET | str,
    away: tuple[int, int],
    *,
    cube: int = 1,
    owner: str | None = None,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    crawford: bool = False,
    cube_life: float | None = None,
) -> ScorePoints:
    """Take, double, cash and too-good points of both players at one score.

    Parameters
    ----------
    met : mathbg.met.MET or str
        The match equity table (or a shipped table's name).
    away : (int, int)
        The score ``(player_away, opponent_away)``: points the first-named player and the
        opponent need.
    cube : int
        Current cube value (power of two); doubles go to ``2 cube``.
    owner : {"centre", "player", "opponent"}, optional
        Who holds the cube. Default: the centre on the 1-cube (the initial double, 1 -> 2);
        above 1 each side's column is its redouble (``cube -> 2 cube``) as the cube's
        owner, the side that took it (``owner="each"`` in the result). A centred cube above
        1 does not arise in match play and is refused. With an owner, the other side cannot
        double: its doubling points and the owner's take points are None (not applicable),
        as :func:`mathbg.cube.matrix.score_matrix` gives NaN. Post-Crawford a cube above 1
        is the leader's (it took the trailer's double) and has nothing to double for, so
        nothing applies there.
    gammons, backgammons : (G0, G1), (B0, B1)
        First-named player's and opponent's rates, disjoint fractions of that side's wins
        (gammons that are not backgammons; backgammons), as in gnubg's market window.
    crawford : bool
        A side 1-away: the Crawford game (no cube points) rather than post-Crawford.
    cube_life : float, optional
        Cube life ``x`` for the "live" points; default 1 (fully live, as gnubg's window,
        :data:`mathbg.cube.life.LIVE_CUBE_LIFE`).

    Returns
    -------
    ScorePoints
        ``players[0]`` is the first-named player. ``take_point_*`` are that player's take
        points against the other's double; ``double_point_*``, ``cash_point_*`` and
        ``too_good_point`` its own as the doubler; ``double_point_live`` equals
        ``double_point_dead`` (gnubg prints no live double point). ``*_dead`` count the
        taker's free redouble, ``*_no_recube`` do not (:data:`TERMS`). A value that does
        not apply is None: the points of a doubler who needs <= ``cube`` and its
        opponent's take point; post-Crawford and DMP: no live points (the trailer's double
        point is 0 and its cash point is 1 minus the leader's take point; the leader and
        both DMP players have no doubling points). The Crawford game: gammon values only.

    Raises
    ------
    InvalidScoreError
        For a bad score or cube, or the Crawford game without a side 1-away.
    InvalidParameterError
        For bad rates or a cube life outside [0, 1].

    Examples
    --------
    >>> sp = points("kazaross-xg2", (3, 3))
    >>> round(sp.players[0].take_point_dead, 4), round(sp.players[0].take_point_live, 4)
    (0.3017, 0.2265)
    """
    t = MetView(as_met(met), 0)
    a, b = away_score(away)
    c = int(check_cube(cube))
    state = ScoreState.of((a, b), crawford=crawford)
    if owner is None:
        owner = "centre" if c == 1 else "each"
    else:
        owner = check_owner(owner)
        if owner == "centre" and c > 1:
            raise InvalidScoreError(
                f"a centred cube above 1 does not arise in match play (got cube {c}): the "
                "cube leaves the centre with the first double; give the owner (player or "
                "opponent), or none for each side's redouble"
            )
    cube_state(c, owner == "centre", state == "crawford")
    xv = LIVE_CUBE_LIFE if cube_life is None else float(check_cube_life(cube_life))
    g = pair(gammons, "gammons")
    bg = pair(backgammons, "backgammons")
    g0, b0 = (float(v) for v in check_rates(g[0], bg[0], "player"))
    g1, b1 = (float(v) for v in check_rates(g[1], bg[1], "opponent"))
    one_away = np.asarray((a == 1) or (b == 1))
    sol = solve(
        t,
        np.asarray(a),
        np.asarray(b),
        np.asarray(c),
        (np.asarray(g0), np.asarray(b0), np.asarray(g1), np.asarray(b1)),
        one_away,
        np.asarray(state == "crawford"),
    )
    gv0, bv0 = gammon_values(t, np.asarray(a), np.asarray(b), np.asarray(c), one_away)
    gv1, bv1 = gammon_values(t.swapped(), np.asarray(b), np.asarray(a), np.asarray(c), one_away)
    cash_x = (
        float(cash_at_x(sol, 0, np.asarray(xv))[0]),
        float(cash_at_x(sol, 1, np.asarray(xv))[0]),
    )
    has_live = state == "normal"
    aways = (a, b)
    players = []
    for i, (gv, bv) in enumerate(((gv0, bv0), (gv1, bv1))):
        j = 1 - i
        # who may turn the cube: "each" = every column is its own side's redouble (that
        # side holds the cube); post-Crawford only the leader ever holds a cube above 1
        hypothetical = state == "post-crawford" and c > 1
        holds = owner in ("centre", "each") or _owner_for(owner, i) == "player"
        other_holds = owner in ("centre", "each") or _owner_for(owner, i) == "opponent"
        md = not hypothetical and may_double(
            ((a, b)[i], (b, a)[i]),
            c,
            "player" if owner == "each" else _owner_for(owner, i),
            crawford=(state == "crawford"),
        )
        if state == "crawford":
            players.append(
                PlayerPoints(None, None, None, None, None, None, None, float(gv), float(bv), md)
            )
            continue
        # a doubler who needs <= cube has nothing to double for, and a side that does not
        # hold the cube cannot double: its doubling points and the taker's take points do
        # not apply
        doubles = aways[i] > c and holds and not hypothetical
        faces_double = aways[j] > c and other_holds and not hypothetical

        def mine(v: Any, ok: bool, live: bool = False) -> float | None:
            return float(v) if ok and (has_live or not live) else None

        players.append(
            PlayerPoints(
                take_point_dead=mine(1.0 - sol.cash_dead[j][0], faces_double),
                take_point_live=mine(1.0 - cash_x[j], faces_double, live=True),
                double_point_dead=mine(sol.double_point[i][0], doubles),
                double_point_live=mine(sol.double_point[i][0], doubles, live=True),
                cash_point_dead=mine(sol.cash_dead[i][0], doubles),
                cash_point_live=mine(cash_x[i], doubles, live=True),
                too_good_point=mine(sol.too_good[i][0], doubles),
                gammon_value=float(gv),
                backgammon_value=float(bv),
                may_double=md,
                take_point_no_recube=mine(1.0 - sol.cash_dead_no_redouble[j][0], faces_double),
                double_point_no_recube=mine(sol.double_point_no_redouble[i][0], doubles),
                cash_point_no_recube=mine(sol.cash_dead_no_redouble[i][0], doubles),
            )
        )
    name = getattr(t.met, "name", "")
    free_drop = state == "post-crawford" and max(a, b) % 2 == 0
    return ScorePoints(
        away=(a, b),
        cube=c,
        owner=owner,
        state=state,
        gammons=(g0, g1),
        backgammons=(b0, b1),
        cube_life=xv if has_live else None,
        met=str(name),
        players=(players[0], players[1]),
        free_drop=free_drop,
    )


def _owner_for(owner: str, i: int) -> str:
    """The owner as seen by player i (0 = first-named)."""
    if i == 0 or owner == "centre":
        return owner
    return "opponent" if owner == "player" else "player"
