"""Match winning chances as gnubg 1.07 looks them up (``getME``, ``getMEAtScore``), in its
single precision.

The scores here are by the record's player index: ``away = (player 0's, player 1's)``. gnubg
reads its table from player 0's side: player 0's chance is the entry, player 1's is one
minus it (in single precision, so the two are not always each other's complement to the
last bit); the post-Crawford table gives the trailer's chance. After a game the score reads
the post-Crawford table when the game just played was the Crawford game or a post-Crawford
game (a side was 1-away); otherwise the pre-Crawford table, whose 1-away entries are the
Crawford game's. These are the values gnubg's ``eq2mwc`` and ``mwc2eq`` interpolate between,
its double/pass value (``GetDPEq``) and its actual result of a game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState

__all__ = ["mwc_after", "mwc_now", "scale_of", "win_lose"]

f32 = np.float32


@lru_cache(maxsize=65536)
def _lookup(met: MET, away: tuple[int, int], player: int, post: bool) -> float:
    a0, a1 = away
    if a0 <= 0:
        return 1.0 if player == 0 else 0.0
    if a1 <= 0:
        return 0.0 if player == 0 else 1.0
    if post:  # the trailer's post-Crawford chance
        trail = a1 if a0 == 1 else a0
        v = f32(met.mwc((trail, 1), post_crawford=True))
        trailer = 1 if a0 == 1 else 0
        return float(v if player == trailer else f32(1.0) - v)
    v = f32(met.mwc((a0, a1), crawford=(a0 == 1) != (a1 == 1)))
    return float(v if player == 0 else f32(1.0) - v)


def mwc_after(met: MET, away: tuple[int, int], player: int, crawford: bool) -> float:
    """``player``'s MWC at ``away`` after a game (gnubg ``getME``).

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        Points players 0 and 1 need after the game (<= 0: that player has won the match).
    player : int
        Whose chance (0 or 1).
    crawford : bool
        The game just played was the Crawford game or post-Crawford (a side 1-away before
        it).

    Returns
    -------
    float

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> mwc_after(t, (0, 3), 0, False), mwc_after(t, (2, 0), 1, False)
    (1.0, 1.0)
    >>> mwc_after(t, (1, 3), 0, False) == float(np.float32(t.mwc((1, 3), crawford=True)))
    True
    """
    a0, a1 = away
    post = crawford and (a0 == 1 or a1 == 1)
    return _lookup(met, away, player, post)


def mwc_now(met: MET, away: tuple[int, int], player: int, crawford: bool) -> float:
    """``player``'s MWC at the start of a game at ``away`` (gnubg ``getMEAtScore``): the
    post-Crawford table when a side is 1-away and this is not the Crawford game.

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        Points players 0 and 1 need.
    player : int
        Whose chance.
    crawford : bool
        This is the Crawford game.

    Returns
    -------
    float
        The MWC, rounded to single precision as gnubg stores it.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> mwc_now(as_met("kazaross-xg2"), (5, 5), 1, False)
    0.5
    """
    a0, a1 = away
    return _lookup(met, away, player, not crawford and (a0 == 1 or a1 == 1))


def win_lose(
    met: MET, away: tuple[int, int], cube: int, crawford: bool, player: int
) -> tuple[float, float]:
    """``player``'s MWC after winning and after losing ``cube`` points (gnubg's ``getME`` of
    ``eq2mwc``).

    Parameters
    ----------
    met : MET
        The match equity table.
    away : (int, int)
        Points players 0 and 1 need now.
    cube : int
        The points at stake.
    crawford : bool
        This is the Crawford game.
    player : int
        Whose chances (0 or 1).

    Returns
    -------
    (win, lose) : (float, float)

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> w, l = win_lose(t, (3, 3), 1, False, 0)
    >>> w == float(np.float32(t.mwc((2, 3)))), l == float(np.float32(t.mwc((3, 2))))
    (True, True)
    """
    a0, a1 = away
    post = crawford or a0 == 1 or a1 == 1
    mine = (a0 - cube, a1) if player == 0 else (a0, a1 - cube)
    theirs = (a0, a1 - cube) if player == 0 else (a0 - cube, a1)
    return mwc_after(met, mine, player, post), mwc_after(met, theirs, player, post)


def scale_of(met: MET, match: MatchState, player: int) -> tuple[float, float] | None:
    """``player``'s (win, lose) MWC of the cube at ``match`` (:func:`win_lose`), None in
    money play.

    Parameters
    ----------
    met : MET
        The match equity table.
    match : MatchState
        The state (score, cube, Crawford).
    player : int
        Whose chances.

    Returns
    -------
    (float, float) or None

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.rules.match import MatchState
    >>> scale_of(as_met("kazaross-xg2"), MatchState(), 0) is None
    True
    """
    if not match.length:
        return None
    away = (match.length - match.score[0], match.length - match.score[1])
    return win_lose(met, away, match.cube, bool(match.crawford), player)
